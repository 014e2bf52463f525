// Text into the DOM, safely. Everything that came from a page, a provider or a caller goes in with textContent
// (never parsed as HTML), with bidi controls made visible; links are made only for http(s) URLs.

export const $ = (id) => document.getElementById(id);

/** Bidi controls (RLO, LRI, …) shown as visible marks, so a hostile title cannot reorder what is around it. */
export function visible(text) {
  return String(text ?? '').replace(
    /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase()}⟩`,
  );
}

/** An element holding `text` as text, never as markup. */
export function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = visible(text);
  if (className) node.className = className;
  return node;
}

/** A link only for an absolute http(s) URL; anything else (javascript:, data:, …) stays text. */
export function safeLink(url) {
  let parsed;
  try {
    parsed = new URL(String(url));
  } catch {
    return el('span', url);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return el('span', url);
  const a = el('a', parsed.href);
  a.href = parsed.href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  return a;
}

/** A string as it is, anything else as indented JSON; either way with bidi controls made visible. */
export const pretty = (value) => visible(typeof value === 'string' ? value : JSON.stringify(value, null, 2));
