import type { Tool } from '../../tools/tool.ts';

/** What the adapters take: a Periscope instance (its enabled tools) or a list of tools. */
export type ToolSource = { readonly tools: readonly Tool[] } | readonly Tool[];

export function toolsOf(source: ToolSource): readonly Tool[] {
  return Array.isArray(source) ? source : (source as { readonly tools: readonly Tool[] }).tools;
}

/** `data:image/png;base64,…` */
export function dataUrl(image: { mimeType: string; base64: string }): string {
  return `data:${image.mimeType};base64,${image.base64}`;
}
