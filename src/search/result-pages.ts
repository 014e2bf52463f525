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
