import type { LightElement } from '../../html/light-dom.ts';
import type { Extractor } from '../types.ts';
import { enough, findAll, findFirst, hasClass, hostOf, SiteRemovals, selection, squash } from './site-dom.ts';

const ISSUE_PATH = /^\/[^/]+\/[^/]+\/(issues|pull|discussions)\/\d+/;

/**
 * GitHub, two kinds of page only: a repository's README (or any rendered Markdown file,
 * `article.markdown-body`), and an issue, pull request or discussion, whose comment bodies
 * (`.comment-body`) are written one after the other under the title, each headed by its author. Out: the
 * file list, sidebar, reactions, timeline events and every button; inside the bodies, heading anchors and
 * copy buttons.
 *
 * Detection: the host `github.com`, or `og:site_name` "GitHub" (GitHub Enterprise, saved pages).
 */
export const gitHubExtractor: Extractor = {
  id: 'github',
  extract({ document, url, metadata }) {
    if (hostOf(url) !== 'github.com' && metadata.siteName !== 'GitHub') return undefined;
    const body = document.body;
    const issue = url !== undefined && ISSUE_PATH.test(url.pathname);
    const comments = issue ? findAll(body, (element) => hasClass(element, 'comment-body')) : [];
    if (comments.length > 0) {
      if (!enough(comments)) return undefined;
      const titleElement =
        findFirst(body, (element) => hasClass(element, 'js-issue-title')) ??
        findFirst(body, (element) => hasClass(element, 'gh-header-title'));
      const roots: LightElement[] = [];
      for (const comment of comments) {
        const author = commentAuthor(comment);
        if (author) {
          const heading = document.createElement('h3');
          heading.textContent = `${author} commented`;
          roots.push(heading);
        }
        roots.push(comment);
      }
      return select(roots, titleElement ? squash(titleElement.textContent) : undefined);
    }
    const readme = findFirst(
      body,
      (element) => element.localName === 'article' && hasClass(element, 'markdown-body'),
    );
    if (!readme || !enough([readme])) return undefined;
    return select([readme], undefined);
  },
};

function select(roots: LightElement[], title: string | undefined) {
  const removals = new SiteRemovals('github');
  removals.drop(roots, (element) => {
    if (element.localName === 'a' && hasClass(element, 'anchor')) return 'heading anchor';
    if (element.localName === 'button' || element.localName === 'clipboard-copy') return 'copy button';
    return undefined;
  });
  return selection('github', roots, removals, title);
}

/** The `a.author` of the timeline comment around a comment body. */
function commentAuthor(comment: LightElement): string | undefined {
  for (
    let node = comment.parentNode as LightElement | null;
    node;
    node = node.parentNode as LightElement | null
  ) {
    if (hasClass(node, 'timeline-comment') || hasClass(node, 'js-comment')) {
      const author = findFirst(node, (element) => element.localName === 'a' && hasClass(element, 'author'));
      const text = author && squash(author.textContent);
      return text || undefined;
    }
    if (node.localName === 'body') break;
  }
  return undefined;
}
