import { domainPatternIssue } from '../../egress/domain-check.ts';
import { UsageError } from './cli-error.ts';
import { checkedFlag, type FlagSpec, integerFlag, type ParsedFlags } from './flags.ts';

/** Egress and session-budget flags: each is the twin of one `egress.*` or `limits.session.*` config key. */
export const EGRESS_FLAGS = {
  'allow-domain': { type: 'string', multiple: true },
  'block-domain': { type: 'string', multiple: true },
  'asset-domain': { type: 'string', multiple: true },
  'seen-urls-only': { type: 'boolean' },
  'secret-scan': { type: 'string' },
  'secret-scan-entropy': { type: 'string' },
  'session-max-calls': { type: 'string', multiple: true },
  'session-max-credits': { type: 'string' },
  'before-call-webhook': { type: 'string' },
  'before-call-webhook-timeout-ms': { type: 'string' },
  'before-call-webhook-on-failure': { type: 'string' },
  'before-call-webhook-header': { type: 'string', multiple: true },
} as const satisfies FlagSpec;

/**
 * The config key each flag sets (test/egress-flags.test.ts checks that every leaf of `egress` and `limits.session`
 * has one). `limits.session.maxCalls` is one flag, `--session-max-calls TOOL=N`, repeated per tool.
 */
export const EGRESS_FLAG_KEYS: Record<keyof typeof EGRESS_FLAGS, string> = {
  'allow-domain': 'egress.domains.allow',
  'block-domain': 'egress.domains.block',
  'asset-domain': 'egress.domains.assets',
  'seen-urls-only': 'egress.seenUrlsOnly',
  'secret-scan': 'egress.secretScan.enabled',
  'secret-scan-entropy': 'egress.secretScan.entropy',
  'session-max-calls': 'limits.session.maxCalls',
  'session-max-credits': 'limits.session.maxCredits',
  'before-call-webhook': 'egress.beforeCallWebhook.url',
  'before-call-webhook-timeout-ms': 'egress.beforeCallWebhook.timeoutMs',
  'before-call-webhook-on-failure': 'egress.beforeCallWebhook.onFailure',
  'before-call-webhook-header': 'egress.beforeCallWebhook.headers',
};

export const EGRESS_FLAGS_HELP = `Egress (each flag overrides its config key; see docs/config.md, egress and limits.session):
  --allow-domain PATTERN  only these domains (repeatable): example.com (and subdomains), *.example.com, =host
  --block-domain PATTERN  never these domains (repeatable); a block wins over an allow
  --asset-domain PATTERN  domains a browser page may load scripts and styles from besides the allowed ones
  --seen-urls-only        web_fetch only URLs that came from the task (search results, links read, the input)
  --secret-scan on|off    refuse queries and URLs that carry a secret (default on)
  --secret-scan-entropy on|off  also refuse long high-entropy tokens (default off)
  --session-max-calls TOOL=N  calls of TOOL one session may make (repeatable: web_fetch=20)
  --session-max-credits N credits one session may spend
  --before-call-webhook URL  ask this http(s) URL to allow or refuse each call before it runs (your approval service)
  --before-call-webhook-timeout-ms N  how long to wait for its answer (default 5000)
  --before-call-webhook-on-failure allow|deny  when it does not answer or fails (default deny)
  --before-call-webhook-header 'NAME: VALUE'  a header sent with each ask (repeatable)`;

const SESSION_TOOLS = ['web_fetch', 'web_search', 'image_search', 'verify_citation'];

/** The `egress` and `limits.session` parts of the config that the flags given override. */
export function egressOverrides(values: ParsedFlags): Record<string, unknown> {
  const domains = prune({
    allow: domainFlag(values, 'allow-domain'),
    block: domainFlag(values, 'block-domain'),
    assets: domainFlag(values, 'asset-domain'),
  });
  const secretScan = prune({
    enabled: onOff(values, 'secret-scan'),
    entropy: onOff(values, 'secret-scan-entropy'),
  });
  const beforeCallWebhook = prune({
    url: values['before-call-webhook'],
    timeoutMs: integerFlag(values, 'before-call-webhook-timeout-ms', 1),
    onFailure: allowDeny(values, 'before-call-webhook-on-failure'),
    headers: webhookHeaders(values),
  });
  const egress = prune({
    domains,
    seenUrlsOnly: values['seen-urls-only'] === true ? true : undefined,
    secretScan,
    beforeCallWebhook,
  });
  const session = prune({
    maxCalls: sessionCalls(values),
    maxCredits: integerFlag(values, 'session-max-credits', 0),
  });
  return prune({ egress, limits: session && { session } }) ?? {};
}

/** A repeatable domain-pattern flag, each value checked as egress.domains checks it. */
function domainFlag(values: ParsedFlags, name: string): ParsedFlags[string] {
  return checkedFlag(
    values,
    name,
    (text) => {
      const issue = domainPatternIssue(text);
      if (issue !== undefined) throw new Error(issue);
    },
    'a domain pattern (example.com, *.example.com or =www.example.com), not a URL',
  );
}

function onOff(values: ParsedFlags, name: string): boolean | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).trim().toLowerCase();
  if (text === 'on' || text === 'true') return true;
  if (text === 'off' || text === 'false') return false;
  throw new UsageError(`--${name} expects on or off, got '${String(raw)}'`);
}

function allowDeny(values: ParsedFlags, name: string): 'allow' | 'deny' | undefined {
  const raw = values[name];
  if (raw === undefined) return undefined;
  const text = String(raw).trim().toLowerCase();
  if (text === 'allow' || text === 'deny') return text;
  throw new UsageError(`--${name} expects allow or deny, got '${String(raw)}'`);
}

/** `--before-call-webhook-header 'Authorization: Bearer x'`, repeated: the headers map. */
function webhookHeaders(values: ParsedFlags): Record<string, string> | undefined {
  const given = values['before-call-webhook-header'];
  if (!Array.isArray(given)) return undefined;
  const headers: Record<string, string> = {};
  for (const entry of given) {
    const match = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*?)\s*$/.exec(entry);
    if (!match?.[1])
      throw new UsageError(`--before-call-webhook-header expects 'NAME: VALUE', got '${entry}'`);
    headers[match[1]] = match[2] ?? '';
  }
  return headers;
}

/** `--session-max-calls TOOL=N`, repeated: calls per tool (also `keys create`'s, for a key's budget). */
export function sessionCalls(values: ParsedFlags): Record<string, number> | undefined {
  const given = values['session-max-calls'];
  if (!Array.isArray(given)) return undefined;
  const calls: Record<string, number> = {};
  for (const entry of given) {
    const match = /^\s*([a-z_]+)\s*=\s*(\d[\d_]*)\s*$/.exec(entry);
    const tool = match?.[1];
    if (!match || tool === undefined || !SESSION_TOOLS.includes(tool))
      throw new UsageError(
        `--session-max-calls expects TOOL=N with TOOL one of ${SESSION_TOOLS.join(', ')}, got '${entry}'`,
      );
    calls[tool] = Number(match[2]?.replace(/_/g, ''));
  }
  return calls;
}

/** The object without its undefined entries, or undefined when none is left. */
function prune(record: Record<string, unknown>): Record<string, unknown> | undefined {
  const kept = Object.entries(record).filter(([, value]) => value !== undefined);
  return kept.length === 0 ? undefined : Object.fromEntries(kept);
}
