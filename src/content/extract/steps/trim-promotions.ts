import { ELEMENT_NODE } from '../../html/dom.ts';
import type { LightElement } from '../../html/light-dom.ts';
import { INLINE_ELEMENTS, visibleChars } from '../text-stats.ts';
import type { Step, StepContext } from '../types.ts';

/** Longest block read as a call to action; longer ones are part of the article. */
const MAX_PROMOTION_CHARS = 250;
/** How many blocks from the end are looked at. */
const MAX_TRAILING_BLOCKS = 8;

/**
 * What a site appends to its articles to sell something: subscriptions and paywall notices, its apps,
 * newsletters, messenger channels, donations. Matched on the block's own words, in the languages of
 * the pages we read most.
 */
const CALL_TO_ACTION = new RegExp(
  [
    '\\bsubscri(?:be|bed|ber|bers|bing|ption)\\b',
    '\\babonn(?:ier|ement|ez|iert)',
    '\\bsuscr[ií](?:b|pci)',
    '\\bnewsletter\\b',
    '\\bdownload\\b[^.]{0,60}\\bapps?\\b',
    '\\b(?:telegram|whatsapp)\\b[^.]{0,60}\\b(?:canal|channel|kanal|grupo|group|gruppe)\\b',
    '\\b(?:canal|channel|kanal|grupo|group|gruppe)\\b[^.]{0,40}\\b(?:telegram|whatsapp)\\b',
    '\\b(?:follow us|folgen sie uns|folge uns|síguenos|suivez-nous)\\b',
    '\\b(?:support (?:us|our work|our journalism)|unterstütze[n]? (?:uns|unsere arbeit)|unsere arbeit unterstützen)\\b',
  ].join('|'),
  'i',
);

/**
 * The calls to action at the end of the content: short blocks after the article's last paragraph that
 * ask the reader to subscribe, download an app, join a channel or donate. Only trailing ones: the same
 * words inside the article are the article's.
 */
export const trimPromotions: Step = {
  name: 'trim-promotions',
  run(context) {
    const blocks = textBlocks(context);
    let removed = false;
    for (
      let index = blocks.length - 1;
      index >= Math.max(0, blocks.length - MAX_TRAILING_BLOCKS);
      index -= 1
    ) {
      const block = blocks[index]!;
      const text = block.textContent;
      if (visibleChars(text) > MAX_PROMOTION_CHARS || !CALL_TO_ACTION.test(text)) break;
      context.remove(block, 'trim-promotions', 'call to action after the article');
      removed = true;
    }
    if (removed) context.measure();
  },
};

/** The blocks with text of their own (paragraphs, list items, headings), each before its inner blocks. */
function textBlocks(context: StepContext): LightElement[] {
  const blocks: LightElement[] = [];
  const visit = (element: LightElement): void => {
    for (let child = element.firstChild; child; child = child.nextSibling) {
      if (child.nodeType !== ELEMENT_NODE) continue;
      const candidate = child as LightElement;
      if (INLINE_ELEMENTS.has(candidate.localName)) continue;
      const stats = context.stats.get(candidate);
      if (!stats || stats.chars === 0) continue;
      if (stats.ownChars > 0) blocks.push(candidate);
      visit(candidate);
    }
  };
  for (const root of context.roots) {
    if ((context.stats.get(root)?.ownChars ?? 0) > 0) blocks.push(root);
    visit(root);
  }
  return blocks;
}
