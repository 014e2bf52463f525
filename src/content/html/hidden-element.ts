import type { DomElement } from './dom.ts';

/**
 * Why an element is hidden from a human reader, or `undefined` when it shows. Hidden text is where prompt
 * injections hide ("ignore previous instructions…" in a `display:none` span), so it never reaches the model.
 * Only what the markup itself says is read: the `hidden` and `aria-hidden` attributes, the inline `style`,
 * and the class names common frameworks use for screen-reader-only and hidden elements.
 */
export function hiddenReason(element: DomElement): string | undefined {
  if (element.localName === 'dialog' && !element.hasAttribute('open')) return 'closed dialog';
  // Most elements have no attributes: one cheap check spares the lookups below.
  if (!(element as DomElement & { hasAttributes(): boolean }).hasAttributes()) return undefined;
  const hidden = element.getAttribute('hidden');
  if (hidden !== null && hidden !== 'until-found') return 'hidden attribute';
  // Wikimedia renders formulas as aria-hidden fallback images: keep those (as Readability does).
  if (
    element.getAttribute('aria-hidden')?.trim().toLowerCase() === 'true' &&
    !(element.getAttribute('class') ?? '').includes('fallback-image')
  ) {
    return 'aria-hidden';
  }
  const style = element.getAttribute('style');
  const byStyle = style ? hiddenByStyle(style) : undefined;
  // `font-size:0` is also a layout trick (no gaps between inline blocks) whose children set their own size.
  if (byStyle && !(byStyle === 'font-size:0' && hasSizedDescendant(element))) return byStyle;
  const classes = element.getAttribute('class');
  return classes ? hiddenByClass(classes) : undefined;
}

function hasSizedDescendant(element: DomElement): boolean {
  const pending: DomElement[] = [...element.children];
  while (pending.length > 0) {
    const descendant = pending.pop() as DomElement;
    if (/font-size/i.test(descendant.getAttribute('style') ?? '')) return true;
    pending.push(...descendant.children);
  }
  return false;
}

/**
 * Class names that hide an element, or show it only to screen readers: Tailwind, Bootstrap 3–5, HTML5
 * Boilerplate, WordPress, Drupal and Joomla, Foundation, Bulma, Angular CDK, GOV.UK, NHS, USWDS, Salesforce
 * Lightning, IBM Carbon, UIkit, W3.CSS, and the spellings sites invent on the same theme. Compared in lower case,
 * without Tailwind's `!` important modifier (`!sr-only`, `sr-only!`).
 */
const HIDDEN_CLASSES = new Set([
  'sr-only',
  'sr-only-focusable',
  'sronly',
  'sr-text',
  'visually-hidden',
  'visually-hidden-focusable',
  'visuallyhidden',
  'visuallyhidden-focusable',
  'hidden-visually',
  'u-visually-hidden',
  'screen-reader-text',
  'screen-reader-only',
  'screenreader-only',
  'screen-reader',
  'screenreader',
  'screenreader-text',
  'a11y-hidden',
  'a11y-only',
  'assistive-text',
  'element-invisible',
  'element-hidden',
  'show-for-sr',
  'is-sr-only',
  'cdk-visually-hidden',
  'govuk-visually-hidden',
  'govuk-visually-hidden-focusable',
  'nhsuk-u-visually-hidden',
  'usa-sr-only',
  'slds-assistive-text',
  'slds-hide',
  'bx--visually-hidden',
  'cds--visually-hidden',
  'bx--assistive-text',
  'cds--assistive-text',
  'uk-hidden',
  'uk-invisible',
  'w3-hide',
  'text-hide',
  'hidden',
  'd-none',
  'is-hidden',
  'u-hidden',
  'invisible',
]);

/**
 * A responsive class that shows the element again on some screens: `md:block`, `max-lg:not-sr-only`,
 * `d-lg-flex`. Only screen-size, container, orientation and colour-scheme variants count: a state variant
 * (`focus:not-sr-only`, `hover:block`) shows nothing until the reader acts, and on an element that cannot take
 * focus never does.
 */
const SHOWN_AGAIN =
  /^(?:(?:sm|md|lg|xl|\d?xl|xxl|(?:min|max)-[\w[\]().-]+|@[\w[\]().-]+|dark|portrait|landscape):)+!?(?:block|flex|grid|inline|inline-block|inline-flex|inline-grid|table|contents|flow-root|visible|not-sr-only)!?$|^d-(?:sm|md|lg|xl|xxl|print)-(?!none)[a-z-]+$/;

/** A cheap pre-check on the raw attribute: most class lists name none of `HIDDEN_CLASSES`. */
const MAY_HIDE = /hid|sr-|sronly|screen-?reader|d-none|invisible|show-for-sr|a11y|assistive/i;

export function hiddenByClass(classes: string): string | undefined {
  if (!MAY_HIDE.test(classes)) return undefined;
  const names = classes.trim().split(/\s+/);
  const hiding = names.find((name) => HIDDEN_CLASSES.has(name.toLowerCase().replace(/^!|!$/g, '')));
  if (!hiding || names.some((name) => SHOWN_AGAIN.test(name) || FOLDED_PANEL.test(name))) return undefined;
  return `class ${hiding}`;
}

/**
 * A folded panel's own class: an accordion's or a FAQ's answer hidden until the reader opens it (as
 * `max-height:0` folds one), not text kept from the reader.
 */
const FOLDED_PANEL = /accordion|collaps|expand|faq/i;

interface Declaration {
  value: string;
  important: boolean;
}

/** `display:none` & co. in an inline style; later declarations win unless an earlier one is `!important`. */
export function hiddenByStyle(style: string): string | undefined {
  const declarations = parseStyle(style);
  const get = (property: string) => declarations.get(property) ?? '';
  if (get('display') === 'none') return 'display:none';
  if (/^(?:hidden|collapse)$/.test(get('visibility'))) return 'visibility:hidden';
  // An entrance animation's first frame (Framer Motion & co. render `opacity:0;transform:translateY(20px)` on
  // the server) is content about to show, not hidden text. Only a transform that moves or scales the element
  // counts: `transform:none`, a zero translate or a bare `transition` animate nothing in.
  if (isZero(get('opacity')) && !isMoved(get('transform'))) return 'opacity:0';
  if (isZero(get('font-size'))) return 'font-size:0';
  if (/^scale[xy]?\(\s*0*(?:\.0*)?\s*(?:[,)])/.test(get('transform'))) return 'transform:scale(0)';
  if (lengthPx(get('text-indent')) <= -999) return 'text-indent off-screen';
  const position = get('position');
  if (position === 'absolute' || position === 'fixed' || position === 'relative') {
    for (const side of ['left', 'top', 'right', 'bottom']) {
      if (lengthPx(get(side)) <= -999) return `${side} off-screen`;
    }
  }
  if (lengthPx(get('margin-left')) <= -999 || lengthPx(get('margin-top')) <= -999) return 'margin off-screen';
  if (/translate(?:[xy]|3d)?\(\s*-\d{4,}/.test(get('transform'))) return 'transform off-screen';
  if ((position === 'absolute' || position === 'fixed') && isEmptyClip(get('clip')))
    return 'clip:rect(0 0 0 0)';
  if (isEmptyClipPath(get('clip-path'))) return 'clip-path';
  if (/^(?:hidden|clip)$/.test(get('overflow')) || /^(?:hidden|clip)$/.test(get('overflow-x'))) {
    // Not `max-height:0`: that is how accordions fold their panels, which a reader can open.
    for (const size of ['width', 'height']) {
      if (lengthPx(get(size)) <= 1) return `${size}:0 with overflow:hidden`;
    }
  }
  return undefined;
}

function parseStyle(style: string): Map<string, string> {
  const declarations = new Map<string, Declaration>();
  for (const part of plainCss(style).split(';')) {
    const colon = part.indexOf(':');
    if (colon < 0) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    let value = part
      .slice(colon + 1)
      .trim()
      .toLowerCase();
    const important = /!\s*important$/.test(value);
    if (important) value = value.replace(/\s*!\s*important$/, '');
    const previous = declarations.get(property);
    if (previous?.important && !important) continue;
    declarations.set(property, { value, important });
  }
  return new Map([...declarations].map(([property, { value }]) => [property, value]));
}

/**
 * CSS as a browser reads it before matching: comments gone (`display:` + an empty comment + `none` still hides;
 * a comment separates tokens, so it becomes a space) and escapes decoded (`d\69splay`, `n\one`).
 */
function plainCss(style: string): string {
  if (!/[/\\]/.test(style)) return style;
  return style
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ')
    .replace(
      /\\([0-9a-f]{1,6})[ \t\r\n\f]?|\\([^\r\n\f0-9a-f])/gi,
      (_escape, hex?: string, char?: string) => {
        if (hex === undefined) return char ?? '';
        const code = Number.parseInt(hex, 16);
        return String.fromCodePoint(code > 0 && code <= 0x10ffff ? code : 0xfffd);
      },
    );
}

/**
 * Whether a `transform` moves, scales, rotates or skews the element: any function with a value off the
 * identity. `none`, `translate(0)`, `scale(1)` and values that are not plain numbers (`var(--y)`) do not.
 */
function isMoved(transform: string): boolean {
  for (const [, name = '', args = ''] of transform.matchAll(/([a-z][a-z0-9]*)\(([^()]*)\)/g)) {
    if (name === 'perspective') continue;
    const values = args
      .split(/[\s,]+/)
      .filter((value) => value !== '')
      .map((value) => Number.parseFloat(value));
    if (values.some((value) => !Number.isFinite(value))) continue;
    const identity = name.startsWith('scale')
      ? values.map(() => 1)
      : name === 'matrix'
        ? [1, 0, 0, 1, 0, 0]
        : name === 'matrix3d'
          ? [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]
          : values.map(() => 0);
    if (values.some((value, index) => value !== identity[index])) return true;
  }
  return false;
}

/** A CSS length in (approximate) pixels; `NaN` when it is not a plain length. Percentages and viewport
 * units count as a hundredth of a 1000-pixel screen, so `-100%` and `-100vw` are off-screen. */
function lengthPx(value: string): number {
  const match = /^(-?\d*\.?\d+)(px|em|rem|pt|%|vw|vh|vmin|vmax|ch|ex)?$/.exec(value);
  if (!match) return Number.NaN;
  const number = Number(match[1]);
  switch (match[2]) {
    case undefined:
    case 'px':
      return number;
    case 'pt':
      return number * (4 / 3);
    case '%':
    case 'vw':
    case 'vh':
    case 'vmin':
    case 'vmax':
      return number * 10;
    default:
      return number * 16;
  }
}

function isZero(value: string): boolean {
  return /^-?0*(?:\.0*)?(?:px|em|rem|pt|%|vw|vh)?$/.test(value) && value !== '';
}

/** `clip: rect(…)` with no area: top ≥ bottom or left ≥ right (`rect(0 0 0 0)`, `rect(1px, 1px, 1px, 1px)`). */
function isEmptyClip(value: string): boolean {
  const match = /^rect\(([^)]*)\)$/.exec(value);
  if (!match) return false;
  const [top, right, bottom, left] = (match[1] ?? '').split(/[\s,]+/).map((part) => lengthPx(part));
  if (top === undefined || right === undefined || bottom === undefined || left === undefined) return false;
  return bottom <= top || right <= left;
}

/** `clip-path: inset(50%)` (or more), `circle(0)`, `polygon(0 0, 0 0, 0 0)`. */
function isEmptyClipPath(value: string): boolean {
  const inset = /^inset\(\s*(\d*\.?\d+)%/.exec(value);
  if (inset) return Number(inset[1]) >= 50;
  if (/^circle\(\s*0(?:px|%)?\s*(?:at\b|\))/.test(value)) return true;
  return /^polygon\(\s*0(?:px|%)?\s+0(?:px|%)?(?:\s*,\s*0(?:px|%)?\s+0(?:px|%)?)*\s*\)$/.test(value);
}
