/** One page of a provider that pages its results: its size, its index (0-based) and how many of it to skip. */
export interface ResultPage {
  size: number;
  index: number;
  /** Results of that page before the first one asked for. */
  skip: number;
  /** Set when the page cannot start at the offset asked (the provider pages no deeper, or no page size fits). */
  warning?: string;
}

/**
 * The page that holds results `offset` to `offset + count - 1` for a provider that takes a page size and a page
 * number (Brave `count`+`offset`, Serper `num`+`page`, Jina `num`+`page`): the smallest size from `count` up to
 * `maxPageSize` whose one page holds them all — offset 5, count 5: size 5, page 1; offset 3, count 5: size 8,
 * page 0, skip 3 — so the results are exactly those asked for. When none fits (or the page would be deeper than
 * `maxPageIndex`), the page of `count` results nearest below the offset, with a warning naming where it starts.
 */
export function pageFor(
  provider: string,
  offset: number,
  count: number,
  maxPageSize: number,
  maxPageIndex = Number.POSITIVE_INFINITY,
): ResultPage {
  for (let size = count; size <= Math.max(count, maxPageSize); size++) {
    const index = Math.floor(offset / size);
    if (index > maxPageIndex) continue;
    if (Math.floor((offset + count - 1) / size) === index)
      return { size, index, skip: offset - index * size };
  }
  const index = Math.min(Math.floor(offset / count), maxPageIndex);
  return {
    size: count,
    index,
    skip: 0,
    warning: `${provider} cannot start a page at offset ${offset}; these results start at offset ${index * count}`,
  };
}

/** The defined results of `page` that were asked for: after its `skip`, at most `count` (no page: the first). */
export function pageSlice<T>(
  results: readonly (T | undefined)[],
  page: ResultPage | undefined,
  count: number,
): T[] {
  const skip = page?.skip ?? 0;
  return results.filter((item): item is T => item !== undefined).slice(skip, skip + count);
}

/** What `readOwnPages` read: the results asked for, the page size page 1 showed, and whether more were left. */
export interface OwnPages<T> {
  results: T[];
  /** How many results page 1 held: the size the provider pages by (0: it had none). */
  pageSize: number;
  /** Pages asked for. */
  requests: number;
  /** Whether fewer than `count` came back only because `maxRequests` pages had been read (more may exist). */
  cut: boolean;
}

/**
 * Results `offset` to `offset + count - 1` from a provider that pages by a size of its own and takes only a page
 * number (SearXNG `pageno`, Kagi v1 `page`): page 1 shows the size; the page that holds the offset is asked next
 * (page 1 serves when it does), then the pages after it until `count` results are in, a page comes back empty,
 * `lastPage` is reached or `maxRequests` pages have been read. Undefined results (no URL) are dropped per page.
 */
export async function readOwnPages<T>(
  fetchPage: (page: number) => Promise<readonly (T | undefined)[]>,
  offset: number,
  count: number,
  limits: { maxRequests: number; lastPage?: number },
): Promise<OwnPages<T>> {
  const lastPage = limits.lastPage ?? Number.POSITIVE_INFINITY;
  const defined = (page: readonly (T | undefined)[]) => page.filter((item): item is T => item !== undefined);
  const first = await fetchPage(1);
  const pageSize = first.length;
  if (pageSize === 0 || (offset === 0 && defined(first).length >= count))
    return { results: defined(first).slice(0, count), pageSize, requests: 1, cut: false };
  let page = Math.min(Math.floor(offset / pageSize) + 1, lastPage);
  let requests = 1;
  const start = (page - 1) * pageSize;
  const held: (T | undefined)[] = page === 1 ? [...first] : [];
  if (page > 1) {
    held.push(...(await fetchPage(page)));
    requests++;
  }
  const skip = Math.max(0, offset - start);
  let exhausted = held.length === 0;
  while (!exhausted && held.length - skip < count && page < lastPage && requests < limits.maxRequests) {
    page++;
    const next = await fetchPage(page);
    requests++;
    exhausted = next.length === 0;
    held.push(...next);
  }
  const results = defined(held.slice(skip)).slice(0, count);
  const more = !exhausted && page < lastPage;
  return { results, pageSize, requests, cut: results.length < count && more };
}
