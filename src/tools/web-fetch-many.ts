import type { ToolErrorData } from '../errors.ts';
import type { ToolResult } from '../tool-call.ts';
import type { ToolExecuteOptions } from './tool.ts';
import type { WebFetchData, WebFetchInput, WebFetchManyData, WebFetchUrlResult } from './web-fetch-schema.ts';

/** Pages of one `urls` call read at once, and at most this many from one host (politeness). */
export const FETCH_URLS_CONCURRENCY = 4;
export const FETCH_URLS_PER_HOST = 2;

/** web_fetch's input for one page. */
export type OneUrlInput = Omit<WebFetchInput, 'url' | 'urls'> & { url: string };

/** One page's share of the call's budget. */
export interface ReadBudget {
  maxChars: number;
  maxTokens: number;
}

export interface ReadManySettings {
  /** The call's budget, shared by its pages. */
  maxChars: number;
  maxTokens: number;
  /** Reads one page with its share; a second, larger share names the first read (the document is in memory). */
  readOne(
    input: OneUrlInput,
    budget: ReadBudget,
    firstRead: WebFetchData | undefined,
  ): Promise<ToolResult<WebFetchData>>;
}

/**
 * A `urls` call: every page read in parallel (FETCH_URLS_CONCURRENCY at once, FETCH_URLS_PER_HOST per host), each
 * with budget/n; then what the short and failed pages left unused goes, in equal parts, to the truncated ones, which
 * are cut again from the document in memory. One result per URL in input order; one failure never fails the others.
 */
export async function readMany(
  input: WebFetchInput,
  urls: readonly string[],
  options: ToolExecuteOptions,
  settings: ReadManySettings,
): Promise<ToolResult<WebFetchManyData>> {
  const started = performance.now();
  const { urls: _urls, url: _url, ...rest } = input;
  const count = urls.length;
  const share: ReadBudget = {
    maxChars: Math.max(1, Math.floor(settings.maxChars / count)),
    maxTokens: Math.max(1, Math.floor(settings.maxTokens / count)),
  };
  const one = (url: string): OneUrlInput => ({ ...rest, url });
  const results: Array<ToolResult<WebFetchData>> = await inParallel(
    urls,
    (url) => settings.readOne(one(url), share, undefined),
    (url) => url,
  );

  // What the short and failed pages left unused, given in equal parts to the truncated ones.
  let unusedChars = 0;
  const truncated: number[] = [];
  for (const [index, result] of results.entries()) {
    const data = pageOf(result);
    if (data === undefined) unusedChars += share.maxChars;
    else if (data.truncated) truncated.push(index);
    else unusedChars += Math.max(0, share.maxChars - data.length);
  }
  const extraChars = truncated.length === 0 ? 0 : Math.floor(unusedChars / truncated.length);
  if (extraChars > 0 && !options.signal?.aborted) {
    const larger: ReadBudget = {
      maxChars: share.maxChars + extraChars,
      maxTokens: Math.max(
        1,
        Math.floor((settings.maxTokens * (share.maxChars + extraChars)) / settings.maxChars),
      ),
    };
    const again = await inParallel(
      truncated.map((index) => index),
      (index) =>
        settings.readOne(
          one(urls[index] as string),
          larger,
          pageOf(results[index] as ToolResult<WebFetchData>),
        ),
      (index) => urls[index] as string,
    );
    for (const [position, index] of truncated.entries()) {
      const reread = again[position];
      // A second read that failed (the document left memory and the site failed) keeps the first share.
      if (reread && !reread.isError) results[index] = reread;
    }
  }

  const perUrl: WebFetchUrlResult[] = results.map((result, index) => {
    const data = pageOf(result);
    return data === undefined
      ? { ok: false, url: urls[index] as string, error: errorOf(result) }
      : { ok: true, ...data };
  });
  const succeeded = perUrl.filter((result) => result.ok).length;
  const length = perUrl.reduce((sum, result) => sum + (result.ok ? result.length : 0), 0);
  const sections = results.map((result, index) => {
    const url = urls[index] as string;
    const data = pageOf(result);
    const status =
      data === undefined
        ? `failed: ${errorOf(result).code}`
        : `${data.status} ${data.contentType}${data.truncated ? ', truncated' : ''}`;
    return `## ${index + 1}/${count} ${url} (${status})\n\n${result.output}`;
  });
  const head = `Read ${succeeded} of ${count} URLs, sharing maxChars ${settings.maxChars}; one section per URL, in the order given.`;
  const elapsedMs = Math.round(performance.now() - started);
  return {
    isError: false,
    output: [head, ...sections].join('\n\n'),
    data: {
      urls: [...urls],
      results: perUrl,
      succeeded,
      failed: count - succeeded,
      maxChars: settings.maxChars,
      length,
      untrusted: true,
    },
    display: `fetch ${count} URLs → ${succeeded} ok, ${count - succeeded} failed, ${length} chars in ${elapsedMs} ms`,
  };
}

function pageOf(result: ToolResult<WebFetchData>): WebFetchData | undefined {
  return result.isError ? undefined : (result.data as WebFetchData);
}

function errorOf(result: ToolResult<unknown>): ToolErrorData {
  const error = (result.data as { error?: ToolErrorData } | undefined)?.error;
  return error ?? { code: 'INTERNAL', message: result.output, retryable: false };
}

/** Runs `work` on every item, FETCH_URLS_CONCURRENCY at once and FETCH_URLS_PER_HOST per host; results in order. */
async function inParallel<ITEM, T>(
  items: readonly ITEM[],
  work: (item: ITEM) => Promise<T>,
  urlOf: (item: ITEM) => string,
): Promise<T[]> {
  const results = new Array<T>(items.length);
  const waiting = items.map((item, index) => ({ item, index, host: hostOf(urlOf(item)) }));
  const perHost = new Map<string, number>();
  let running = 0;
  return new Promise<T[]>((resolve) => {
    const next = (): void => {
      if (waiting.length === 0 && running === 0) {
        resolve(results);
        return;
      }
      while (running < FETCH_URLS_CONCURRENCY) {
        const at = waiting.findIndex((item) => (perHost.get(item.host) ?? 0) < FETCH_URLS_PER_HOST);
        if (at < 0) return;
        const [item] = waiting.splice(at, 1);
        if (item === undefined) return;
        running += 1;
        perHost.set(item.host, (perHost.get(item.host) ?? 0) + 1);
        void work(item.item)
          .then((result) => {
            results[item.index] = result;
          })
          .finally(() => {
            running -= 1;
            perHost.set(item.host, (perHost.get(item.host) ?? 1) - 1);
            next();
          });
      }
    };
    next();
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
