import type { LightElement } from '../html/light-dom.ts';

/**
 * An element's `class` names and `id`, each split into lower-case words at `-`, `_`, `:`, digits and
 * camelCase humps (`articleBody entry-content` → [article, body], [entry, content]). Words, not
 * substrings: `commentary` is not `comment`, `header` is not `head`.
 */
export function classNames(element: LightElement): string[][] {
  const classes = element.getAttribute('class');
  const id = element.getAttribute('id');
  if (!classes && !id) return NO_NAMES;
  const names: string[][] = [];
  for (const name of `${classes ?? ''} ${id ?? ''}`.split(/\s+/)) {
    const words = splitWords(name);
    if (words.length > 0) names.push(words);
  }
  return names;
}

/** All words of the element's class names and id. */
export function classWords(element: LightElement): string[] {
  return classNames(element).flat();
}

const NO_NAMES: string[][] = [];

export function splitWords(name: string): string[] {
  const words: string[] = [];
  for (const part of name.split(/[-_:./]+/)) {
    if (GENERATED.test(part) || isObfuscated(part)) continue;
    for (const match of part.replace(/([a-z])([A-Z])/g, '$1 $2').matchAll(/[A-Za-z]+/g)) {
      words.push(match[0].toLowerCase());
    }
  }
  return words;
}

/**
 * A generated part of a name: letters and digits taking turns three times or more (`64ab9c672ad0`, a
 * build hash `Zl4adYBa7xmoz`, `css-17ai7jg`), or hex digits with a digit among them (a UUID's `ad6d`). Its
 * letters are no words: `ad` in a hash is no advertisement. `sidebar2`, `h1` and `ad2` are names.
 */
const GENERATED = /[A-Za-z][0-9]+[A-Za-z]+[0-9]|[0-9][A-Za-z]+[0-9]+[A-Za-z]|^(?=[a-f]*[0-9])[0-9a-f]{4,}$/i;

/**
 * A minified class name of 5–8 characters with both cases and a digit between letters (Google's Closure
 * Stylesheets: `jXK9ad`, `R6PoUb`, `D2fZ2`): its letters are no words, `jXK9ad` is no advertisement. Names
 * people write keep one case around their digits (`sidebar2`, `col2left`) or have none (`NavBar`).
 */
function isObfuscated(part: string): boolean {
  return (
    part.length >= 5 &&
    part.length <= 8 &&
    /[a-z]/.test(part) &&
    /[A-Z]/.test(part) &&
    /[A-Za-z][0-9]+[A-Za-z]/.test(part)
  );
}

/**
 * A word of `set`, or a compound that starts or ends with one of its longer words (`relatedposts`,
 * `newsletterbox`, `socialshare`), or `undefined`.
 */
export function findWord(words: readonly string[], set: WordSet): string | undefined {
  for (const word of words) {
    if (set.words.has(word)) return word;
    if (word.length < 7) continue;
    for (const stem of set.stems) {
      if ((word.startsWith(stem) || word.endsWith(stem)) && !set.exceptions.has(word)) return word;
    }
  }
  return undefined;
}

export interface WordSet {
  words: ReadonlySet<string>;
  /** Words also recognised at the start or end of a compound. */
  stems: readonly string[];
  /** Compounds that only look like one (`commentary`, `shareholder`). */
  exceptions: ReadonlySet<string>;
}

export function wordSet(words: string[], stems: string[] = [], exceptions: string[] = []): WordSet {
  return { words: new Set([...words, ...stems]), stems, exceptions: new Set(exceptions) };
}

/** Words that name page furniture: navigation, sharing, ads, promotions, teasers of other pages. */
export const BOILERPLATE = wordSet(
  [
    'ad',
    'ads',
    'adsense',
    'adslot',
    'advert',
    'advertisement',
    'advertising',
    'addthis',
    'addtoany',
    'banner',
    'breadcrumb',
    'breadcrumbs',
    'crumb',
    'crumbs',
    'consent',
    'cta',
    'dialog',
    'donate',
    'donation',
    'cookie',
    'cookies',
    'disclaimer',
    'disclosure',
    'footer',
    'gdpr',
    'masthead',
    'menu',
    'login',
    'menubar',
    'modal',
    'nav',
    'navbar',
    'navi',
    'navigation',
    'newsletter',
    'outbrain',
    'overlay',
    'pagination',
    'pager',
    'paywall',
    'placeholder',
    'plista',
    'popup',
    'privacy',
    'promo',
    'reading',
    'recommendation',
    'recommendations',
    'recommended',
    'related',
    'share',
    'shariff',
    'sharing',
    'sidebar',
    'skyscraper',
    'social',
    'sociable',
    'sponsor',
    'sponsored',
    'subnav',
    'subscribe',
    'subscription',
    'taboola',
    'toc',
    'toolbar',
    'widgets',
  ],
  [
    'advert',
    'breadcrumb',
    'cookie',
    'disclaimer',
    'newsletter',
    'outbrain',
    'overlay',
    'paywall',
    'related',
    'share',
    'sharing',
    'sidebar',
    'social',
    'sponsor',
    'subscribe',
    'taboola',
  ],
  ['shareholder', 'shareholders', 'sharepoint'],
);

/**
 * Furniture words that never name a page's wrapper, however much text they hold: a login dialog or a
 * cookie banner can outweigh a short article, but never contains it. Not `newsletter`: a newsletter's own
 * issue is an article (`<section class="cc-newsletter">` around the whole text); a sign-up box is furniture
 * still, unless it holds much of the page's prose and the best block of text, as any wrapper.
 */
export const NEVER_WRAPPER = new Set(['consent', 'cookie', 'cookies', 'gdpr', 'login', 'popup']);

/** Words that name comment sections. */
export const COMMENTS = wordSet(
  ['comments', 'disqus', 'forum', 'respond', 'replies'],
  ['comment'],
  ['commentary', 'commentaries', 'commentator', 'commentators'],
);

/** Words that name the article itself or its body. */
export const CONTENT = wordSet(
  ['blog', 'body', 'entry', 'main', 'post', 'prose', 'story', 'text'],
  ['article', 'content', 'richtext'],
);

/** Content words strong enough to keep an element that also has a furniture name. */
const CONTENT_NAME = wordSet(['entry', 'post', 'story', 'prose'], ['article', 'content', 'richtext']);

/**
 * The furniture word of an element's names, unless another of its names is a content name
 * (`entry-content social-ready` stays; `social_content_footer` and `content-sidebar` do not).
 */
export function furnitureWord(names: readonly string[][], set: WordSet): string | undefined {
  let found: string | undefined;
  for (const words of names) {
    const word = findWord(words, set);
    if (word) found ??= word;
    else if (findWord(words, CONTENT_NAME)) return undefined;
  }
  return found;
}
