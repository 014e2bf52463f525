import type { CallContext } from '../call-context.ts';
import type { ContentLimits, ExtractMode, RenderedContent } from '../content/types.ts';

export interface PageRequest {
  /** Already normalised; the URL policy is enforced by the guarded client on every hop. */
  url: URL;
  mode: ExtractMode;
  /** Caps for PDFs and images. */
  limits?: Partial<ContentLimits> | undefined;
}

export interface FetchedPage {
  /** The URL asked for. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  content: RenderedContent;
}

/** One way of turning a URL into readable content: local HTTP, a reader service, a browser. */
export interface FetchBackend {
  readonly id: string;
  fetchPage(request: PageRequest, context: CallContext): Promise<FetchedPage>;
}
