export interface NestingResult {
  html: string;
  /** Deepest element nesting seen, as the parser will build it (approximately). */
  maxDepth: number;
  /** Whether tags deeper than the limit were removed. */
  flattened: boolean;
}

/**
 * Keep hostile nesting (100 000 `<div>`s) away from the DOM. The parser's open-element stack, the DOM
 * and every recursive consumer (Readability, the Markdown writer) slow down or overflow on such trees,
 * so one linear scan simulates the parser's stack — void elements, raw-text elements, comments and the
 * implied end tags of htmlparser2 (which linkedom uses) — and drops the tags of elements nested deeper
 * than `maxDepth`, keeping their text. Ordinary pages come back unchanged.
 */
export function limitNesting(html: string, maxDepth: number): NestingResult {
  const stack: StackEntry[] = [];
  const cuts: Array<[start: number, end: number]> = [];
  let deepest = 0;
  let foreign = 0;
  TAG_START.lastIndex = 0;
  for (let match = TAG_START.exec(html); match; match = TAG_START.exec(html)) {
    const start = match.index;
    const name = match[2]?.toLowerCase();
    if (name === undefined) {
      // Comment, doctype, CDATA or processing instruction.
      TAG_START.lastIndex = skipTo(html, match[0] === '<!--' ? '-->' : '>', start + match[0].length);
      continue;
    }
    const end = findTagEnd(html, start + match[0].length);
    TAG_START.lastIndex = end;
    if (match[1] === '/') {
      const entry = popTo(stack, name);
      if (entry && !entry.kept) cuts.push([start, end]);
      if (entry && FOREIGN_ELEMENTS.has(name)) foreign -= 1;
      continue;
    }
    closeImplied(stack, name);
    if (VOID_ELEMENTS.has(name) || (foreign > 0 && html.charCodeAt(end - 2) === SLASH)) continue;
    const kept = stack.length < maxDepth;
    if (RAW_TEXT_ELEMENTS.has(name)) {
      const closeEnd = skipTo(html, '>', indexOfClose(html, name, end));
      if (!kept) cuts.push([start, closeEnd]);
      TAG_START.lastIndex = closeEnd;
      continue;
    }
    if (!kept) cuts.push([start, end]);
    if (FOREIGN_ELEMENTS.has(name)) foreign += 1;
    stack.push({ name, kept });
    if (stack.length > deepest) deepest = stack.length;
  }
  return {
    html: cuts.length > 0 ? applyCuts(html, cuts) : html,
    maxDepth: deepest,
    flattened: cuts.length > 0,
  };
}

interface StackEntry {
  name: string;
  kept: boolean;
}

const TAG_START = /<(?:!--|(\/?)([a-zA-Z][^\s/>]*)|[!?])/g;
const SLASH = 0x2f;
/** A close tag is matched against at most this many open elements (the parser searches the whole stack). */
const CLOSE_SEARCH_LIMIT = 1024;

const VOID_ELEMENTS = new Set([
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
]);
const RAW_TEXT_ELEMENTS = new Set(['script', 'style', 'title', 'textarea', 'xmp']);
const FOREIGN_ELEMENTS = new Set(['svg', 'math']);

const P = ['p'];
const FORM_CONTROLS = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
/** htmlparser2's `openImpliesClose`: opening the key closes open elements of these names at the top. */
const IMPLIED_CLOSE = new Map<string, ReadonlySet<string>>(
  Object.entries({
    tr: ['tr', 'th', 'td'],
    th: ['th'],
    td: ['thead', 'th', 'td'],
    body: ['head', 'link', 'script'],
    li: ['li'],
    option: ['option'],
    optgroup: ['optgroup', 'option'],
    dd: ['dd', 'dt'],
    dt: ['dd', 'dt'],
    rt: ['rt', 'rp'],
    rp: ['rt', 'rp'],
    tbody: ['thead', 'tbody'],
    tfoot: ['thead', 'tbody'],
    ...Object.fromEntries(
      ['select', 'input', 'output', 'button', 'datalist', 'textarea'].map((n) => [n, FORM_CONTROLS]),
    ),
    ...Object.fromEntries(
      [
        'p',
        'h1',
        'h2',
        'h3',
        'h4',
        'h5',
        'h6',
        'address',
        'article',
        'aside',
        'blockquote',
        'details',
        'div',
        'dl',
        'fieldset',
        'figcaption',
        'figure',
        'footer',
        'form',
        'header',
        'hr',
        'main',
        'nav',
        'ol',
        'pre',
        'section',
        'table',
        'ul',
      ].map((n) => [n, P]),
    ),
  }).map(([name, closes]) => [name, new Set(closes)]),
);

function closeImplied(stack: StackEntry[], name: string): void {
  const closes = IMPLIED_CLOSE.get(name);
  if (!closes) return;
  while (stack.length > 0 && closes.has(stack[stack.length - 1]!.name)) stack.pop();
}

function popTo(stack: StackEntry[], name: string): StackEntry | undefined {
  const lowest = Math.max(0, stack.length - CLOSE_SEARCH_LIMIT);
  for (let index = stack.length - 1; index >= lowest; index -= 1) {
    if (stack[index]!.name === name) {
      const entry = stack[index];
      stack.length = index;
      return entry;
    }
  }
  return undefined;
}

/** Index just after the `>` that ends a tag, honouring quoted attribute values. */
function findTagEnd(html: string, from: number): number {
  let index = from;
  while (index < html.length) {
    const character = html[index];
    if (character === '>') return index + 1;
    if (character === '=') {
      index += 1;
      while (index < html.length && /\s/.test(html[index]!)) index += 1;
      const quote = html[index];
      if (quote === '"' || quote === "'") index = skipTo(html, quote, index + 1) - 1;
    }
    index += 1;
  }
  return html.length;
}

/** Index just after the next `marker` at or after `from`, or the end of the text. */
function skipTo(html: string, marker: string, from: number): number {
  const found = html.indexOf(marker, from);
  return found === -1 ? html.length : found + marker.length;
}

const CLOSE_TAGS = new Map(
  [...RAW_TEXT_ELEMENTS].map((name) => [name, new RegExp(`</${name}(?=[\\s/>])`, 'gi')]),
);

function indexOfClose(html: string, name: string, from: number): number {
  const pattern = CLOSE_TAGS.get(name)!;
  pattern.lastIndex = from;
  return pattern.exec(html)?.index ?? html.length;
}

function applyCuts(html: string, cuts: ReadonlyArray<[number, number]>): string {
  const parts: string[] = [];
  let position = 0;
  for (const [start, end] of cuts) {
    parts.push(html.slice(position, start), ' ');
    position = end;
  }
  parts.push(html.slice(position));
  return parts.join('');
}
