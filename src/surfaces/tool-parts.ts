// What every surface takes from a tool or a ToolResult before putting it in its own wire format.

export interface ResultImage {
  mimeType: string;
  base64: string;
  [key: string]: unknown;
}

/** The image a web_fetch result carries (`data.image`), if any. */
export function imageOf(data: unknown): ResultImage | undefined {
  const image = (data as { image?: unknown } | undefined)?.image as Partial<ResultImage> | undefined;
  if (typeof image?.base64 !== 'string' || typeof image.mimeType !== 'string') return undefined;
  return image as ResultImage;
}
