/**
 * A strict parser for the Prometheus text exposition format 0.0.4, for tests: it throws on anything a Prometheus
 * server would reject (bad names, bad escapes, bad numbers, TYPE after samples, a family split in two, histogram
 * buckets that are not cumulative or lack `+Inf`, `_count` not equal to the `+Inf` bucket).
 */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help?: string;
  samples: PromSample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(\\{(.*)\\})? (\\S+)( -?\\d+)?$`);

export function parsePrometheusText(text: string): Map<string, PromFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition must end with a newline');
  const families = new Map<string, PromFamily>();
  const finished = new Set<string>();
  let current: string | undefined;
  const family = (name: string): PromFamily => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: 'untyped', samples: [] };
      families.set(name, found);
    }
    return found;
  };
  const enter = (name: string, line: number) => {
    if (current === name) return;
    if (current !== undefined) finished.add(current);
    if (finished.has(name)) throw new Error(`line ${line}: samples of ${name} are not contiguous`);
    current = name;
  };
  for (const [index, line] of text.split('\n').slice(0, -1).entries()) {
    const lineNumber = index + 1;
    if (line.trim() === '') continue;
    const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
    if (meta) {
      const [, kind, name = '', rest = ''] = meta;
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`line ${lineNumber}: bad metric name ${name}`);
      enter(name, lineNumber);
      const target = family(name);
      if (kind === 'TYPE') {
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) {
          throw new Error(`line ${lineNumber}: unknown type ${rest}`);
        }
        if (target.samples.length > 0) throw new Error(`line ${lineNumber}: TYPE ${name} after its samples`);
        target.type = rest as PromFamily['type'];
      } else {
        if (target.help !== undefined) throw new Error(`line ${lineNumber}: second HELP for ${name}`);
        target.help = unescapeText(rest, false, lineNumber);
      }
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${lineNumber}: not a sample: ${line}`);
    const [, sampleName = '', , labelText, valueText = ''] = match;
    const base = familyName(sampleName, families);
    enter(base, lineNumber);
    family(base).samples.push({
      name: sampleName,
      labels: labelText === undefined ? {} : parseLabels(labelText, lineNumber),
      value: parseValue(valueText, lineNumber),
    });
  }
  for (const parsed of families.values()) if (parsed.type === 'histogram') checkHistogram(parsed);
  return families;
}

function familyName(sample: string, families: Map<string, PromFamily>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sample.endsWith(suffix)) continue;
    const base = sample.slice(0, -suffix.length);
    const type = families.get(base)?.type;
    if (type === 'histogram' || type === 'summary') return base;
  }
  return sample;
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
  let position = 0;
  while (position < text.length) {
    pattern.lastIndex = position;
    const match = pattern.exec(text);
    if (!match) throw new Error(`line ${line}: bad labels {${text}}`);
    const [, name = '', value = ''] = match;
    if (name in labels) throw new Error(`line ${line}: label ${name} twice`);
    labels[name] = unescapeText(value, true, line);
    position = pattern.lastIndex;
  }
  return labels;
}

function unescapeText(text: string, quotes: boolean, line: number): string {
  return text.replace(/\\(.)/g, (_, character: string) => {
    if (character === 'n') return '\n';
    if (character === '\\') return '\\';
    if (character === '"' && quotes) return '"';
    throw new Error(`line ${line}: bad escape \\${character}`);
  });
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text))
    throw new Error(`line ${line}: bad value ${text}`);
  return Number(text);
}

function checkHistogram(histogram: PromFamily): void {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const sample of histogram.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${sample.name} without le`);
      group.buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), sample.value]);
    } else if (sample.name.endsWith('_count')) group.count = sample.value;
    else if (sample.name.endsWith('_sum')) group.sum = sample.value;
    else throw new Error(`${sample.name} is not a histogram sample`);
  }
  for (const [labels, group] of groups) {
    const sorted = [...group.buckets].sort(([a], [b]) => a - b);
    for (let index = 1; index < sorted.length; index++) {
      if ((sorted[index]?.[1] ?? 0) < (sorted[index - 1]?.[1] ?? 0)) {
        throw new Error(`${histogram.name}${labels}: buckets are not cumulative`);
      }
    }
    const last = sorted.at(-1);
    if (!last || last[0] !== Number.POSITIVE_INFINITY)
      throw new Error(`${histogram.name}${labels}: no +Inf bucket`);
    if (group.count !== last[1])
      throw new Error(`${histogram.name}${labels}: _count differs from the +Inf bucket`);
    if (group.sum === undefined) throw new Error(`${histogram.name}${labels}: no _sum`);
  }
}
