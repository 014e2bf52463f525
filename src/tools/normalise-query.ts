/** A query as the cache and the repeat throttle compare it: lower-case, whitespace folded. */
export function normaliseQuery(query: string): string {
  return query.toLowerCase().replace(/\s+/g, ' ').trim();
}
