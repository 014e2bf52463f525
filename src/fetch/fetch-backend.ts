import type { CallContext } from '../call-context.ts';
import type { ContentLimits, ExtractMode, RenderedContent } from '../content/types.ts';
import type { EgressRequestCheck } from '../egress/egress-gate.ts';
import type { FetchAttempt } from '../errors.ts';

export interface PageRequest {
  /** Already normalised and checked by the URL policy; the guarded client checks it again on every hop. */
  url: URL;
  mode: ExtractMode;
  /** Caps for PDFs and images. */
  limits?: Partial<ContentLimits> | undefined;
  /** The calling tool call's id, when the surface knows it (the `service` back-end forwards it). */
  toolCallId?: string | undefined;
  /**
   * The call's egress check (src/egress/egress-gate.ts): the chain runs it on every request the call sends (each
   * hop of the origin back-ends, each browser navigation and sub-request, the URL handed to a reader, the final
   * URL a reader reports). None: no egress rules apply (a library chain used on its own).
   */
  egress?: EgressRequestCheck | undefined;
}

export interface FetchedPage {
  /** The URL asked for. */
  url: string;
  /** The URL after redirects. */
  finalUrl: string;
  status: number;
  content: RenderedContent;
  /** What the back-end left out or refused on the way (blocked sub-requests, a refused download…). */
  warnings?: string[] | undefined;
  /** Set by the chain: the back-end that returned it, and every rung's part. */
  backend?: string | undefined;
  attempts?: FetchAttempt[] | undefined;
  /** ISO 8601: when web_fetch read it from the origin; kept with the cached document (citations name it). */
  retrievedAt?: string | undefined;
}

/** One way of turning a URL into readable content: local HTTP, a reader service, a browser. */
export interface FetchBackend {
  readonly id: string;
  /**
   * `origin`: talks to the site itself through the guarded client (local, browser). `reader`: a third-party
   * service fetches the page for us, so the URL leaves this process (privacy rules apply).
   */
  readonly kind: 'origin' | 'reader';
  /** Runs the page's JavaScript (a browser, or a reader that renders): where a JavaScript shell escalates to. */
  readonly rendersJavaScript: boolean;
  /** Why it cannot be used (no key, no browser), or undefined when it can. Checked without a request. */
  unavailableReason(): string | undefined;
  fetchPage(request: PageRequest, context: CallContext): Promise<FetchedPage>;
  /** Releases what it holds (a browser). */
  close?(): Promise<void>;
}
