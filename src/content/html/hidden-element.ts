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
    element.getAttribute('aria-hidden') === 'true' &&
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

/** Class names that hide an element, or show it only to screen readers (Bootstrap, Tailwind, WordPress, …). */
const HIDDEN_CLASSES = new Set([
  'sr-only',
  'sr-only-focusable',
  'visually-hidden',
  'visually-hidden-focusable',
  'visuallyhidden',
  'screen-reader-text',
  'screen-reader-only',
  'screenreader-only',
  'a11y-hidden',
  'hidden',
  'd-none',
  'is-hidden',
  'u-hidden',
  'u-visually-hidden',
  'hidden-visually',
  'element-invisible',
  'show-for-sr',
  'cdk-visually-hidden',
  'invisible',
]);

/** A responsive class that shows the element again on some screens: `md:block`, `d-lg-flex`. */
const SHOWN_AGAIN =
  /^(?:[\w-]+:)+(?:block|flex|grid|inline|inline-block|inline-flex|inline-grid|table|contents|flow-root|visible|not-sr-only)$|^d-(?:sm|md|lg|xl|xxl|print)-(?!none)[a-z-]+$/;

/** A cheap pre-check on the raw attribute: most class lists name none of `HIDDEN_CLASSES`. */
const MAY_HIDE = /hidden|sr-only|screen-?reader|d-none|invisible|show-for-sr/i;

export function hiddenByClass(classes: string): string | undefined {
  if (!MAY_HIDE.test(classes)) return undefined;
  const names = classes.trim().split(/\s+/);
  const hiding = names.find((name) => HIDDEN_CLASSES.has(name.toLowerCase()));
  if (!hiding || names.some((name) => SHOWN_AGAIN.test(name))) return undefined;
  return `class ${hiding}`;
}

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
  // An entrance animation's first frame (Framer Motion & co. render `opacity:0;transform:…` on the server)
  // is content about to show, not hidden text.
  if (isZero(get('opacity')) && !get('transform') && !get('transition')) return 'opacity:0';
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
  for (const part of style.split(';')) {
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
