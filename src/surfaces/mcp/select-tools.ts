import { PeriscopeError } from '../../errors.ts';
import type { ToolName } from '../../tool-call.ts';
import type { Tool } from '../../tools/tool.ts';

const TOOL_NAMES: readonly ToolName[] = ['web_search', 'web_fetch', 'image_search', 'verify_citation'];

export interface ToolSelection {
  tools: Tool[];
  /** Tools asked for that this deployment switched off (`tools.<name>.enabled: false`). */
  switchedOff: ToolName[];
}

/**
 * The enabled tools a client asked for (`--tools`, `mcp.tools`, `?tools=`), in the order given; `undefined` or
 * `null` means all. An unknown name is an INVALID_INPUT naming the known ones.
 */
export function selectTools(
  enabled: readonly Tool[],
  names: readonly string[] | null | undefined,
  source = 'tools',
): ToolSelection {
  if (names === null || names === undefined) return { tools: [...enabled], switchedOff: [] };
  const tools: Tool[] = [];
  const switchedOff: ToolName[] = [];
  for (const name of names) {
    if (!TOOL_NAMES.includes(name as ToolName)) {
      throw new PeriscopeError(
        'INVALID_INPUT',
        `unknown tool '${name}' in ${source}; the tools are ${TOOL_NAMES.join(', ')}`,
      );
    }
    const tool = enabled.find((candidate) => candidate.name === name);
    if (!tool) switchedOff.push(name as ToolName);
    else if (!tools.includes(tool)) tools.push(tool);
  }
  return { tools, switchedOff };
}

/** `web_search, web_fetch` → `['web_search', 'web_fetch']`. */
export function splitToolList(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
}
