import type { ProviderErrorRules } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { optionalNumber, records } from '../../services/provider-text.ts';
import {
  firstResults,
  googleTbs,
  imageResult,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import type { ProviderContext, QuotaInfo, SearchProvider } from '../types.ts';

const ID = 'serper';
const KEY_ENV = ['SERPER_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://google.serper.dev';

/**
 * Serper errors are `{message, statusCode}`: 403 "Unauthorized." for a bad key. Running out of credits is also an
 * error status whose wording is not recorded; any failure whose message speaks of credits is quota.
 */
const ERRORS: ProviderErrorRules = {
  classify: ({ status, message }) =>
    status >= 400 && status < 500 && message !== undefined && /credit/i.test(message) ? 'quota' : undefined,
};

async function post(context: ProviderContext, path: string, json: Record<string, unknown>) {
  const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
  const reply = await requestProviderJson(context, {
    provider: ID,
    url: providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, path),
    headers: { 'x-api-key': apiKey },
    json,
    secrets: [apiKey],
    errors: ERRORS,
  });
  return jsonObject(ID, reply.body);
}

/** Every response says how many credits it used. */
function creditsUsed(body: Record<string, unknown>): { quota?: QuotaInfo } {
  const credits = optionalNumber(body.credits);
  return credits === undefined
    ? {}
    : { quota: { note: `${credits} credit${credits === 1 ? '' : 's'} used` } };
}

/**
 * Serper (Google results): `POST /search` and `POST /images` with `X-API-KEY`, body `{q, num, gl, hl, tbs}`
 * (freshness as `tbs=qdr:d|w|m|y`). `organic[].date` is human text ("3 days ago"); the chain normalises it.
 *
 * minIntervalMs 220: about 5 requests per second on the free tier (2 500 one-time credits), as measured in a
 * public load-test report; Serper does not publish the figure.
 */
export const serperSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 220,
  siteFilter: 'query',
  isConfigured: hasApiKey,

  async search(request, context) {
    const body = await post(context, '/search', {
      q: request.query,
      num: request.count,
      ...(request.region === undefined ? {} : { gl: request.region.toLowerCase() }),
      ...(request.language === undefined ? {} : { hl: request.language.toLowerCase() }),
      ...(request.freshness === undefined ? {} : { tbs: googleTbs(request.freshness) }),
    });
    const results = records(body.organic).map((item) =>
      webResult({ title: item.title, url: item.link, snippet: item.snippet, publishedAt: item.date }),
    );
    return { results: firstResults(results, request.count), ...creditsUsed(body) };
  },

  async searchImages(request, context) {
    const body = await post(context, '/images', { q: request.query, num: request.count });
    const results = records(body.images).map((item) =>
      imageResult({
        title: item.title,
        imageUrl: item.imageUrl,
        thumbnailUrl: item.thumbnailUrl,
        sourceUrl: item.link,
        width: item.imageWidth,
        height: item.imageHeight,
      }),
    );
    const warnings = unsupportedImageFilters(ID, request);
    return {
      results: firstResults(results, request.count),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...creditsUsed(body),
    };
  },
};
