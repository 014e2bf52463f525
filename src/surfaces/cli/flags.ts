import { type ParseArgsConfig, parseArgs } from 'node:util';
import { parseAllowListEntry } from '../../net/allow-list.ts';
import { parseDnsServer } from '../../net/pinned-lookup.ts';
import { parseProxyUrl } from '../../net/proxy.ts';
import { UsageError } from './cli-error.ts';

export type FlagSpec = NonNullable<ParseArgsConfig['options']>;

/** Flags every command takes. */
export const COMMON_FLAGS = {
  config: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies FlagSpec;

/** `--agent ID`: the principal a tool call's limits, credits and usage belong to. */
export const AGENT_FLAG = { agent: { type: 'string' } } as const satisfies FlagSpec;

/** The agent id a CLI call acts as. */
export const CLI_AGENT_ID = 'cli';

export const AGENT_FLAG_HELP =
  '  --agent ID              the agent whose limits, credits and usage apply (default cli)';

/** `--agent`, checked, or `cli`. */
export function agentFlag(values: ParsedFlags): string {
  const raw = values.agent;
  if (raw === undefined) return CLI_AGENT_ID;
  const agent = String(raw).trim();
  if (agent === '' || agent.length > 200 || /\p{Cc}/u.test(agent))
    throw new UsageError(`--agent expects an id of 1–200 characters, got '${String(raw)}'`);
  return agent;
}

/** Network limits: each flag is the twin of a `network.*` config key. */
export const NETWORK_FLAGS = {
  'allow-private-network': { type: 'string', multiple: true },
  'total-timeout-ms': { type: 'string' },
  /** Former name of --total-timeout-ms, still accepted. */
  'timeout-ms': { type: 'string' },
  'connect-timeout-ms': { type: 'string' },
  'headers-timeout-ms': { type: 'string' },
  'body-timeout-ms': { type: 'string' },
  'max-bytes': { type: 'string' },
  'max-header-bytes': { type: 'string' },
  'max-redirects': { type: 'string' },
  proxy: { type: 'string' },
  'no-proxy': { type: 'string' },
  'dns-server': { type: 'string' },
  'dns-timeout-ms': { type: 'string' },
  'dns-tries': { type: 'string' },
  'user-agent': { type: 'string' },
} as const satisfies FlagSpec;

export const NETWORK_FLAGS_HELP = `Network (each flag overrides the config key network.<camelCase name>):
  --allow-private-network <cidr|host>  open a private range or host (repeatable)
  --total-timeout-ms N    whole call, redirects included (default 30000; --timeout-ms N, its former name, works)
  --connect-timeout-ms N  connect, per hop (default 10000)
  --headers-timeout-ms N  waiting for response headers (default 15000)
  --body-timeout-ms N     longest silence while reading the body (default 15000)
  --max-bytes N           body bytes after decompression (default 10000000)
  --max-header-bytes N    response head size (default 65536)
  --max-redirects N       redirects followed (default 5)
  --proxy URL             http://host:port or socks5://host:port (default: HTTPS_PROXY/HTTP_PROXY/ALL_PROXY)
  --no-proxy LIST         hosts that bypass the proxy (default: NO_PROXY)
  --dns-server IP[:PORT]  ask this DNS server (an IP address, port 53 by default) instead of the system resolver
  --dns-timeout-ms N      one DNS query's wait before it is sent again (default 2000)
  --dns-tries N           times a query to --dns-server is sent (default 2)
  --user-agent TEXT       User-Agent header`;

export type ParsedFlags = Record<string, string | boolean | string[] | undefined>;

/** Parse argv for one command; an unknown flag or a missing value is a UsageError naming the command's help. */
export function parseFlags(
  command: string,
  argv: string[],
  flags: FlagSpec,
): { values: ParsedFlags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: joinNegativeValues(argv, flags),
      options: flags,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedFlags, positionals };
  } catch (error) {
    const ambiguous = /^Option '(-[^']+)' argument is ambiguous/.exec((error as Error).message);
    const message = ambiguous
      ? `${ambiguous[1]} needs a value; for a value that starts with a dash write ${ambiguous[1]}=VALUE`
      : ((error as Error).message.split('\n')[0]?.replace(/\. To specify a positional.*$/, '') ??
        'bad arguments');
    throw new UsageError(`${message}; see 'periscope ${command} --help'`);
  }
}

/**
 * `--max-redirects -1` → `--max-redirects=-1`: parseArgs refuses a separate value that starts with a dash as
 * "ambiguous", so a negative number is joined to its flag and reaches the flag's own check (flag and range named).
 */
function joinNegativeValues(argv: readonly string[], flags: FlagSpec): string[] {
  const joined: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index] as string;
    const next = argv[index + 1];
    if (arg === '--') {
      joined.push(...argv.slice(index));
      break;
    }
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name !== undefined && flags[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      index += 1;
    } else joined.push(arg);
  }
  return joined;
}

/** A flag that must be a whole number ≥ minimum; the message names the flag and the range. */
export function integerFlag(values: ParsedFlags, name: string, minimum = 0): number | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).replace(/_/g, '');
  const value = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < minimum) {
    throw new UsageError(`--${name} expects a whole number ≥ ${minimum}, got '${raw}'`);
  }
  return value;
}

/**
 * A number flag as given, for the schema that judges it (a tool's, the key operations'): the number, or the text
 * itself when it is not one (the schema then says a whole number was expected). `1_000` is 1000.
 */
export function numberFlag(values: ParsedFlags, name: string): number | string | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).replace(/_/g, '');
  const value = Number(text);
  return text.trim() === '' || Number.isNaN(value) ? String(raw) : value;
}

/**
 * A flag's value (each, when repeated) checked by the parser the config's key goes through, so that a mistake is a
 * usage line naming the flag and what it takes, not the config key it sets.
 */
export function checkedFlag(
  values: ParsedFlags,
  name: string,
  parse: (text: string) => unknown,
  takes: string,
): ParsedFlags[string] {
  const given = values[name];
  for (const text of Array.isArray(given) ? given : typeof given === 'string' ? [given] : []) {
    try {
      parse(text);
    } catch {
      throw new UsageError(`--${name} expects ${takes}, got '${text}'`);
    }
  }
  return given;
}

/** `--dns-server`, checked here so that its mistake names the flag: an IP address with an optional port. */
function dnsServerFlag(values: ParsedFlags): string | undefined {
  const server = values['dns-server'];
  if (typeof server !== 'string') return undefined;
  try {
    parseDnsServer(server);
  } catch {
    throw new UsageError(
      `--dns-server expects an IP address with an optional port (9.9.9.9, 9.9.9.9:5353, [2620:fe::fe]:53), got '${server}': a host name cannot be used`,
    );
  }
  return server;
}

/** The `network` part of the config that the flags given override. */
export function networkOverrides(values: ParsedFlags): Record<string, unknown> {
  const network: Record<string, unknown> = {
    allowPrivateNetwork: checkedFlag(
      values,
      'allow-private-network',
      parseAllowListEntry,
      'a CIDR (10.0.0.0/8), an address (127.0.0.1) or a host name (localhost)',
    ),
    totalTimeoutMs: integerFlag(values, 'total-timeout-ms', 1) ?? integerFlag(values, 'timeout-ms', 1),
    connectTimeoutMs: integerFlag(values, 'connect-timeout-ms', 1),
    headersTimeoutMs: integerFlag(values, 'headers-timeout-ms', 1),
    bodyTimeoutMs: integerFlag(values, 'body-timeout-ms', 1),
    maxBytes: integerFlag(values, 'max-bytes', 1),
    maxHeaderBytes: integerFlag(values, 'max-header-bytes', 1),
    maxRedirects: integerFlag(values, 'max-redirects', 0),
    proxy: checkedFlag(
      values,
      'proxy',
      parseProxyUrl,
      'http://host:port, https://host:port, socks5://host:port or socks5h://host:port',
    ),
    noProxy: values['no-proxy'],
    dnsServer: dnsServerFlag(values),
    dnsTimeoutMs: integerFlag(values, 'dns-timeout-ms', 1),
    dnsTries: integerFlag(values, 'dns-tries', 1),
    userAgent: values['user-agent'],
  };
  for (const key of Object.keys(network)) if (network[key] === undefined) delete network[key];
  return network;
}

/**
 * The one URL a command takes as its argument, or a usage error: `usage` is shown when it is missing
 * (`periscope fetch <url>`), `hint` when there are several (how to quote).
 */
export function oneUrl(
  positionals: readonly string[],
  command: string,
  usage: string,
  hint = 'quote URLs that contain spaces',
): string {
  if (positionals.length === 0)
    throw new UsageError(`missing URL; usage: ${usage} (see 'periscope ${command} --help')`);
  if (positionals.length > 1) throw new UsageError(`expected one URL, got ${positionals.length}; ${hint}`);
  return positionals[0] as string;
}
