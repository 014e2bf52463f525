import { loadConfig } from '../../../config/load-config.ts';
import { isPeriscopeError } from '../../../errors.ts';
import { openStore } from '../../../store/open-store.ts';
import type { Store } from '../../../store/store.ts';
import {
  type ApiKeyRecord,
  createApiKey,
  formatRate,
  listApiKeys,
  parseRate,
  revokeApiKey,
} from '../../gateway/api-keys.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, integerFlag, parseFlags } from '../flags.ts';
import { type CliIo, writeLine, writeTable } from '../io.ts';

export const KEYS_HELP = `Usage: periscope keys create --agent ID [--credits N] [--rate N/unit] [--admin] [--note TEXT]
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
  --admin           may create and revoke keys and grant credits over HTTP (/v1/admin/…)
  --note TEXT       a label shown by 'keys list'
  --json            print JSON
  --config FILE     config file (its store.url is where keys live)
  -h, --help        this help`;

const FLAGS = {
  ...COMMON_FLAGS,
  agent: { type: 'string' },
  credits: { type: 'string' },
  rate: { type: 'string' },
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
  const { config } = loadConfig({
    configPath: typeof values.config === 'string' ? values.config : undefined,
    env: io.env,
    cwd: io.cwd,
  });
  const store = await openStore(config.store.url);
  try {
    if (action === 'create') {
      return await create(store, values, rest, io, config.limits.credits.enabled);
    }
    if (action === 'list') return await list(store, values.json === true, rest, io);
    return await revoke(store, rest, io, values.json === true);
  } finally {
    await store.close();
  }
}

async function create(
  store: Store,
  values: ReturnType<typeof parseFlags>['values'],
  rest: string[],
  io: CliIo,
  creditsEnforced: boolean,
): Promise<number> {
  if (rest.length > 0) throw new UsageError(`keys create takes no arguments, got '${rest.join(' ')}'`);
  if (typeof values.agent !== 'string') throw new UsageError('keys create needs --agent ID');
  const credits = integerFlag(values, 'credits', 0);
  const rate =
    typeof values.rate === 'string' ? await usage(() => parseRate(values.rate as string)) : undefined;
  const { key, record } = await usage(() =>
    createApiKey(store, {
      agent: values.agent as string,
      admin: values.admin === true,
      ...(rate ? { rate } : {}),
      ...(typeof values.note === 'string' ? { note: values.note } : {}),
    }),
  );
  const balance =
    credits === undefined || credits === 0
      ? undefined
      : (
          await store.ledgerApply(record.agent, {
            delta: credits,
            reason: 'grant',
            requireNonNegative: false,
          })
        ).balance;
  if (values.json) {
    const { hash: _hash, ...shown } = record;
    writeLine(
      io.stdout,
      JSON.stringify({ key, ...shown, ...(balance === undefined ? {} : { balance }) }, null, 2),
    );
    return EXIT_OK;
  }
  writeLine(io.stdout, key);
  const extras = [
    record.admin ? 'admin' : undefined,
    record.rate ? `rate ${formatRate(record.rate)}` : undefined,
    balance === undefined ? undefined : `agent balance ${balance} credits`,
  ].filter(Boolean);
  writeLine(
    io.stderr,
    `created key ${record.id} for agent ${record.agent}${extras.length ? ` (${extras.join(', ')})` : ''} in ${store.location}; it is shown only now`,
  );
  if (balance !== undefined && !creditsEnforced) {
    writeLine(
      io.stderr,
      'note: limits.credits.enabled is false in this config: the balance is kept, but calls do not spend it',
    );
  }
  return EXIT_OK;
}

async function list(store: Store, json: boolean, rest: string[], io: CliIo): Promise<number> {
  if (rest.length > 0) throw new UsageError(`keys list takes no arguments, got '${rest.join(' ')}'`);
  const keys = await listApiKeys(store);
  if (json) {
    writeLine(
      io.stdout,
      JSON.stringify(
        keys.map(({ hash: _hash, ...shown }) => shown),
        null,
        2,
      ),
    );
    return EXIT_OK;
  }
  if (keys.length === 0) {
    writeLine(
      io.stdout,
      `no API keys in ${store.location}; create one with 'periscope keys create --agent ID'`,
    );
    return EXIT_OK;
  }
  const rows = [
    ['id', 'agent', 'admin', 'rate', 'created', 'status', 'note'],
    ...keys.map((key: ApiKeyRecord) => [
      key.id,
      key.agent,
      key.admin ? 'yes' : '',
      key.rate ? formatRate(key.rate) : '',
      key.createdAt.slice(0, 19).replace('T', ' '),
      key.revokedAt ? `revoked ${key.revokedAt.slice(0, 19).replace('T', ' ')}` : 'active',
      key.note ?? '',
    ]),
  ];
  writeTable(io.stdout, rows);
  return EXIT_OK;
}

async function revoke(store: Store, rest: string[], io: CliIo, json: boolean): Promise<number> {
  if (rest.length !== 1 || rest[0] === undefined) {
    throw new UsageError('keys revoke needs one key id (see periscope keys list)');
  }
  const record = await usage(() => revokeApiKey(store, rest[0] as string));
  if (json) {
    const { hash: _hash, ...shown } = record;
    writeLine(io.stdout, JSON.stringify(shown, null, 2));
  } else {
    writeLine(io.stdout, `revoked key ${record.id} (agent ${record.agent}) at ${record.revokedAt}`);
  }
  return EXIT_OK;
}

/** INVALID_INPUT from the key functions is a usage mistake (exit 2). */
async function usage<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isPeriscopeError(error) && error.code === 'INVALID_INPUT') throw new UsageError(error.message);
    throw error;
  }
}
