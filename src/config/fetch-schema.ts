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
  apiKey: z
    .string()
    .optional()
    .describe(
      "The service's API key. Unset: the fallbacks the entry names (a search provider's key, then a variable).",
    ),
  baseUrl: httpUrl
    .optional()
    .describe(
      "The service's endpoint (a self-hosted instance, or a local stand-in in tests). Trusted: not checked by the URL policy.",
    ),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .describe(
      "Extra request headers (jina-reader: `X-Engine`, `X-Target-Selector`, …; service: your gateway's own).",
    ),
  timeoutMs: positiveMs.default(30_000).describe('One attempt, start to finish, in ms.'),
});
export const readerEntrySchema = readerEntryObject.prefault({});

/** `fetch.backends.service`: a generic POST `{ url }` → markdown endpoint. */
export const serviceEntrySchema = readerEntryObject.extend({
  toolCallIdHeader: z
    .string()
    .min(1)
    .nullable()
    .default('x-tool-call-id')
    .describe("Header that carries the calling tool call's id (when the surface knows it); null sends none."),
});

/** `fetch.browser`: the headless Chromium back-end. */
export const browserSchema = z
  .strictObject({
    executablePath: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe(
        'The Chromium binary. null: PERISCOPE_CHROMIUM_PATH, then the usual install paths (/usr/lib/chromium/chromium, /usr/bin/chromium, google-chrome, …).',
      ),
    launchTimeoutMs: positiveMs.default(30_000).describe('Starting Chromium, in ms.'),
    navigationTimeoutMs: positiveMs
      .default(20_000)
      .describe(
        'Until the first response of the page, in ms (the document itself is fetched by the guarded client).',
      ),
    waitUntil: z
      .enum(['networkidle', 'load', 'domcontentloaded'])
      .default('networkidle')
      .describe('What to wait for after the document arrived (unless `waitForSelector` is set).'),
    waitForSelector: z
      .string()
      .min(1)
      .nullable()
      .default(null)
      .describe('A CSS selector to wait for instead (e.g. `#app article`); null waits per `waitUntil`.'),
    waitMs: positiveMs
      .default(10_000)
      .describe(
        'The most time spent waiting, in ms; then the DOM as it is is read (a page that never stops loading is bounded).',
      ),
    networkIdleMs: positiveMs
      .default(500)
      .describe('How long the network must be quiet to count as idle, in ms.'),
    snapshotTimeoutMs: positiveMs
      .default(5_000)
      .describe(
        'Reading the rendered DOM, in ms; a page stuck in a script loop fails with TIMEOUT after this.',
      ),
    maxPages: z
      .number()
      .int()
      .min(1)
      .max(32)
      .default(4)
      .describe('Pages rendering at once (1–32); more calls queue.'),
    warmPages: z
      .number()
      .int()
      .min(0)
      .max(8)
      .default(1)
      .describe('Fresh pages kept ready (0–8), never reused across fetches. 0 opens each page on demand.'),
    maxSubrequests: z
      .number()
      .int()
      .positive()
      .default(300)
      .describe('Sub-requests one page may make; later ones are refused.'),
    idleShutdownMs: positiveMs
      .default(60_000)
      .describe(
        'The browser is closed after this long without a fetch, in ms, and launched again on the next.',
      ),
    skipResourceTypes: z
      .array(z.enum(['image', 'media', 'font', 'stylesheet', 'texttrack', 'manifest', 'other']))
      .default(['image', 'media', 'font'])
      .describe(
        'Request types not fetched at all; `eventsource`, `websocket`, `texttrack` and `manifest` never are, while `script`, `xhr`, `fetch` and the document always are.',
      ),
  })
  .prefault({})
  .describe(
    "The `browser` back-end: the system's headless Chromium, launched on first use, shared, closed when idle.",
  );

export const fetchBackendsSchema = z
  .strictObject({
    'jina-reader': readerEntrySchema.describe(
      'Jina Reader. Key unset: `providers.jina.apiKey`, then JINA_API_KEY.',
    ),
    firecrawl: readerEntrySchema.describe(
      'Firecrawl. Key unset: `providers.firecrawl.apiKey`, then FIRECRAWL_API_KEY.',
    ),
    tavily: readerEntrySchema.describe('Tavily. Key unset: `providers.tavily.apiKey`, then TAVILY_API_KEY.'),
    exa: readerEntrySchema.describe('Exa. Key unset: `providers.exa.apiKey`, then EXA_API_KEY.'),
    infoquest: readerEntrySchema.describe(
      'BytePlus InfoQuest. Key unset: `providers.infoquest.apiKey`, then INFOQUEST_API_KEY.',
    ),
    service: serviceEntrySchema
      .prefault({})
      .describe(
        'Your own fetch service: POST `{ url }` → markdown. Endpoint unset: PERISCOPE_FETCH_SERVICE_URL; key unset: PERISCOPE_FETCH_SERVICE_KEY.',
      ),
  })
  .prefault({})
  .describe("Reader services' endpoints, keys and headers (used when their id is in `fetch.chain`).");

export type ReaderEntryConfig = z.infer<typeof readerEntrySchema>;
export type ServiceEntryConfig = z.infer<typeof serviceEntrySchema>;
export type BrowserConfig = z.infer<typeof browserSchema>;
export type FetchBackendsConfig = z.infer<typeof fetchBackendsSchema>;
