import type { ApiKeyInfo, Periscope, SessionBudget } from '../../../index.ts';
import { formatRate, type KeyDomains } from '../../../keys/api-keys.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { sessionCalls } from '../egress-flags.ts';
import { asUsageError } from '../flag-input.ts';
import { COMMON_FLAGS, integerFlag, numberFlag, type ParsedFlags, parseFlags } from '../flags.ts';
import { type CliIo, writeLine, writeTable } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';

export const KEYS_HELP = `Usage: periscope keys create --agent ID [--credits N] [--rate N/unit] [--allow-domain P…] [--block-domain P…]
                             [--session-max-calls TOOL=N…] [--session-max-credits N] [--admin] [--note TEXT]
       periscope keys list [--json]
       periscope keys revoke <id|psk_id>

API keys for 'periscope serve', kept in the store (config store.url) as SHA-256 hashes. Each key acts as its
agent: the agent's limits, credits and usage apply to every call made with it. 'create' prints the key once, on
stdout (KEY=$(periscope keys create --agent bot) keeps it); nothing can show it again. Once a key exists the gateway
requires one on every request, and may bind hosts other than 127.0.0.1.

Options:
  --agent ID        the agent the key acts as (letters, digits, . _ : @ -)
  --credits N       grant the agent N credits now (a ledger entry; the agent's, shared by its keys)
  --rate N/unit     this key's own rate limit, e.g. 60/min, 1000/hour (over it the gateway answers 429)
  --allow-domain P  the key's calls reach only these domains (repeatable: example.com, *.example.com, =host);
                    narrows the config's egress.domains.allow, never widens it
  --block-domain P  the key's calls never reach these domains (repeatable), on top of egress.domains.block
  --session-max-calls TOOL=N  calls of TOOL one session of this key may make (repeatable: web_fetch=20);
                    the tighter of it and limits.session.maxCalls holds
  --session-max-credits N  credits one session of this key may spend (the tighter of it and limits.session)
  --admin           may create and revoke keys and grant credits over HTTP (/v1/admin/…)
  --note TEXT       a label shown by 'keys list' (up to 200 characters; longer is cut)
  --json            print JSON
  --config FILE     config file (its store.url is where keys live)
  -h, --help        this help`;

const FLAGS = {
  ...COMMON_FLAGS,
  agent: { type: 'string' },
  credits: { type: 'string' },
  rate: { type: 'string' },
  'allow-domain': { type: 'string', multiple: true },
  'block-domain': { type: 'string', multiple: true },
  'session-max-calls': { type: 'string', multiple: true },
  'session-max-credits': { type: 'string' },
  admin: { type: 'boolean' },
  note: { type: 'string' },
} as const;

export async function keysCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('keys', argv, FLAGS);
  const [action, ...rest] = positionals;
  if (values.help) {
    writeLine(io.stdout, KEYS_HELP);
    return EXIT_OK;
  }
  if (action === undefined) {
    throw new UsageError("keys needs an action: create, list or revoke (see 'periscope keys --help')");
  }
  if (!['create', 'list', 'revoke'].includes(action)) {
    throw new UsageError(`unknown keys action '${action}'; actions are create, list, revoke`);
  }
  const { periscope } = openPeriscope(io, values);
  try {
    if (action === 'create') return await create(periscope, values, rest, io);
    if (action === 'list') return await list(periscope, values.json === true, rest, io);
    return await revoke(periscope, rest, io, values.json === true);
  } catch (error) {
    throw asUsageError(error, CREATE_FLAGS, values);
  } finally {
    await periscope.close();
  }
}

/** The flag that sets each field of a key, for usage messages. */
const CREATE_FLAGS = {
  agent: '--agent',
  credits: '--credits',
  rate: '--rate',
  note: '--note',
  allowDomains: '--allow-domain',
  blockDomains: '--block-domain',
};

async function create(periscope: Periscope, values: ParsedFlags, rest: string[], io: CliIo): Promise<number> {
  if (rest.length > 0) throw new UsageError(`keys create takes no arguments, got '${rest.join(' ')}'`);
  if (typeof values.agent !== 'string') throw new UsageError('keys create needs --agent ID');
  const credits = numberFlag(values, 'credits');
  const session = keySession(values);
  const { key, record, balance } = await periscope.keys.create({
    agent: values.agent,
    admin: values.admin === true,
    // The key operation judges these (a whole number ≥ 0, a rate such as 60/min); the CLI names the flag.
    ...(credits === undefined ? {} : { credits: credits as number }),
    ...(typeof values.rate === 'string' ? { rate: values.rate } : {}),
    ...(Array.isArray(values['allow-domain']) ? { allowDomains: values['allow-domain'] } : {}),
    ...(Array.isArray(values['block-domain']) ? { blockDomains: values['block-domain'] } : {}),
    ...(session ? { session } : {}),
    ...(typeof values.note === 'string' ? { note: values.note } : {}),
  });
  const { location } = await periscope.store();
  if (values.json) {
    writeLine(
      io.stdout,
      JSON.stringify({ key, ...record, ...(balance === undefined ? {} : { balance }) }, null, 2),
    );
    return EXIT_OK;
  }
  writeLine(io.stdout, key);
  const extras = [
    record.admin ? 'admin' : undefined,
    record.rate ? `rate ${formatRate(record.rate)}` : undefined,
    record.domains ? describeKeyDomains(record.domains) : undefined,
    record.session ? describeKeySession(record.session) : undefined,
    balance === undefined ? undefined : `agent balance ${balance} credits`,
  ].filter(Boolean);
  writeLine(
    io.stderr,
    `created key ${record.id} for agent ${record.agent}${extras.length ? ` (${extras.join(', ')})` : ''} in ${location}; it is shown only now`,
  );
  if (balance !== undefined && !periscope.config.limits.credits.enabled) {
    writeLine(
      io.stderr,
      'note: limits.credits.enabled is false in this config: the balance is kept, but calls do not spend it',
    );
  }
  return EXIT_OK;
}

async function list(periscope: Periscope, json: boolean, rest: string[], io: CliIo): Promise<number> {
  if (rest.length > 0) throw new UsageError(`keys list takes no arguments, got '${rest.join(' ')}'`);
  const keys = await periscope.keys.list();
  if (json) {
    writeLine(io.stdout, JSON.stringify(keys, null, 2));
    return EXIT_OK;
  }
  if (keys.length === 0) {
    writeLine(
      io.stdout,
      `no API keys in ${(await periscope.store()).location}; create one with 'periscope keys create --agent ID'`,
    );
    return EXIT_OK;
  }
  const rows = [
    ['id', 'agent', 'admin', 'rate', 'domains', 'session budget', 'created', 'status', 'note'],
    ...keys.map((key: ApiKeyInfo) => [
      key.id,
      key.agent,
      key.admin ? 'yes' : '',
      key.rate ? formatRate(key.rate) : '',
      key.domains ? describeKeyDomains(key.domains) : '',
      key.session ? describeKeySession(key.session) : '',
      key.createdAt.slice(0, 19).replace('T', ' '),
      key.revokedAt ? `revoked ${key.revokedAt.slice(0, 19).replace('T', ' ')}` : 'active',
      key.note ?? '',
    ]),
  ];
  writeTable(io.stdout, rows);
  return EXIT_OK;
}

async function revoke(periscope: Periscope, rest: string[], io: CliIo, json: boolean): Promise<number> {
  if (rest.length !== 1 || rest[0] === undefined) {
    throw new UsageError('keys revoke needs one key id (see periscope keys list)');
  }
  const id = rest[0] as string;
  // Revoking twice changes nothing and says so: the record keeps its first revokedAt.
  const wasRevoked = (await periscope.keys.list()).some((key) => key.id === id && key.revokedAt);
  const record = await periscope.keys.revoke(id);
  if (json) {
    writeLine(io.stdout, JSON.stringify(record, null, 2));
  } else {
    const what = wasRevoked ? 'already revoked' : 'revoked';
    writeLine(io.stdout, `${what} key ${record.id} (agent ${record.agent}) at ${record.revokedAt}`);
  }
  return EXIT_OK;
}

/** `only example.com, docs.python.org; not ads.example.com` */
function describeKeyDomains(domains: KeyDomains): string {
  const parts = [
    domains.allow?.length ? `only ${domains.allow.join(', ')}` : undefined,
    domains.block?.length ? `not ${domains.block.join(', ')}` : undefined,
  ];
  return parts.filter(Boolean).join('; ');
}

/** `--session-max-calls` / `--session-max-credits`: the key's session budget, or undefined when neither is given. */
function keySession(values: ParsedFlags): SessionBudget | undefined {
  const maxCalls = sessionCalls(values);
  const maxCredits = integerFlag(values, 'session-max-credits', 0);
  if (maxCalls === undefined && maxCredits === undefined) return undefined;
  return { ...(maxCalls ? { maxCalls } : {}), ...(maxCredits === undefined ? {} : { maxCredits }) };
}

/** `web_fetch 20, web_search 5, 100 credits per session` */
function describeKeySession(session: SessionBudget): string {
  const parts = [
    ...Object.entries(session.maxCalls ?? {}).map(([tool, calls]) => `${tool} ${calls}`),
    ...(session.maxCredits === undefined ? [] : [`${session.maxCredits} credits`]),
  ];
  return `${parts.join(', ')} per session`;
}
