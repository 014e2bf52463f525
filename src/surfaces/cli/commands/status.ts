import { isCalendarDay } from '../../../calendar-day.ts';
import type { Periscope, UsageQuery, UsageReport } from '../../../index.ts';
import type { ProviderStatus } from '../../../search/chain.ts';
import type { Capability } from '../../../search/parameter-table.ts';
import type { QuotaInfo } from '../../../search/types.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import {
  AGENT_FLAG,
  agentFlag,
  COMMON_FLAGS,
  NETWORK_FLAGS,
  networkOverrides,
  type ParsedFlags,
  parseFlags,
} from '../flags.ts';
import { type CliIo, writeLine, writeTable } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';
import { usageLines } from './usage-table.ts';

export const STATUS_HELP = `Usage: periscope status [--json] [--day YYYY-MM-DD] [--agent ID] [--config FILE]

List every search provider: its place in the chain (search.chain), whether its credentials are present (config or
the well-known environment variable), its health (cooling down until when, after which failure), and its quota —
asked live where the provider has a usage endpoint, otherwise as the last response reported it (with its time;
Kagi's balance comes only with its v0 answers). Health and that last quota are kept in the store, so they carry
over from earlier \`periscope search\` runs and other processes sharing it. Then the day's usage from the store:
calls, cache hits, credits spent and errors per agent, tool and provider.

Options:
  --day YYYY-MM-DD        usage of that day (UTC; default today)
  --agent ID              usage of that agent only
  --json                  print the status as JSON
  --config FILE           config file
  -h, --help              this help`;

const FLAGS = { ...COMMON_FLAGS, ...NETWORK_FLAGS, ...AGENT_FLAG, day: { type: 'string' } } as const;

export async function statusCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('status', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, STATUS_HELP);
    return EXIT_OK;
  }
  if (positionals.length > 0) {
    throw new UsageError(`status takes no arguments, got '${positionals.join(' ')}'`);
  }
  const usageQuery = usageQueryOf(values);
  const { periscope, source } = openPeriscope(io, values, { network: networkOverrides(values) });
  const { config } = periscope;
  const { providers } = await periscope.status({ quota: true });
  const usage = await readUsageFor(periscope, usageQuery);
  await periscope.close();
  const chain = inOrder(providers.filter((provider) => provider.inChain));
  const imageChain = inOrder(providers.filter((provider) => provider.inImageChain));
  const chainSetting = config.search.chain === 'auto' ? 'auto' : 'search.chain';
  if (values.json) {
    const shown = {
      source: source ?? null,
      search: {
        chain: chain.map((item) => item.id),
        imageChain: imageChain.map((item) => item.id),
        mode: config.search.mode,
        from: chainSetting,
      },
      providers,
      usage: 'error' in usage ? { error: usage.error } : { store: usage.where, ...usage.report },
    };
    writeLine(io.stdout, JSON.stringify(shown, null, 2));
    return EXIT_OK;
  }
  writeLine(
    io.stdout,
    `web search chain (${chainSetting}, ${config.search.mode}): ${chain.map((item) => item.id).join(' → ') || 'empty'}`,
  );
  writeLine(io.stdout, `image search chain: ${imageChain.map((item) => item.id).join(' → ') || 'empty'}`);
  writeLine(io.stdout, '');
  const rows = [
    ['provider', 'chain', 'credentials', 'health', 'quota'],
    ...[...providers]
      .sort(byChainThenId)
      .map((provider) => [
        provider.id + (provider.builtIn ? '' : ' (custom)'),
        provider.position === undefined
          ? provider.inImageChain
            ? 'images'
            : '–'
          : String(provider.position),
        provider.credentials,
        health(provider),
        quota(provider),
      ]),
  ];
  writeTable(io.stdout, rows);
  writeLine(io.stdout, '');
  writeLine(
    io.stdout,
    'web_search parameters each provider takes (✓ natively, ~ approximated, – not at all):',
  );
  writeTable(io.stdout, parameterRows(providers));
  // Notes a provider carries about itself (Google CSE: closed to new customers).
  const notes = inOrder([...providers]).filter((provider) => provider.note);
  if (notes.length > 0) writeLine(io.stdout, '');
  for (const provider of notes) writeLine(io.stdout, `note on ${provider.id}: ${provider.note}`);
  writeLine(io.stdout, '');
  if ('error' in usage) writeLine(io.stdout, `usage: not available (${usage.error})`);
  else for (const line of usageLines(usage.report, usage.where)) writeLine(io.stdout, line);
  return EXIT_OK;
}

function usageQueryOf(values: ParsedFlags): UsageQuery {
  const day = typeof values.day === 'string' ? values.day : undefined;
  if (day !== undefined && !isCalendarDay(day))
    throw new UsageError(`--day expects a calendar date as YYYY-MM-DD, got '${day}'`);
  return { day, agentId: values.agent === undefined ? undefined : agentFlag(values) };
}

/** The day's usage, or why it cannot be read (the providers are shown either way). */
async function readUsageFor(
  periscope: Periscope,
  query: UsageQuery,
): Promise<{ report: UsageReport; where: string } | { error: string }> {
  try {
    const store = await periscope.store();
    const report = await periscope.usage(query);
    return { report, where: `${store.kind} ${store.location}` };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const MARKS: Record<Capability, string> = { native: '✓', approximate: '~', none: '–' };

/** The capability table: one row per web search provider, in chain order, from its parameter table. */
function parameterRows(providers: ProviderStatus[]): string[][] {
  return [
    ['provider', 'news', 'date range', 'safe search', 'offset'],
    ...providers
      .filter((provider) => provider.supports.includes('web'))
      .sort(byChainThenId)
      .map((provider) => {
        const { news, dateRange, safeSearch, offset } = provider.parameters;
        return [provider.id, MARKS[news], MARKS[dateRange], MARKS[safeSearch], MARKS[offset]];
      }),
  ];
}

/** Chain order, then the providers outside it by id: the order of both tables. */
function byChainThenId(a: ProviderStatus, b: ProviderStatus): number {
  return (a.position ?? 99) - (b.position ?? 99) || a.id.localeCompare(b.id);
}

function inOrder(providers: ProviderStatus[]): ProviderStatus[] {
  return [...providers].sort((a, b) => (a.position ?? 99) - (b.position ?? 99));
}

function health(provider: ProviderStatus): string {
  if (!provider.enabled) return 'disabled';
  const { health: snapshot } = provider;
  if (snapshot.state === 'cooling') {
    return `cooling down until ${snapshot.coolingUntil} (${snapshot.lastError?.code ?? 'failures'})`;
  }
  return snapshot.lastError && snapshot.consecutiveFailures > 0
    ? `ok (last: ${snapshot.lastError.code})`
    : 'ok';
}

function quota(provider: ProviderStatus): string {
  if (provider.quotaError) return `unknown (${provider.quotaError})`;
  if (!provider.quota) return '–';
  // Not asked live: what the last response said (Kagi's balance comes only with its v0 answers).
  const seen =
    provider.quotaFrom === 'response' && provider.quotaAt ? ` (last response, ${provider.quotaAt})` : '';
  return `${describeQuota(provider.quota)}${seen}`;
}

function describeQuota(info: QuotaInfo): string {
  const parts: string[] = [];
  if (info.remaining !== undefined) {
    parts.push(info.limit === undefined ? `${info.remaining} left` : `${info.remaining}/${info.limit} left`);
  } else if (info.limit !== undefined) parts.push(`limit ${info.limit}`);
  if (info.resetsAt) parts.push(`resets ${info.resetsAt}`);
  if (info.note) parts.push(info.note);
  return parts.join(', ') || '–';
}
