import { throwUnexpected } from '../../services/provider-errors.ts';
import {
  hasApiKey,
  jsonObject,
  providerUrl,
  requestProviderJson,
  requireApiKey,
} from '../../services/provider-http.ts';
import { asRecord, records } from '../../services/provider-text.ts';
import type { ProviderParameters } from '../parameter-table.ts';
import {
  firstResults,
  freshnessDays,
  imageResult,
  unsupported,
  unsupportedImageFilters,
  webResult,
} from '../provider-results.ts';
import { oneSite } from '../site-filter.ts';
import type { ImageSearchRequest, ProviderContext, SearchProvider } from '../types.ts';

const ID = 'infoquest';
const KEY_ENV = ['INFOQUEST_API_KEY'] as const;
const DEFAULT_BASE_URL = 'https://search.infoquest.bytepluses.com';
/**
 * `topic`, `after`/`before`, `safeSearch` and `offset` for InfoQuest (FORMATS.md "BytePlus InfoQuest": the body
 * `{format, query, time_range (days), site}`): a date range is approximated by `time_range`; the rest is not
 * documented (its top stories come mixed into web results).
 */
const PARAMETERS = {
  doc: 'https://docs.byteplus.com/en/docs/InfoQuest/What_is_Info_Quest',
  news: { none: 'no news vertical documented' },
  dates: { window: '`time_range` (days)' },
  safeSearch: { none: 'no safe-search parameter documented' },
  offset: { none: 'no paging parameter documented' },
} as const satisfies ProviderParameters;

const IMAGE_SIZE: Record<NonNullable<ImageSearchRequest['size']>, string> = {
  small: 'i',
  medium: 'm',
  large: 'l',
  wallpaper: 'l',
};

async function post(context: ProviderContext, json: Record<string, unknown>) {
  const apiKey = requireApiKey(ID, context.settings, KEY_ENV);
  const url = providerUrl(ID, context.settings.baseUrl ?? DEFAULT_BASE_URL, '');
  const reply = await requestProviderJson(context, {
    provider: ID,
    url,
    headers: { authorization: `Bearer ${apiKey}` },
    json: { format: 'JSON', ...json },
    secrets: [apiKey],
  });
  const body = jsonObject(ID, reply.body);
  const searchResult = asRecord(body.search_result);
  if (searchResult === undefined) {
    // DeerFlow treats a top-level `content` without `search_result` as "wrong format"; so do we.
    throwUnexpected(ID, 'returned a response without search_result', { reason: 'unexpected-shape' });
  }
  // search_result.results[].content.results holds organic, top_stories and images_results.
  return records(searchResult.results).map((entry) => asRecord(asRecord(entry.content)?.results) ?? {});
}

/**
 * BytePlus InfoQuest (not offered in mainland China): `POST https://search.infoquest.bytepluses.com` with
 * `Authorization: Bearer`, `{format: "JSON", query, time_range (days)}`; images with `search_type: "Images"` and
 * `image_size` l|m|i. The shapes come from DeerFlow's client and hand-written mocks only (no public recording):
 * organic hits, then top stories; images from `images_results[]{original, title, url}`. No count parameter: the
 * first `count` hits are kept.
 *
 * minIntervalMs 1 000: no published rate limit or quota endpoint; one request a second is a cautious default.
 */
export const infoquestSearchProvider: SearchProvider = {
  id: ID,
  keyEnv: KEY_ENV,
  minIntervalMs: 1_000,
  siteFilter: 'request',
  parameters: PARAMETERS,
  isConfigured: hasApiKey,

  async search(request, context) {
    // `site`: one domain to search in (FORMATS.md); no way to leave one out.
    const site = oneSite(ID, request.domains);
    const sections = await post(context, {
      query: request.query,
      ...(request.freshness === undefined ? {} : { time_range: freshnessDays(request.freshness) }),
      ...(site.site === undefined ? {} : { site: site.site.domain }),
    });
    const results = sections.flatMap((section) => [
      ...records(section.organic).map((item) =>
        webResult({ title: item.title, url: item.url, snippet: item.desc }),
      ),
      ...records(asRecord(section.top_stories)?.items).map((item) =>
        webResult({ title: item.title, url: item.url, snippet: item.source, publishedAt: item.time_frame }),
      ),
    ]);
    const warnings = [
      ...(['region', 'language'] as const)
        .filter((name) => request[name] !== undefined)
        .map((name) => unsupported(ID, name, request[name])),
      ...site.warnings,
    ];
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },

  async searchImages(request, context) {
    const sections = await post(context, {
      query: request.query,
      search_type: 'Images',
      ...(request.size === undefined ? {} : { image_size: IMAGE_SIZE[request.size] }),
    });
    const results = sections.flatMap((section) =>
      records(section.images_results).map((item) =>
        imageResult({ title: item.title, imageUrl: item.original, sourceUrl: item.url }),
      ),
    );
    const warnings = unsupportedImageFilters(ID, request, ['size']);
    return { results: firstResults(results, request.count), ...(warnings.length > 0 ? { warnings } : {}) };
  },
};
