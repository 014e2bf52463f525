/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered in the text exposition format
 * (version 0.0.4). Label sets are kept small by the callers (tool names, error codes, routes, status classes).
 */
export type Labels = Readonly<Record<string, string>>;

type Kind = 'counter' | 'gauge' | 'histogram';

interface Family {
  name: string;
  help: string;
  kind: Kind;
  buckets?: readonly number[];
  series: Map<string, Series>;
}

interface Series {
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

  gauge(name: string, help: string): { set(labels: Labels, value: number): void; reset(): void } {
    const family = this.#family(name, help, 'gauge');
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

  /** The whole registry as Prometheus text. */
  render(): string {
    const lines: string[] = [];
    for (const family of this.#families.values()) {
      lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.kind}`);
      for (const series of family.series.values()) {
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
