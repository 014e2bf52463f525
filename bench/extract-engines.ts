// The engines the extraction bench compares, each as one function from a page to its text and metadata:
// Periscope's pipeline (what `periscope extract` runs), Mozilla Readability over linkedom and over jsdom,
// and defuddle (a devDependency, for the bench only). Shared by bench/extract.bench.ts and
// bench/extract-page.ts.
import type { MetadataField } from './extract-corpus.ts';
import { htmlText } from './extract-text.ts';

export const ENGINES = ['periscope', 'readability+linkedom', 'readability+jsdom', 'defuddle'] as const;
export type Engine = (typeof ENGINES)[number];

/** What one engine gives back for a page: its text, and the metadata it found. */
export interface Extraction {
  /** Plain text; for an engine that gives HTML, its text is taken after the clock stops (`textOf`). */
  text?: string;
  html?: string;
  metadata: Partial<Record<MetadataField, string | undefined>>;
}
export type Extract = (page: { html: string; body: Uint8Array; url: string }) => Promise<Extraction>;

/** The engine's extraction function, or why it cannot run. */
export async function extractorFor(engine: Engine): Promise<Extract | string> {
  if (engine === 'periscope') {
    const { renderContent } = await import('../src/content/render-content.ts');
    return async ({ body, url }) => {
      const result = await renderContent({
        url,
        headers: { 'content-type': 'text/html' },
        body,
        mode: 'text',
      });
      return {
        text: result.text,
        metadata: {
          title: result.title,
          byline: result.byline,
          lang: result.language,
          siteName: result.siteName,
          publishedTime: result.publishedAt,
        },
      };
    };
  }
  if (engine === 'defuddle') {
    let defuddle: typeof import('defuddle/node');
    try {
      defuddle = await import('defuddle/node');
    } catch {
      return 'defuddle is not installed (npm install --no-save defuddle)';
    }
    const { parseHTML } = await import('linkedom');
    // Its own page-parsing complaints (invalid JSON-LD and the like) are not the bench's output.
    console.error = () => {};
    console.warn = () => {};
    return async ({ html, url }) => {
      // The synchronous parse: `parseAsync` may fetch from the network (Reddit, YouTube extractors).
      const result = new defuddle.DefuddleClass(parseHTML(html).document as never, { url }).parse();
      return {
        html: result.content ?? '',
        metadata: {
          title: result.title,
          byline: result.author,
          lang: result.language,
          siteName: result.site,
          publishedTime: result.published,
        },
      };
    };
  }
  const { Readability } = await import('@mozilla/readability');
  const fromReadability = (document: unknown): Extraction => {
    const article = new Readability(document as Document).parse();
    return {
      // Its HTML, not its `textContent`: that glues the text of one block to the next ("HeadingFirst
      // sentence"), which would cost Readability words it found.
      html: article?.content ?? '',
      metadata: {
        title: article?.title ?? undefined,
        byline: article?.byline ?? undefined,
        lang: article?.lang ?? undefined,
        siteName: article?.siteName ?? undefined,
        publishedTime: article?.publishedTime ?? undefined,
      },
    };
  };
  if (engine === 'readability+jsdom') {
    const { JSDOM, VirtualConsole } = await import('jsdom');
    const virtualConsole = new VirtualConsole(); // drops jsdom's "Could not parse CSS stylesheet" noise
    return async ({ html, url }) => fromReadability(new JSDOM(html, { url, virtualConsole }).window.document);
  }
  const { parseHTML } = await import('linkedom');
  return async ({ html }) => fromReadability(parseHTML(html).document);
}

/** An engine's output as plain text: HTML output gets a paragraph break between blocks (`htmlText`). */
export function textOf(output: Extraction | null | undefined): string {
  if (!output) return '';
  return output.html === undefined ? (output.text ?? '') : htmlText(output.html);
}
