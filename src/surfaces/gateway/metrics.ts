/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text exposition format
 * (version 0.0.4). Label sets are kept small by the callers (tool names, error codes, routes, status classes).
 */
export type Labels = Readonly<Record<string, string>>;

type Kind = 'counter' | 'gauge' | 'histogram';

/** How a gauge's values from several processes (`serve --workers N`) make one: counters and histograms add up. */
export type GaugeMerge = 'sum' | 'max' | 'min';

interface Family {
  name: string;
  help: string;
  kind: Kind;
  buckets?: readonly number[];
  merge?: GaugeMerge;
  series: Map<string, Series>;
}

/** A registry's values, plain data (for the IPC channel): family name → series id → series. */
export type MetricsSnapshot = Record<string, Record<string, Series>>;

export interface Series {
  labels: Labels;
  value: number;
  /** Histograms: observations per bucket (not cumulative) and the sum. */
  counts?: number[];
  sum?: number;
}

export const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class MetricsRegistry {
  readonly #families = new Map<string, Family>();

  counter(name: string, help: string): (labels?: Labels, by?: number) => void {
    const family = this.#family(name, help, 'counter');
    return (labels = {}, by = 1) => {
      this.#series(family, labels).value += by;
    };
  }

  gauge(
    name: string,
    help: string,
    merge: GaugeMerge = 'sum',
  ): { set(labels: Labels, value: number): void; reset(): void } {
    const family = this.#family(name, help, 'gauge');
    family.merge = merge;
    return {
      set: (labels, value) => {
        this.#series(family, labels).value = value;
      },
      reset: () => family.series.clear(),
    };
  }

  histogram(name: string, help: string, buckets: readonly number[]): (labels: Labels, value: number) => void {
    const family = this.#family(name, help, 'histogram', buckets);
    return (labels, value) => {
      const series = this.#series(family, labels);
      const index = buckets.findIndex((bound) => value <= bound);
      const counts = series.counts ?? [];
      const slot = index === -1 ? buckets.length : index;
      counts[slot] = (counts[slot] ?? 0) + 1;
      series.counts = counts;
      series.sum = (series.sum ?? 0) + value;
      series.value += 1;
    };
  }

  /** The values now, as plain data: what another worker adds to its own (`render(others)`). */
  snapshot(): MetricsSnapshot {
    const snapshot: MetricsSnapshot = {};
    for (const family of this.#families.values()) snapshot[family.name] = Object.fromEntries(family.series);
    return snapshot;
  }

  /**
   * The whole registry as Prometheus text; with `others` (the other workers' snapshots), each series is the sum of
   * all (a gauge: its `merge`), and a series only another worker has is shown too. Families are this registry's.
   */
  render(others: readonly MetricsSnapshot[] = []): string {
    const lines: string[] = [];
    for (const family of this.#families.values()) {
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.kind}`);
      for (const series of merged(family, others)) {
        if (family.kind !== 'histogram') {
          lines.push(`${family.name}${formatLabels(series.labels)} ${formatNumber(series.value)}`);
          continue;
        }
        const bounds = family.buckets ?? [];
        let cumulative = 0;
        for (const [index, bound] of [...bounds, Number.POSITIVE_INFINITY].entries()) {
          cumulative += series.counts?.[index] ?? 0;
          const le = { ...series.labels, le: formatNumber(bound) };
          lines.push(`${family.name}_bucket${formatLabels(le)} ${cumulative}`);
        }
        lines.push(`${family.name}_sum${formatLabels(series.labels)} ${formatNumber(series.sum ?? 0)}`);
        lines.push(`${family.name}_count${formatLabels(series.labels)} ${series.value}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }

  #family(name: string, help: string, kind: Kind, buckets?: readonly number[]): Family {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) throw new Error(`bad metric name ${name}`);
    const existing = this.#families.get(name);
    if (existing) return existing;
    const family: Family = { name, help, kind, series: new Map(), ...(buckets ? { buckets } : {}) };
    this.#families.set(name, family);
    return family;
  }

  #series(family: Family, labels: Labels): Series {
    const id = JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
    let series = family.series.get(id);
    if (!series) {
      series = { labels, value: 0 };
      family.series.set(id, series);
    }
    return series;
  }
}

function merged(family: Family, others: readonly MetricsSnapshot[]): Iterable<Series> {
  if (others.length === 0) return family.series.values();
  const all = new Map<string, Series>();
  const add = (id: string, series: Series) => {
    const sum = all.get(id);
    if (!sum) {
      all.set(id, { ...series, ...(series.counts ? { counts: [...series.counts] } : {}) });
      return;
    }
    if (family.kind === 'gauge' && family.merge === 'max') sum.value = Math.max(sum.value, series.value);
    else if (family.kind === 'gauge' && family.merge === 'min') sum.value = Math.min(sum.value, series.value);
    else sum.value += series.value;
    if (series.counts) {
      const counts = sum.counts ?? [];
      series.counts.forEach((count, index) => {
        counts[index] = (counts[index] ?? 0) + (count ?? 0);
      });
      sum.counts = counts;
      sum.sum = (sum.sum ?? 0) + (series.sum ?? 0);
    }
  };
  for (const [id, series] of family.series) add(id, series);
  for (const other of others)
    for (const [id, series] of Object.entries(other[family.name] ?? {})) {
      if (series && typeof series.value === 'number' && series.labels) add(id, series);
    }
  return all.values();
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  return `{${entries.map(([name, value]) => `${name}="${escapeLabel(value)}"`).join(',')}}`;
}

function formatNumber(value: number): string {
  if (value === Number.POSITIVE_INFINITY) return '+Inf';
  if (value === Number.NEGATIVE_INFINITY) return '-Inf';
  if (Number.isNaN(value)) return 'NaN';
  return String(value);
}

const escapeLabel = (value: string) =>
  value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const escapeHelp = (value: string) => value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
