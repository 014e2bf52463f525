import type { LightElement } from '../../html/light-dom.ts';
import type { Extractor } from '../types.ts';
import {
  enough,
  findFirst,
  hasClass,
  hostOf,
  type PageSignals,
  pageSignals,
  SiteRemovals,
  selection,
} from './site-dom.ts';

type Family = 'docusaurus' | 'mkdocs' | 'sphinx' | 'mdn';

/** Page furniture that documentation themes put inside the article, by class. */
const FURNITURE_CLASSES: readonly [string, string][] = [
  // Heading permalinks: "¶", "#", "​".
  ['headerlink', 'heading permalink'],
  ['hash-link', 'heading permalink'],
  // "Edit this page", "View source", last-updated lines.
  ['theme-edit-this-page', 'edit link'],
  ['theme-doc-footer', 'page footer'],
  ['theme-last-updated', 'last updated'],
  ['edit-this-page', 'edit link'],
  ['md-content__button', 'edit link'],
  ['md-source-file', 'last updated'],
  ['md-feedback', 'feedback form'],
  ['article-footer', 'page footer'],
  // Previous/next pagers and breadcrumbs.
  ['pagination-nav', 'pager'],
  ['theme-doc-breadcrumbs', 'breadcrumbs'],
  ['theme-doc-toc-mobile', 'table of contents'],
  ['rst-footer-buttons', 'pager'],
  ['prev-next-area', 'pager'],
  ['prev-next', 'pager'],
  ['related', 'pager'],
];

/** Never text to read inside an article. */
const FURNITURE_TAGS = new Set(['nav', 'button', 'form', 'dialog', 'footer']);

/**
 * Pages of documentation generators: Docusaurus (`.theme-doc-markdown`, else `article .markdown`), MkDocs
 * (Material's `article.md-content__inner`, else `[role=main]`), Sphinx and Read the Docs (the
 * `articleBody` inside `[role=main]`, else `[role=main]`, else `.document .body`) and MDN
 * (`.main-page-content`, else `main#content article`). Out: heading permalinks (`a.headerlink`,
 * `.hash-link`), "Edit this page" and last-updated lines, previous/next pagers, breadcrumbs, MDN's
 * "last modified" metadata box and feedback footer, and any `<nav>`, `<button>`, `<form>` or `<footer>`
 * inside the article.
 *
 * Detection: `<meta name="generator">` (Docusaurus, MkDocs, Docutils/Sphinx), Sphinx's head links
 * (`genindex.html`, `_static/pygments.css`, `<html data-content_root>`), or the host
 * `developer.mozilla.org`.
 */
export const docsExtractor: Extractor = {
  id: 'docs',
  extract({ document, url }) {
    const family = detect(pageSignals(document), hostOf(url));
    if (!family) return undefined;
    const content = CONTAINERS[family](document.body);
    if (!content || !enough([content])) return undefined;
    const removals = new SiteRemovals(family);
    removals.drop([content], furniture);
    return selection(family, [content], removals);
  },
};

function detect(signals: PageSignals, host: string): Family | undefined {
  const generator = signals.generator;
  if (generator.includes('docusaurus')) return 'docusaurus';
  if (generator.includes('mkdocs')) return 'mkdocs';
  if (generator.includes('docutils') || generator.includes('sphinx') || signals.sphinxHead) return 'sphinx';
  if (host === 'developer.mozilla.org') return 'mdn';
  return undefined;
}

const byClass = (name: string) => (element: LightElement) => hasClass(element, name);
const byRole = (role: string) => (element: LightElement) => element.getAttribute('role') === role;

const CONTAINERS: Record<Family, (body: LightElement) => LightElement | undefined> = {
  docusaurus(body) {
    const markdown = findFirst(body, byClass('theme-doc-markdown'));
    if (markdown) return markdown;
    const article = findFirst(body, (element) => element.localName === 'article');
    return article && findFirst(article, byClass('markdown'));
  },
  mkdocs(body) {
    return findFirst(body, byClass('md-content__inner')) ?? findFirst(body, byRole('main'));
  },
  sphinx(body) {
    const main = findFirst(body, byRole('main'));
    if (main) {
      return (
        findFirst(main, (element) => element.getAttribute('itemprop') === 'articleBody') ??
        findFirst(main, (element) => element.localName === 'article' && hasClass(element, 'bd-article')) ??
        main
      );
    }
    const document = findFirst(body, byClass('document'));
    return (
      document && findFirst(document, (element) => element.localName === 'div' && hasClass(element, 'body'))
    );
  },
  mdn(body) {
    const content = findFirst(body, byClass('main-page-content'));
    if (content) return content;
    const main = findFirst(
      body,
      (element) => element.localName === 'main' && element.getAttribute('id') === 'content',
    );
    return main && findFirst(main, (element) => element.localName === 'article');
  },
};

function furniture(element: LightElement): string | undefined {
  if (FURNITURE_TAGS.has(element.localName)) return `<${element.localName}>`;
  if (element.getAttribute('role') === 'navigation') return 'role=navigation';
  if (!element.getAttribute('class')) return undefined;
  for (const [name, reason] of FURNITURE_CLASSES) if (hasClass(element, name)) return reason;
  if (element.localName === 'aside' && hasClass(element, 'metadata')) return 'page metadata';
  return undefined;
}
