import { canonicalUrl } from './canonical-url.ts';

/**
 * Fan-out merge: the providers' lists interleaved by rank (first of each, then second of each, …, in chain
 * order), a result whose key was already taken dropped, at most `count`.
 */
export function mergeByRank<T>(
  lists: readonly T[][],
  count: number,
  key: (item: T) => string | undefined,
): T[] {
  const merged: T[] = [];
  const seen = new Set<string>();
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let rank = 0; rank < longest && merged.length < count; rank++) {
    for (const list of lists) {
      const item = list[rank];
      if (item === undefined) continue;
      const itemKey = key(item);
      if (itemKey === undefined || seen.has(itemKey)) continue;
      seen.add(itemKey);
      merged.push(item);
      if (merged.length >= count) break;
    }
  }
  return merged;
}

export const webResultKey = (result: { url: string }): string | undefined => canonicalUrl(result.url);
export const imageResultKey = (result: { imageUrl: string }): string | undefined =>
  canonicalUrl(result.imageUrl);
