// A region code (`de`, `US`) as the English country name some provider APIs take instead of a code (Firecrawl's
// `location`, Tavily's `country`), from the names Node ships (Intl.DisplayNames), not a list of our own.

const NAMES = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

/**
 * Tavily's documented values where they differ from Intl's short English name (its enum follows the older names:
 * `czech republic`, `turkey`, `south korea`).
 */
const TAVILY_NAMES: Readonly<Record<string, string>> = {
  CZ: 'czech republic',
  TR: 'turkey',
  KR: 'south korea',
  KP: 'north korea',
};

/** `DE` → `Germany`, `BA` → `Bosnia and Herzegovina`; undefined for a code that is not an ISO 3166-1 country. */
export function countryName(region: string): string | undefined {
  const code = region.trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(code)) return undefined;
  const name = NAMES.of(code);
  if (name === undefined || name === code || name === 'Unknown Region') return undefined;
  return name.replaceAll(' & ', ' and ').replace(/\s*\(.*\)$/, '');
}

/** Tavily's `country`: the lower-case English name (`united states`), undefined when the code names no country. */
export function tavilyCountry(region: string): string | undefined {
  const code = region.trim().toUpperCase();
  return TAVILY_NAMES[code] ?? countryName(code)?.toLowerCase();
}
