import type { LedgerEntry, Periscope } from '../../../index.ts';
import { EXIT_OK, EXIT_TOOL_ERROR, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, integerFlag, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';

export const CREDITS_HELP = `Usage: periscope credits show [agent] [--json]
       periscope credits grant <agent> <amount>
       periscope credits ledger <agent> [--limit N] [--json]

Credit balances per agent, kept in the store (config store.url; default the user's state directory). With
limits.credits.enabled each tool call costs limits.credits.cost.<tool>; a call the agent cannot afford is refused
with CREDITS_EXHAUSTED, and a call that failed on the provider's side is refunded. Every change is a ledger entry.

  show [agent]      one agent's balance, or every agent's
  grant A N         add N credits (a whole number ≥ 1) to agent A
  ledger A          agent A's ledger, oldest first (--limit N: the latest N)

Options:
  --limit N               ledger: only the latest N entries
  --json                  print JSON
  --config FILE           config file (its store.url is where credits live)
  -h, --help              this help

Exit codes: 0 ok, 1 failed (e.g. an agent with no credit account, the store unavailable), 2 usage or config error.`;

const FLAGS = { ...COMMON_FLAGS, limit: { type: 'string' } } as const;

const SUBCOMMANDS = ['show', 'grant', 'ledger'];

export async function creditsCommand(argv: string[], io: CliIo): Promise<number> {
  refuseNegativeAmount(argv);
  const { values, positionals } = parseFlags('credits', argv, FLAGS);
  if (values.help) {
    writeLine(io.stdout, CREDITS_HELP);
    return EXIT_OK;
  }
  const [subcommand, ...rest] = positionals;
  if (subcommand === undefined || !SUBCOMMANDS.includes(subcommand)) {
    throw new UsageError(
      subcommand === undefined
        ? "missing subcommand: show, grant or ledger (see 'periscope credits --help')"
        : `unknown credits subcommand '${subcommand}'; use show, grant or ledger`,
    );
  }
  const expected = { show: [0, 1], grant: [2, 2], ledger: [1, 1] }[subcommand as 'show'] as [number, number];
  if (rest.length < expected[0] || rest.length > expected[1]) {
    const usage = CREDITS_HELP.split('\n')
      .find((line) => line.includes(`credits ${subcommand}`))
      ?.trim();
    throw new UsageError(
      `wrong arguments for 'credits ${subcommand}'; usage: ${usage?.replace(/^Usage: /, '')}`,
    );
  }
  const amount = subcommand === 'grant' ? parseAmount(rest[1] as string) : undefined;
  const limit = integerFlag(values, 'limit', 1);
  const { periscope } = openPeriscope(io, values);
  try {
    if (subcommand === 'grant')
      return await grant(periscope, rest[0] as string, amount as number, values, io);
    if (subcommand === 'ledger') return await ledger(periscope, rest[0] as string, limit, values, io);
    return await show(periscope, rest[0], values, io);
  } finally {
    await periscope.close();
  }
}

/** `grant bob -5`: parseArgs would call `-5` an unknown option; say what is wrong instead. */
function refuseNegativeAmount(argv: string[]): void {
  const at = argv.indexOf('grant');
  const amount = at === -1 ? undefined : argv[at + 2];
  if (amount !== undefined && /^-\d/.test(amount)) parseAmount(amount);
}

function parseAmount(text: string): number {
  const amount = Number(text.replace(/_/g, ''));
  if (!/^\d[\d_]*$/.test(text) || !Number.isSafeInteger(amount) || amount < 1)
    throw new UsageError(`the amount must be a whole number of credits ≥ 1, got '${text}'`);
  return amount;
}

function credits(count: number): string {
  return `${count} credit${count === 1 || count === -1 ? '' : 's'}`;
}

function notEnforced(periscope: Periscope, io: CliIo): void {
  if (!periscope.config.limits.credits.enabled)
    writeLine(
      io.stderr,
      'note: limits.credits.enabled is false: balances are kept but calls are not charged',
    );
}

async function grant(
  periscope: Periscope,
  agent: string,
  amount: number,
  values: Record<string, unknown>,
  io: CliIo,
): Promise<number> {
  const entry = await periscope.credits.grant(agent, amount);
  if (values.json) writeLine(io.stdout, JSON.stringify(entry, null, 2));
  else writeLine(io.stdout, `granted ${credits(amount)} to ${agent}: balance ${credits(entry.balanceAfter)}`);
  notEnforced(periscope, io);
  return EXIT_OK;
}

async function show(
  periscope: Periscope,
  agent: string | undefined,
  values: Record<string, unknown>,
  io: CliIo,
): Promise<number> {
  const { initial } = periscope.config.limits.credits;
  if (agent === undefined) {
    const accounts = await periscope.credits.list();
    if (values.json) writeLine(io.stdout, JSON.stringify(accounts, null, 2));
    else if (accounts.length === 0)
      writeLine(io.stdout, 'no credit accounts yet (give one with: periscope credits grant AGENT N)');
    else
      writeTable(io, [['agent', 'balance'], ...accounts.map((item) => [item.agent, String(item.balance)])]);
    notEnforced(periscope, io);
    return EXIT_OK;
  }
  const known = (await periscope.credits.ledger(agent, { limit: 1 })).length > 0;
  if (!known && initial === undefined) {
    writeLine(
      io.stderr,
      `periscope: agent '${agent}' has no credit account (give it one with: periscope credits grant ${agent} N)`,
    );
    return EXIT_TOOL_ERROR;
  }
  const balance = known ? await periscope.credits.balance(agent) : (initial as number);
  if (values.json) writeLine(io.stdout, JSON.stringify({ agent, balance, started: known }, null, 2));
  else
    writeLine(
      io.stdout,
      known
        ? `${agent}: ${credits(balance)}`
        : `${agent}: no calls yet; starts with ${credits(balance)} (limits.credits.initial)`,
    );
  notEnforced(periscope, io);
  return EXIT_OK;
}

async function ledger(
  periscope: Periscope,
  agent: string,
  limit: number | undefined,
  values: Record<string, unknown>,
  io: CliIo,
): Promise<number> {
  const entries: LedgerEntry[] = await periscope.credits.ledger(agent, limit === undefined ? {} : { limit });
  if (entries.length === 0) {
    writeLine(io.stderr, `periscope: agent '${agent}' has no credit ledger (no grant or charge yet)`);
    return EXIT_TOOL_ERROR;
  }
  if (values.json) {
    writeLine(io.stdout, JSON.stringify(entries, null, 2));
    return EXIT_OK;
  }
  writeTable(io, [
    ['at', 'change', 'balance', 'reason', 'tool'],
    ...entries.map((entry) => [
      entry.at,
      entry.delta > 0 ? `+${entry.delta}` : String(entry.delta),
      String(entry.balanceAfter),
      entry.reason,
      entry.tool ?? '',
    ]),
  ]);
  return EXIT_OK;
}

function writeTable(io: CliIo, rows: string[][]): void {
  const widths = (rows[0] ?? []).map((_, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  );
  for (const row of rows)
    writeLine(
      io.stdout,
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}
