import { ELEMENT_NODE } from '../../html/dom.ts';
import type { LightElement } from '../../html/light-dom.ts';
import { BOILERPLATE, COMMENTS, CONTENT, classNames, classWords, findWord } from '../class-words.ts';
import type { TextStats } from '../text-stats.ts';
import type { Step, StepContext } from '../types.ts';

/** A paragraph shorter than this (visible characters) scores nothing. */
const MIN_PARAGRAPH_CHARS = 25;
/** How far up a paragraph's score reaches, and how it is divided on the way. */
const SCORE_DIVIDERS = [1, 2, 6, 9, 12];

/** Base scores of candidate containers by tag (Readability's). */
const TAG_SCORES = new Map<string, number>([
  ['div', 5],
  ['article', 10],
  ['main', 5],
  ['pre', 3],
  ['td', 3],
  ['blockquote', 3],
  ['address', -3],
  ['ol', -3],
  ['ul', -3],
  ['dl', -3],
  ['dd', -3],
  ['dt', -3],
  ['li', -3],
  ['form', -3],
  ['h1', -5],
  ['h2', -5],
  ['h3', -5],
  ['h4', -5],
  ['h5', -5],
  ['h6', -5],
  ['th', -5],
]);

/** Elements that are themselves a paragraph when they hold text. */
const LIST_ITEMS = new Set(['li', 'dd', 'dt']);

/**
 * Readability's candidate scoring in one pass: every paragraph (a block with at least 25 characters of
 * its own text, not mostly links) scores 1 + its commas + one per 100 characters (at most 3), and hands
 * that to its ancestors, less at each level. A container's score is then its paragraphs' plus its tag
 * and class weights, times the share of its text that is not link text. The best container, moved up
 * when its parent holds other good candidates too, and its siblings that score well, are the content.
 */
export const pickContent: Step = {
  name: 'pick-content',
  run(context) {
    const scores = scoreCandidates(context);
    const ranked = [...scores.entries()]
      .map(([element, score]) => ({ element, score: finalScore(element, score, context.stats) }))
      .sort((a, b) => b.score - a.score);
    const best = ranked[0];
    if (!best || best.score <= 0) {
      context.roots = [context.body];
      return;
    }
    const refined = refineTop(best.element, best.score, ranked.slice(1, 5), scores, context);
    const top = bestValueAncestor(refined, context);
    context.roots = top === refined ? withSiblings(top, scores, context) : [top];
  },
};

export function scoreCandidates(context: StepContext): Map<LightElement, number> {
  const scores = new Map<LightElement, number>();
  for (const [element, stats] of context.stats) {
    if (element === context.body) continue;
    if (stats.ownChars < MIN_PARAGRAPH_CHARS) continue;
    if (stats.ownLinkChars > stats.ownChars * 0.5) continue;
    const listItem = LIST_ITEMS.has(element.localName);
    const score =
      (1 + stats.ownCommas + Math.min(Math.floor(stats.ownChars / 100), 3)) * (listItem ? 0.5 : 1);
    let ancestor = element.parentNode;
    for (let level = 0; level < SCORE_DIVIDERS.length; level += 1) {
      if (!ancestor || ancestor.nodeType !== ELEMENT_NODE) break;
      const container = ancestor as LightElement;
      if (container === context.body || container.localName === 'html') break;
      scores.set(container, (scores.get(container) ?? 0) + score / SCORE_DIVIDERS[level]!);
      ancestor = container.parentNode;
    }
  }
  return scores;
}

export function finalScore(
  element: LightElement,
  score: number,
  stats: Map<LightElement, TextStats>,
): number {
  const measured = stats.get(element);
  const linkDensity = measured && measured.chars > 0 ? measured.linkChars / measured.chars : 0;
  return (score + (TAG_SCORES.get(element.localName) ?? 0) + classWeight(element)) * (1 - linkDensity);
}

export function classWeight(element: LightElement): number {
  const words = classNames(element).flat();
  let weight = 0;
  if (findWord(words, CONTENT)) weight += 25;
  if (findWord(words, BOILERPLATE) || findWord(words, COMMENTS)) weight -= 25;
  if (element.getAttribute('itemprop') === 'articleBody') weight += 25;
  return weight;
}

/** Readability's moves up from the best candidate: to a common ancestor of close runners-up, to a
 * parent that scores higher, and past parents with no other child. */
function refineTop(
  best: LightElement,
  bestScore: number,
  others: Array<{ element: LightElement; score: number }>,
  scores: Map<LightElement, number>,
  context: StepContext,
): LightElement {
  let top = best;
  const close = others.filter((other) => other.score >= bestScore * 0.75);
  if (close.length >= 3) {
    for (let parent = top.parentNode as LightElement | null; parent && parent !== context.body; ) {
      const containing = close.filter((other) => contains(parent!, other.element)).length;
      if (containing >= 3) {
        top = parent;
        break;
      }
      parent = parent.parentNode as LightElement | null;
    }
  }
  const scoreOf = (element: LightElement) =>
    scores.has(element) ? finalScore(element, scores.get(element)!, context.stats) : undefined;
  let lastScore = scoreOf(top) ?? bestScore;
  const threshold = lastScore / 3;
  for (let parent = top.parentNode as LightElement | null; parent && parent !== context.body; ) {
    const parentScore = scoreOf(parent);
    if (parentScore !== undefined) {
      if (parentScore < threshold) break;
      if (parentScore > lastScore) {
        top = parent;
        break;
      }
      lastScore = parentScore;
    }
    parent = parent.parentNode as LightElement | null;
  }
  while (top.parentNode && top.parentNode !== context.body && onlyChild(top)) {
    top = top.parentNode as LightElement;
  }
  return enclosingArticle(top, context) ?? top;
}

/** Levels above the top candidate searched for the article that holds it. */
const ARTICLE_SEARCH_LEVELS = 4;

/**
 * The element that marks up the whole article around the top candidate (`<article>`, a schema.org
 * Article, `class="article"`), when it adds little text: its lead paragraph and headline block stand
 * beside the body text, and belong to it.
 */
function enclosingArticle(top: LightElement, context: StepContext): LightElement | undefined {
  const topChars = context.stats.get(top)?.chars ?? 0;
  let ancestor = top.parentNode as LightElement | null;
  for (let level = 0; level < ARTICLE_SEARCH_LEVELS && ancestor && ancestor !== context.body; level += 1) {
    const stats = context.stats.get(ancestor);
    if (!stats || stats.chars > topChars * 1.5 + 500) return undefined;
    if (isArticle(ancestor)) return ancestor;
    ancestor = ancestor.parentNode as LightElement | null;
  }
  return undefined;
}

const ARTICLE_TYPES = /schema\.org\/(?:\w*Article|BlogPosting|Report|Review|Recipe|HowTo)\b/i;

function isArticle(element: LightElement): boolean {
  if (element.localName === 'article') return true;
  const type = element.getAttribute('itemtype');
  if (type && ARTICLE_TYPES.test(type)) return true;
  const words = classWords(element);
  return words[0] === 'article' || words[0] === 'post' || words[0] === 'entry' || words[0] === 'story';
}

function onlyChild(element: LightElement): boolean {
  return element.previousElementSibling === null && element.nextElementSibling === null;
}

function contains(ancestor: LightElement, element: LightElement): boolean {
  for (let node = element.parentNode; node; node = node.parentNode) if (node === ancestor) return true;
  return false;
}

/** The top candidate with the siblings that belong to it (Readability's sibling rules). */
function withSiblings(top: LightElement, scores: Map<LightElement, number>, context: StepContext) {
  const parent = top.parentNode as LightElement | null;
  if (!parent || top === context.body) return [top];
  const topScore = scores.has(top) ? finalScore(top, scores.get(top)!, context.stats) : 0;
  const threshold = Math.max(10, topScore * 0.2);
  const topClass = top.getAttribute('class') ?? '';
  const roots: LightElement[] = [];
  for (let sibling = parent.firstElementChild; sibling; sibling = sibling.nextElementSibling) {
    if (sibling === top) {
      roots.push(sibling);
      continue;
    }
    const bonus = topClass !== '' && sibling.getAttribute('class') === topClass ? topScore * 0.2 : 0;
    const score = scores.has(sibling) ? finalScore(sibling, scores.get(sibling)!, context.stats) : undefined;
    if (score !== undefined && score + bonus >= threshold) {
      roots.push(sibling);
      continue;
    }
    const stats = context.stats.get(sibling);
    // A paragraph: a <p>, or any element whose text is its own (Readability turns such <div>s into <p>s).
    if (!stats || (sibling.localName !== 'p' && stats.ownChars < stats.chars * 0.9)) continue;
    const linkDensity = stats.chars > 0 ? stats.linkChars / stats.chars : 0;
    const text = sibling.textContent;
    if (stats.chars > 80 && linkDensity < 0.25) roots.push(sibling);
    else if (stats.chars > 0 && stats.chars <= 80 && linkDensity === 0 && /\.( |$)/.test(text)) {
      roots.push(sibling);
    }
  }
  return roots;
}

/** Link text costs this many times its length in a container's prose value. */
const LINK_COST = 2;
/** An ancestor must add this much prose value to be preferred: a stray sentence is not worth the chrome. */
const CLIMB_MARGIN = 100;
/** To take the whole body, its prose value must exceed the chosen block's by this factor of that value. */
const BODY_CLIMB_FACTOR = 1;

/**
 * The prose value of every element: the non-link characters of its paragraphs (own text of 25 or more
 * characters, not mostly links), less `LINK_COST` per link character. Short texts (headings, labels,
 * list items) are neutral.
 */
export function proseValues(context: StepContext): Map<LightElement, number> {
  const values = new Map<LightElement, number>();
  const elements = [...context.stats.keys()];
  for (let index = elements.length - 1; index >= 0; index -= 1) {
    const element = elements[index]!;
    const stats = context.stats.get(element)!;
    let value = values.get(element) ?? 0;
    const chars = stats.ownChars;
    const links = stats.ownLinkChars;
    if (chars > 0) {
      if (links > chars * 0.5) value -= LINK_COST * links;
      else if (chars >= MIN_PARAGRAPH_CHARS) value += chars - links - LINK_COST * links;
      else value -= LINK_COST * links;
    }
    values.set(element, value);
    const parent = element.parentNode as LightElement | null;
    if (parent && element !== context.body) values.set(parent, (values.get(parent) ?? 0) + value);
  }
  return values;
}

/**
 * Of `top` and its ancestors up to `<body>`, the one with the most prose value, each step up having to
 * add at least `CLIMB_MARGIN`: the article's lead and its other text blocks join the body text, while
 * link lists and chrome around it cost more than they bring. `<body>` itself (furniture already gone)
 * must more than double the value (`BODY_CLIMB_FACTOR`).
 */
function bestValueAncestor(top: LightElement, context: StepContext): LightElement {
  const values = proseValues(context);
  let best = top;
  let bestValue = values.get(top) ?? 0;
  for (let node = top.parentNode as LightElement | null; node; ) {
    const value = values.get(node) ?? 0;
    // The whole page only when the chosen block holds a small part of its prose (text left outside
    // the page's wrappers by broken markup, an article split across top-level blocks).
    const margin =
      node === context.body ? Math.max(CLIMB_MARGIN, bestValue * BODY_CLIMB_FACTOR) : CLIMB_MARGIN;
    if (value > bestValue + margin) {
      best = node;
      bestValue = value;
    }
    if (node === context.body) break;
    node = node.parentNode as LightElement | null;
  }
  return best;
}
