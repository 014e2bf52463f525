import type { LightDocument, LightElement } from '../../html/light-dom.ts';
import type { Extractor } from '../types.ts';
import {
  descendants,
  enough,
  findAll,
  findFirst,
  hasClass,
  pageSignals,
  SiteRemovals,
  selection,
  squash,
} from './site-dom.ts';

/**
 * A forum engine's thread page, read from its markup: which element is a post, and in it the author's
 * name, the post's date as shown, and the body.
 */
interface ForumEngine {
  id: string;
  /** Whether the page is the engine's, by attributes of `<html>`, `<body>` and the head. */
  detect(document: LightDocument): boolean;
  /** The posts, outermost, in order. */
  posts(body: LightElement): LightElement[];
  author(post: LightElement): string | undefined;
  /** The post's date as shown, or what the engine shows in its place beside the name (a score). */
  detail(post: LightElement): string | undefined;
  content(post: LightElement): LightElement | undefined;
  /** Controls and fold-out labels inside a post body that are not its text. */
  drop?(element: LightElement): string | undefined;
  /** The thread's title. */
  title(body: LightElement): LightElement | undefined;
}

const byTag = (name: string) => (element: LightElement) => element.localName === name;
const named = (name: string, tag?: string) => (element: LightElement) =>
  (tag === undefined || element.localName === tag) && hasClass(element, name);
const text = (element: LightElement | undefined): string | undefined => {
  const value = element && squash(element.textContent);
  return value && value.length <= 100 ? value : undefined;
};

/** XenForo 2 (`<html id="XF">`): `article.message--post` posts (`data-author` on most), bodies in `.bbWrapper`. */
const xenForo: ForumEngine = {
  id: 'xenforo',
  detect: (document) => document.documentElement.getAttribute('id') === 'XF',
  posts: (body) =>
    findAll(
      body,
      (element) =>
        hasClass(element, 'message--post') ||
        (hasClass(element, 'message') && element.hasAttribute('data-author')),
    ),
  author: (post) => post.getAttribute('data-author')?.trim() || text(findFirst(post, named('message-name'))),
  detail(post) {
    const attribution = findFirst(post, named('message-attribution-main')) ?? post;
    return text(findFirst(attribution, (element) => element.localName === 'time'));
  },
  content(post) {
    const message = findFirst(post, named('message-body')) ?? findFirst(post, named('message-content'));
    return message && findFirst(message, named('bbWrapper'));
  },
  drop: (element) => (hasClass(element, 'bbCodeBlock-expandLink') ? 'quote fold-out link' : undefined),
  title: (body) => findFirst(body, named('p-title-value')),
};

/** Invision Community (`<body class="ipsApp">`), versions 4 (`article.ipsComment`) and 5 (`article.ipsEntry`). */
const invision: ForumEngine = {
  id: 'invision',
  detect: (document) => pageSignals(document).rootClasses.has('ipsApp'),
  posts: (body) =>
    findAll(
      body,
      (element) =>
        element.localName === 'article' && (hasClass(element, 'ipsComment') || hasClass(element, 'ipsEntry')),
    ),
  author(post) {
    const pane = findFirst(post, named('cAuthorPane_author')) ?? findFirst(post, named('ipsEntry__username'));
    return pane && text(findFirst(pane, byTag('a')) ?? pane);
  },
  detail(post) {
    const time = findFirst(post, byTag('time'));
    if (!time) return undefined;
    const long = findFirst(time, named('ipsTime__long'));
    if (long) return text(long);
    // Invision 4 writes "Posted <time>…</time>" in the time's parent.
    const parent = time.parentNode as LightElement | null;
    return text(parent !== null && squash(parent.textContent).length <= 60 ? parent : time);
  },
  content: (post) => findFirst(post, (element) => element.getAttribute('data-role') === 'commentContent'),
  title: (body) =>
    findFirst(body, (element) => element.localName === 'h1' && element.textContent.trim() !== ''),
};

/** Discourse (generator "Discourse"): the crawler view's `.crawler-post`s, bodies in `[itemprop=text]`. */
const discourse: ForumEngine = {
  id: 'discourse',
  detect: (document) => /(?:^|\|)discourse\b/.test(pageSignals(document).generator),
  posts: (body) => findAll(body, named('crawler-post')),
  author: (post) => text(findFirst(post, named('creator'))),
  detail: (post) => text(findFirst(post, named('post-time'))),
  content: (post) => findFirst(post, (element) => element.getAttribute('itemprop') === 'text'),
  title(body) {
    const header = findFirst(body, (element) => element.getAttribute('id') === 'topic-title') ?? body;
    return findFirst(header, byTag('h1'));
  },
};

/** phpBB (`<body id="phpbb">`): `div.post` with `p.author` and `div.content`. */
const phpBB: ForumEngine = {
  id: 'phpbb',
  detect: (document) => document.body.getAttribute('id') === 'phpbb',
  posts: (body) =>
    findAll(body, (element) => hasClass(element, 'post') && /^p\d+$/.test(element.getAttribute('id') ?? '')),
  author(post) {
    return text(
      findFirst(post, (element) => hasClass(element, 'username') || hasClass(element, 'username-coloured')),
    );
  },
  detail(post) {
    const line = findFirst(post, named('author', 'p'));
    if (!line) return undefined;
    const time = findFirst(line, byTag('time'));
    if (time) return text(time);
    // "by <a>name</a> » Sun Dec 17, 2023 11:23 am"
    const value = squash(line.textContent);
    const date = value.slice(value.lastIndexOf('»') + 1).trim();
    return date && date.length <= 60 ? date : undefined;
  },
  content: (post) => findFirst(post, named('content', 'div')),
  drop(element) {
    // A code box's "Code: Select all" header.
    const parent = element.parentNode as LightElement | null;
    return element.localName === 'p' && parent && hasClass(parent, 'codebox') ? 'code box header' : undefined;
  },
  title: (body) =>
    findFirst(body, (element) => element.localName === 'h2' && hasClass(element, 'topic-title')) ??
    findFirst(body, byTag('h1')),
};

/** The entry of a Reddit "thing" (post or comment): its own part, apart from the replies below it. */
const redditEntry = (thing: LightElement) => {
  for (let child = thing.firstElementChild; child; child = child.nextElementSibling) {
    if (hasClass(child, 'entry')) return child;
  }
  return undefined;
};

/**
 * Old Reddit (`<body class="comments-page">`): the submission and every comment, replies included, in page
 * order: author, score, text (`.usertext-body`).
 */
const oldReddit: ForumEngine = {
  id: 'old-reddit',
  detect: (document) => pageSignals(document).rootClasses.has('comments-page'),
  posts: (body) =>
    [...descendants(body)].filter(
      (element) => hasClass(element, 'thing') && (hasClass(element, 'comment') || hasClass(element, 'link')),
    ),
  author(post) {
    const entry = redditEntry(post);
    return text(entry && findFirst(entry, named('author', 'a')));
  },
  detail(post) {
    const entry = redditEntry(post);
    const tagline = entry && findFirst(entry, named('tagline'));
    return text(
      tagline && findFirst(tagline, (element) => hasClass(element, 'score') && hasClass(element, 'unvoted')),
    );
  },
  content(post) {
    const entry = redditEntry(post);
    return entry && findFirst(entry, named('usertext-body'));
  },
  title: (body) => findFirst(body, (element) => element.localName === 'a' && hasClass(element, 'title')),
};

/**
 * vBulletin 4 (`<html id="vbulletin_html">`): `li.postcontainer` posts, `a.username`, `span.date`,
 * bodies in `blockquote.postcontent`. vBulletin 3 (generator "vBulletin 3…"): `table#post…` posts,
 * `a.bigusername`, the date in the header row's first cell, bodies in `div#post_message_…`.
 */
const vBulletin: ForumEngine = {
  id: 'vbulletin',
  detect: (document) =>
    document.documentElement.getAttribute('id') === 'vbulletin_html' ||
    /(?:^|\|)vbulletin\b/.test(pageSignals(document).generator),
  posts: (body) =>
    findAll(
      body,
      (element) =>
        (element.localName === 'li' && hasClass(element, 'postcontainer')) ||
        (element.localName === 'table' && /^post\d+$/.test(element.getAttribute('id') ?? '')),
    ),
  author: (post) =>
    text(
      findFirst(
        post,
        (element) =>
          element.localName === 'a' && (hasClass(element, 'username') || hasClass(element, 'bigusername')),
      ),
    ),
  detail(post) {
    const date = findFirst(post, named('date', 'span'));
    if (date) return text(date);
    return text(findFirst(post, named('thead', 'td')));
  },
  content: (post) =>
    findFirst(post, named('postcontent', 'blockquote')) ??
    findFirst(post, (element) => (element.getAttribute('id') ?? '').startsWith('post_message_')),
  title: (body) => findFirst(body, byTag('h1')),
};

/** A post body marked up as a quote (vBulletin 4's `blockquote.postcontent`), as plain blocks. */
function unquoted(document: LightDocument, quote: LightElement): LightElement {
  const block = document.createElement('div');
  while (quote.firstChild) block.appendChild(quote.firstChild);
  return block;
}

const ENGINES: readonly ForumEngine[] = [xenForo, invision, discourse, phpBB, oldReddit, vBulletin];

/**
 * Forum threads of the common engines (XenForo 2, Invision Community, Discourse, phpBB, vBulletin 3 and
 * 4, old Reddit), detected by
 * their markup, never by host: each post's author and date as shown, then its body, in thread order.
 * Out: avatars, user titles and stats, signatures, reactions, reply buttons, everything around the posts.
 * A forum that the generic extractor reads well is read the same way here, with the names and dates that
 * say who answered whom; a thread whose posts sit in a block named `comments` (Invision) is no longer
 * dropped as a comment section.
 */
export const forumExtractor: Extractor = {
  id: 'forum',
  extract({ document }) {
    const engine = ENGINES.find((candidate) => candidate.detect(document));
    if (!engine) return undefined;
    const body = document.body;
    const posts = engine
      .posts(body)
      .map((post) => ({ post, content: engine.content(post) }))
      .filter((entry): entry is { post: LightElement; content: LightElement } => entry.content !== undefined);
    if (!enough(posts.map((entry) => entry.content))) return undefined;
    const roots: LightElement[] = [];
    for (const { post, content } of posts) {
      for (const line of [engine.author(post), engine.detail(post)]) {
        if (!line) continue;
        const paragraph = document.createElement('p');
        paragraph.textContent = line;
        roots.push(paragraph);
      }
      roots.push(content.localName === 'blockquote' ? unquoted(document, content) : content);
    }
    const removals = new SiteRemovals(`forum-${engine.id}`);
    const contents = posts.map((entry) => entry.content);
    removals.drop(contents, (element) =>
      element.localName === 'button' ? '<button>' : engine.drop?.(element),
    );
    const title = engine.title(body);
    return selection(`forum-${engine.id}`, roots, removals, title ? squash(title.textContent) : undefined);
  },
};
