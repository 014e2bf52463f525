import { z } from 'zod';

/** Every `web_fetch` back-end id, in no particular order (`fetch.chain` gives the order). */
export const FETCH_BACKEND_IDS = [
  'local',
  'browser',
  'jina-reader',
  'firecrawl',
  'tavily',
  'exa',
  'infoquest',
  'service',
] as const;
export type FetchBackendId = (typeof FETCH_BACKEND_IDS)[number];

const positiveMs = z.number().int().positive();
const httpUrl = z.string().regex(/^https?:\/\/\S+$/i, 'an http(s) URL');

/** `fetch.backends.<reader>`: a reader service's endpoint and key. */
const readerEntryObject = z.strictObject({
  /** Falls back to `providers.<search id>.apiKey`, then the well-known variable (JINA_API_KEY, …). */
  apiKey: z.string().optional(),
  /** The service's endpoint (a self-hosted instance, or a local stand-in in tests). Trusted. */
  baseUrl: httpUrl.optional(),
  /** Extra request headers (jina-reader: `X-Engine`, `X-Target-Selector`, …; service: your gateway's own). */
  headers: z.record(z.string(), z.string()).default({}),
  /** One attempt, start to finish. */
  timeoutMs: positiveMs.default(30_000),
});
export const readerEntrySchema = readerEntryObject.prefault({});

/** `fetch.backends.service`: a generic POST `{ url }` → markdown endpoint. */
export const serviceEntrySchema = readerEntryObject.extend({
  /** Header that carries the calling tool call's id (when the surface knows it); null sends none. */
  toolCallIdHeader: z.string().min(1).nullable().default('x-tool-call-id'),
});

/** `fetch.browser`: the headless Chromium back-end. */
export const browserSchema = z
  .strictObject({
    /** The Chromium binary; null looks for PERISCOPE_CHROMIUM_PATH, then /usr/bin/chromium and the usual paths. */
    executablePath: z.string().min(1).nullable().default(null),
    launchTimeoutMs: positiveMs.default(30_000),
    /** Until the first response of the page (the document itself is fetched by the guarded client). */
    navigationTimeoutMs: positiveMs.default(20_000),
    /** What to wait for after the document arrived: the network going quiet, or `waitForSelector`. */
    waitUntil: z.enum(['networkidle', 'load', 'domcontentloaded']).default('networkidle'),
    /** A CSS selector to wait for instead (e.g. `#app article`); null waits per `waitUntil`. */
    waitForSelector: z.string().min(1).nullable().default(null),
    /** The most time spent waiting; then the DOM as it is is read (a page that never stops loading is bounded). */
    waitMs: positiveMs.default(10_000),
    /** How long the network must be quiet to count as idle. */
    networkIdleMs: positiveMs.default(500),
    /** Reading the rendered DOM; a page stuck in a script loop fails with TIMEOUT after this. */
    snapshotTimeoutMs: positiveMs.default(5_000),
    /** Pages rendering at once; more calls queue. */
    maxPages: z.number().int().min(1).max(32).default(4),
    /** Fresh pages kept ready (never reused across fetches). 0 opens each page on demand. */
    warmPages: z.number().int().min(0).max(8).default(1),
    /** Sub-requests one page may make; later ones are refused. */
    maxSubrequests: z.number().int().positive().default(300),
    /** The browser is closed after this long without a fetch, and launched again on the next. */
    idleShutdownMs: positiveMs.default(60_000),
    /** Request types not fetched at all (`script`, `xhr`, `fetch`, `document` and `stylesheet` always are). */
    skipResourceTypes: z
      .array(z.enum(['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'other']))
      .default(['image', 'media', 'font']),
  })
  .prefault({});

export const fetchBackendsSchema = z
  .strictObject({
    'jina-reader': readerEntrySchema,
    firecrawl: readerEntrySchema,
    tavily: readerEntrySchema,
    exa: readerEntrySchema,
    infoquest: readerEntrySchema,
    service: serviceEntrySchema.prefault({}),
  })
  .prefault({});

export type ReaderEntryConfig = z.infer<typeof readerEntrySchema>;
export type ServiceEntryConfig = z.infer<typeof serviceEntrySchema>;
export type BrowserConfig = z.infer<typeof browserSchema>;
export type FetchBackendsConfig = z.infer<typeof fetchBackendsSchema>;
