import type { LightDocument, LightElement } from '../html/light-dom.ts';
import type { PageMetadata } from '../html/read-metadata.ts';
import type { TextStats } from './text-stats.ts';

/** One thing an extraction step took out (or chose), for `--explain` and for tests. */
export interface Removal {
  step: string;
  /** `tag#id.class` of the element. */
  selector: string;
  reason: string;
  /** The first words of its text. */
  text: string;
}

/** What a site-specific or the generic extractor works on: the parsed, cleaned page. */
export interface ExtractionInput {
  document: LightDocument;
  /** The page's URL (its base for links), when known. */
  url: URL | undefined;
  metadata: PageMetadata;
}

/** The main content: elements in document order, written out one after the other. */
export interface ContentSelection {
  extractor: string;
  roots: LightElement[];
  /** A heading to write before the roots (the article's title, when it sits outside them). */
  title?: string | undefined;
  removals: Removal[];
  /** Visible characters of the page once its furniture is out (the generic extractor's), for the give-way check. */
  pageChars?: number | undefined;
}

/**
 * A spec the size of vercel/ai's: an id and one method. `undefined` means "not mine": the next one in
 * the list is tried, and the generic extractor comes last.
 */
export interface Extractor {
  readonly id: string;
  extract(input: ExtractionInput, options: ExtractionOptions): ContentSelection | undefined;
}

export interface ExtractionOptions {
  /**
   * Steps of the generic extractor to leave out, by name, and site extractors, by id (`mediawiki`,
   * `stack-exchange`, `forum`, `github`, `docs`), for debugging and tests.
   */
  skipSteps?: ReadonlySet<string> | undefined;
}

/** The state the generic extractor's steps share. */
export interface StepContext {
  readonly input: ExtractionInput;
  readonly body: LightElement;
  /** Text measures of the body, as of the last `measure()`. */
  stats: Map<LightElement, TextStats>;
  roots: LightElement[];
  /** The page's `<h1>`s as parsed, before any step took anything out. */
  readonly headlines: LightElement[];
  title?: string | undefined;
  readonly removals: Removal[];
  /** Re-measure after the tree changed. */
  measure(): void;
  /** Take an element out of the tree and record why. */
  remove(element: LightElement, step: string, reason: string): void;
}

export interface Step {
  readonly name: string;
  run(context: StepContext): void;
}
