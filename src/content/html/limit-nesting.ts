import { scanTags } from './scan-tags.ts';
import { VOID_ELEMENTS } from './void-elements.ts';

export interface NestingResult {
  html: string;
  /** Deepest element nesting of the input, as the parser would build it without a limit (approximately). */
  maxDepth: number;
  /** Whether tags deeper than the limit (or past `maxElements`) were removed. */
  flattened: boolean;
}

export interface NestingOptions {
  /**
   * Elements kept at most: later start tags (and their end tags) are removed too, their text kept, so a
   * page of a million tiny elements parses as a few long text nodes. Default: no limit.
   */
  maxElements?: number | undefined;
}

/**
 * Keep hostile nesting (100 000 `<div>`s) away from the DOM. The parser's open-element stack, the DOM
 * and every recursive consumer (Readability, the Markdown writer) slow down or overflow on such trees,
 * so one linear pass replays what htmlparser2 (which linkedom uses) will do with the tags — its tokenizer
 * (`scanTags`), its open-element stack with implied end tags, void and self-closing elements — and drops
 * every start tag that would put an element deeper than `maxDepth`, keeping the text. The end tags of the
 * dropped elements go too, so the rest of the page keeps its structure. Ordinary pages come back unchanged.
 *
 * The replay is exact for the tags that are kept, so no markup trick can take the parsed tree deeper
 * than `maxDepth` open elements (plus void leaves).
 */
export function limitNesting(html: string, maxDepth: number, options: NestingOptions = {}): NestingResult {
  const maxElements = options.maxElements ?? Number.POSITIVE_INFINITY;
  let elements = 0;
  const tree = new ParserStack();
  /** Elements dropped, innermost last: all nested inside the tree's innermost element (or past the cap). */
  const dropped = new NameStack();
  const cuts: Array<[start: number, end: number]> = [];
  let deepest = 0;
  for (const tag of scanTags(html)) {
    if (tag.kind === 'end') {
      if (dropped.popTo(tag.name)) cuts.push([tag.start, tag.end]);
      else if (tree.close(tag.name) && dropped.size > 0) dropped.clear();
      continue;
    }
    if (dropped.size > 0) dropped.popImplied(tag.name);
    const end = tag.rawText?.end ?? tag.end;
    if (dropped.size === 0 && elements < maxElements && tree.depthAfterOpening(tag.name) <= maxDepth) {
      elements += 1;
      tree.open(tag.name, tag.selfClosing);
      if (tag.rawText?.endTagName !== undefined) tree.close(tag.rawText.endTagName);
    } else {
      cuts.push([tag.start, end]);
      const closed = tag.selfClosing && (tree.inForeignContent || dropped.hasForeign());
      if (!VOID_ELEMENTS.has(tag.name) && !tag.rawText && !closed) dropped.push(tag.name);
    }
    deepest = Math.max(deepest, tree.depth + dropped.size);
  }
  return {
    html: cuts.length > 0 ? applyCuts(html, cuts) : html,
    maxDepth: deepest,
    flattened: cuts.length > 0,
  };
}

/** Where `/>` closes an element (htmlparser2's foreign context), and the elements that switch it off again. */
const FOREIGN_ELEMENTS = new Set(['svg', 'math']);
const HTML_INTEGRATION_ELEMENTS = new Set([
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
]);

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

/** A stack of element names with a count per name, so looking for an open element costs nothing when it is absent. */
class NameStack {
  readonly names: string[] = [];
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.names.length;
  }

  get top(): string | undefined {
    return this.names[this.names.length - 1];
  }

  has(name: string): boolean {
    return (this.counts.get(name) ?? 0) > 0;
  }

  hasForeign(): boolean {
    return this.has('svg') || this.has('math');
  }

  push(name: string): void {
    this.names.push(name);
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
  }

  pop(): void {
    const name = this.names.pop();
    if (name !== undefined) this.counts.set(name, (this.counts.get(name) ?? 1) - 1);
  }

  /** Pop up to and including the innermost `name`; false (and nothing popped) when it is not open. */
  popTo(name: string): boolean {
    if (!this.has(name)) return false;
    while (this.top !== name) this.pop();
    this.pop();
    return true;
  }

  /** The end tags implied by opening `name` (`<p>` closes an open `<p>`, `<li>` an open `<li>`, …). */
  popImplied(name: string): void {
    const closes = IMPLIED_CLOSE.get(name);
    while (closes && this.top !== undefined && closes.has(this.top)) this.pop();
  }

  clear(): void {
    this.names.length = 0;
    this.counts.clear();
  }
}

/** htmlparser2's `Parser` in HTML mode, reduced to its open-element stack and foreign context. */
class ParserStack {
  private readonly stack = new NameStack();
  /** htmlparser2's `foreignContext`, innermost last: pushed by svg/math and the integration points. */
  private readonly foreign: boolean[] = [false];

  get depth(): number {
    return this.stack.size;
  }

  get inForeignContent(): boolean {
    return this.foreign[this.foreign.length - 1] === true;
  }

  /** Open elements once `<name>` is read (its implied end tags first). */
  depthAfterOpening(name: string): number {
    const closes = IMPLIED_CLOSE.get(name);
    let depth = this.stack.size;
    while (closes && depth > 0 && closes.has(this.stack.names[depth - 1]!)) depth -= 1;
    return VOID_ELEMENTS.has(name) ? depth : depth + 1;
  }

  open(name: string, selfClosing: boolean): void {
    this.stack.popImplied(name);
    if (VOID_ELEMENTS.has(name)) return;
    this.stack.push(name);
    if (FOREIGN_ELEMENTS.has(name)) this.foreign.push(true);
    else if (HTML_INTEGRATION_ELEMENTS.has(name)) this.foreign.push(false);
    // The foreign context is not popped for a self-closed element: htmlparser2 does not either.
    if (selfClosing && this.inForeignContent && this.stack.top === name) this.stack.pop();
  }

  /** Apply an end tag; true when it closed elements. */
  close(name: string): boolean {
    if (FOREIGN_ELEMENTS.has(name) || HTML_INTEGRATION_ELEMENTS.has(name)) this.foreign.pop();
    if (VOID_ELEMENTS.has(name)) return false;
    // A stray `</p>` makes an empty `<p>` (a leaf, like `</br>`): the depth of open elements is unchanged.
    return this.stack.popTo(name);
  }
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
