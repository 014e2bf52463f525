/** Frequent short words that tell the languages the ranker stems apart (a cheap guess, no model). */
const MARKERS: ReadonlyArray<[string, ReadonlySet<string>]> = [
  ['en', new Set(['the', 'and', 'of', 'to', 'is', 'in', 'that', 'with', 'was', 'for'])],
  ['de', new Set(['der', 'die', 'und', 'das', 'ist', 'nicht', 'mit', 'den', 'von', 'sich'])],
  ['fr', new Set(['le', 'la', 'les', 'et', 'des', 'est', 'une', 'dans', 'du', 'pour'])],
  ['es', new Set(['el', 'los', 'las', 'y', 'que', 'es', 'una', 'por', 'con', 'del'])],
];
const SAMPLE_CHARS = 4_000;

/** The language of a text from its first few thousand characters' function words; English when unsure. */
export function guessLanguage(text: string): string {
  const counts = new Map<string, number>();
  for (const match of text
    .slice(0, SAMPLE_CHARS)
    .toLowerCase()
    .matchAll(/\p{L}+/gu))
    for (const [language, words] of MARKERS)
      if (words.has(match[0])) counts.set(language, (counts.get(language) ?? 0) + 1);
  let best = 'en';
  let bestCount = 0;
  for (const [language, count] of counts)
    if (count > bestCount) {
      best = language;
      bestCount = count;
    }
  return best;
}
