// How one provider takes the parameters of issue 18 — `topic`, `after`/`before`, `safeSearch`, `offset` — as one
// table in its own file (`PARAMETERS`). The provider builds its request from it (the values it sends), the chain
// reads it (who is skipped for news, whose dates are approximated, what to warn about), and `periscope status` and
// docs/providers.md show it: one source, not written twice.

/**
 * The adult-content filter: `moderate` is the default (`search.safeSearch`). Defined here, where the table maps its
 * levels, and re-exported by types.ts, which reads this file (not the other way round: no circle).
 */
export type SafeSearch = 'off' | 'moderate' | 'strict';

/** What a provider sends for each safe-search level; `undefined`: nothing (its own default does that). */
export type SafeSearchValues = Readonly<Record<SafeSearch, string | number | boolean | undefined>>;

export interface SafeSearchMapping {
  /** The request field (`safesearch`, `safe`, `kp`). */
  readonly parameter: string;
  readonly values: SafeSearchValues;
  /** The documentation page for this entry when it is not the table's `doc`. */
  readonly doc?: string;
}

/** Said instead of how, when the provider cannot take a parameter: why (`no news vertical in its API`). */
export interface Unsupported {
  readonly none: string;
  /** The documentation page for this entry when it is not the table's `doc`. */
  readonly doc?: string;
}

/** The documentation page for one entry (`doc`), when it is not the table's. */
interface Documented {
  readonly doc?: string;
}

export interface ProviderParameters {
  /**
   * The address of the provider's own documentation these entries follow (its API reference); docs/providers.md
   * shows it beside each entry. An entry with its own `doc` (a different page) shows that one instead.
   */
  readonly doc?: string;
  /** `topic: news`: the endpoint or parameter that asks its news vertical. Unsupported: skipped for news. */
  readonly news: ({ readonly how: string } & Documented) | Unsupported;
  /**
   * `after`/`before`: `native`, the range is sent as it is (undated results are kept: the provider filtered);
   * `window`, the nearest `freshness` window covering `after` is sent instead. Either way dated results outside the
   * range are dropped; with `window` or unsupported, undated ones too unless `keepUndated`.
   */
  readonly dates:
    | ({ readonly native: string } & Documented)
    | ({ readonly window: string } & Documented)
    | Unsupported;
  /** `safeSearch` in web search. */
  readonly safeSearch: SafeSearchMapping | Unsupported;
  /** `safeSearch` in image search, where it is asked differently (Brave images has no moderate level). */
  readonly imageSafeSearch?: SafeSearchMapping | Unsupported;
  /**
   * `offset`: how later results are asked. `exact: false`: the provider pages by its own page size (SearXNG), so
   * the offset is approximated by a page number, with a warning.
   */
  readonly offset: ({ readonly how: string; readonly exact: boolean } & Documented) | Unsupported;
}

/** Whether an entry says the provider cannot take the parameter (a missing entry says so too). */
export function isUnsupported<ENTRY extends object>(
  entry: ENTRY | Unsupported | undefined,
): entry is Unsupported | undefined {
  return entry === undefined || 'none' in entry;
}

/** `{ [parameter]: value }` for the level asked, or nothing (no level asked, none mapped, or nothing to send). */
export function safeSearchField(
  mapping: SafeSearchMapping | Unsupported | undefined,
  level: SafeSearch | undefined,
): Record<string, string | number | boolean> {
  if (level === undefined || isUnsupported(mapping)) return {};
  const value = mapping.values[level];
  return value === undefined ? {} : { [mapping.parameter]: value };
}

/** One capability as `periscope status` shows it: native, approximated, or not at all. */
export type Capability = 'native' | 'approximate' | 'none';

export interface ParameterCapabilities {
  news: Capability;
  dateRange: Capability;
  safeSearch: Capability;
  offset: Capability;
}

/** What a table says each parameter gets (a provider without a table: nothing natively). */
export function parameterCapabilities(table: ProviderParameters | undefined): ParameterCapabilities {
  if (table === undefined) return { news: 'none', dateRange: 'none', safeSearch: 'none', offset: 'none' };
  const { news, dates, safeSearch, offset } = table;
  return {
    news: isUnsupported(news) ? 'none' : 'native',
    dateRange: 'native' in dates ? 'native' : 'window' in dates ? 'approximate' : 'none',
    safeSearch: isUnsupported(safeSearch) ? 'none' : 'native',
    offset: isUnsupported(offset) ? 'none' : offset.exact ? 'native' : 'approximate',
  };
}

/**
 * The cells of docs/providers.md's parameter table for one provider: news, date range, safe search, offset, each
 * followed by the address of the documentation it follows (the entry's `doc`, else the table's).
 */
export function parameterCells(table: ProviderParameters | undefined): [string, string, string, string] {
  if (table === undefined) return ['–', '–', '–', '–'];
  const { news, dates, safeSearch, offset } = table;
  const cite = (text: string, ...entries: (Documented | undefined)[]) => {
    const addresses = [...new Set(entries.map((entry) => entry?.doc ?? table.doc))].filter(
      (address): address is string => address !== undefined,
    );
    return addresses.length === 0
      ? text
      : `${text} (${addresses.map((address) => `<${address}>`).join(', ')})`;
  };
  return [
    cite('how' in news ? news.how : `– (${news.none})`, news),
    cite(
      'native' in dates
        ? dates.native
        : 'window' in dates
          ? `approximated: ${dates.window}, then filtered by date`
          : `– (${dates.none}); filtered by date`,
      dates,
    ),
    table.imageSafeSearch === undefined
      ? cite(safeSearchCell(safeSearch), safeSearch)
      : cite(
          `${safeSearchCell(safeSearch)}; images ${safeSearchCell(table.imageSafeSearch)}`,
          safeSearch,
          table.imageSafeSearch,
        ),
    cite(
      isUnsupported(offset)
        ? `– (${offset.none})`
        : offset.exact
          ? offset.how
          : `approximated: ${offset.how}`,
      offset,
    ),
  ];
}

/** `` `safesearch`: off / moderate / strict `` or `` `safe`: off → off, moderate → active, strict → active ``. */
export function safeSearchCell(mapping: SafeSearchMapping | Unsupported | undefined): string {
  if (mapping === undefined) return '–';
  if ('none' in mapping) return `– (${mapping.none})`;
  const levels = (['off', 'moderate', 'strict'] as const).map((level) => {
    const value = mapping.values[level];
    return value === undefined ? `${level} → not sent` : `${level} → ${String(value)}`;
  });
  return `\`${mapping.parameter}\`: ${levels.join(', ')}`;
}
