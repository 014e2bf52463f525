import type { EgressConfig } from '../config/egress-schema.ts';
import { parseCallerUrl } from '../net/caller-url.ts';
import {
  type DomainPattern,
  matchesDomain,
  normaliseHost,
  parseDomainPattern,
} from '../net/domain-pattern.ts';
import {
  compileRules,
  type DomainLayer,
  type DomainRules,
  intersectRules,
  listPatterns,
  NO_RULES,
  refusal,
} from './domain-rules.ts';
import type { EgressCall, EgressCheck, EgressDenial, EgressPurpose } from './egress-check.ts';

/** The deployment's domain policy (`egress.domains`), compiled once. */
export interface DomainPolicy {
  /** `allow` and `block`. */
  operator: DomainRules;
  /** Domains a browser page may load sub-resources from besides the allowed ones. */
  assets: readonly DomainPattern[];
}

/** `egress.domains` → the policy (the schema has checked every pattern). */
export function createDomainPolicy(domains: EgressConfig['domains']): DomainPolicy {
  const operator = compileRules(domains, 'CONFIG_INVALID', 'egress.domains');
  const assets = compileRules({ allow: domains.assets }, 'CONFIG_INVALID', 'egress.domains.assets').allow;
  return { operator, assets: assets ?? [] };
}

/** The tools whose input narrows the domains (`allowedDomains`, `blockedDomains`). */
const SEARCH_TOOLS: ReadonlySet<string> = new Set(['web_search', 'image_search']);

/**
 * The layers one call is under, narrowest last: the deployment's, the caller's (an API key's: `egress.domains` of
 * the execute options), the call's own (web_search / image_search `allowedDomains`, `blockedDomains`). A host must
 * pass every one, so a key or a call can only narrow. A malformed caller or call pattern is INVALID_INPUT.
 */
export function callLayers(policy: DomainPolicy, call: EgressCall): DomainLayer[] {
  const layers: DomainLayer[] = [{ name: 'the deployment', rules: policy.operator }];
  const caller = call.options.domains;
  if (caller)
    layers.push({ name: 'this API key', rules: compileRules(caller, 'INVALID_INPUT', 'egress.domains') });
  if (SEARCH_TOOLS.has(call.tool)) {
    const allow = stringList(call.input.allowedDomains);
    const block = stringList(call.input.blockedDomains);
    if (allow || block)
      layers.push({ name: 'this call', rules: compileRules({ allow, block }, 'INVALID_INPUT', 'input') });
  }
  return layers;
}

/** Every layer of the call as one (what a search provider is asked to filter by, and results are kept by). */
export function callRules(policy: DomainPolicy, call: EgressCall): DomainRules {
  return callLayers(policy, call).reduce((rules, layer) => intersectRules(rules, layer.rules), NO_RULES);
}

const REQUEST_LABELS: Record<EgressPurpose, string> = {
  page: 'web_fetch',
  redirect: 'the redirect to',
  navigation: 'the page moved on to',
  subresource: 'a sub-request of the page to',
  reader: 'the reader service for',
};

/**
 * The domain rule (issue 17): web_fetch's URL, every hop, navigation and reader URL must pass every layer; a
 * browser sub-request may also come from an asset domain (`egress.domains.assets`, the operator's exception to
 * its own lists) unless the key or the call blocks it; a search whose layers leave no domain is refused before it
 * is sent (its results are filtered by the search chain with `callRules`).
 */
export function createDomainCheck(policy: DomainPolicy): EgressCheck {
  return {
    name: 'domain',
    checkCall(call) {
      const layers = callLayers(policy, call);
      if (call.tool === 'web_fetch') {
        // Many URLs (`urls`): a call naming any refused domain is refused whole, before anything is sent.
        for (const url of fetchUrlsOf(call.input)) {
          const host = hostOf(url);
          const denial = host === undefined ? undefined : refuseHost(layers, host, 'page');
          if (denial) return denial;
        }
        return undefined;
      }
      if (!SEARCH_TOOLS.has(call.tool) || (layers.length === 1 && policy.operator.allow === undefined))
        return undefined;
      const rules = layers.reduce((all, layer) => intersectRules(all, layer.rules), NO_RULES);
      if (rules.allow === undefined || rules.allow.length > 0) return undefined;
      const lists = layers
        .filter((layer) => layer.rules.allow !== undefined)
        .map((layer) => `${layer.name} allows only ${listPatterns(layer.rules.allow ?? [])}`);
      return {
        reason: 'domain',
        message: `${call.tool} has no domain left to search: ${lists.join('; ')}${layers.some((layer) => layer.rules.block.length > 0) ? '; the blocks cover the rest' : ''}`,
        details: { layers: layers.map((layer) => layer.name) },
      };
    },
    checkRequest(request, call) {
      const layers = callLayers(policy, call);
      const host = request.url.hostname;
      if (request.purpose === 'subresource' && isAsset(policy, layers, host)) return undefined;
      return refuseHost(layers, host, request.purpose);
    },
  };
}

function refuseHost(
  layers: readonly DomainLayer[],
  hostname: string,
  purpose: EgressPurpose,
): EgressDenial | undefined {
  for (const layer of layers) {
    const why = refusal(layer, hostname);
    if (why === undefined) continue;
    const host = normaliseHost(hostname);
    return {
      reason: 'domain',
      message: `${REQUEST_LABELS[purpose]} ${host} was refused: ${why}`,
      details: { host, purpose, layer: layer.name },
    };
  }
  return undefined;
}

/** An asset domain, which no key or call blocks. */
function isAsset(policy: DomainPolicy, layers: readonly DomainLayer[], hostname: string): boolean {
  const host = normaliseHost(hostname);
  if (!policy.assets.some((pattern) => matchesDomain(pattern, host))) return false;
  return layers
    .filter((layer) => layer.name !== 'the deployment')
    .every((layer) => !layer.rules.block.some((pattern) => matchesDomain(pattern, host)));
}

/** The host of a URL as web_fetch reads it (a bare `example.com/page` is https), or undefined when unreadable. */
/** web_fetch's URL, or each of its `urls`. */
function fetchUrlsOf(input: Readonly<Record<string, unknown>>): unknown[] {
  return Array.isArray(input.urls) ? input.urls : [input.url];
}

function hostOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = parseCallerUrl(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.hostname : undefined;
  } catch {
    return undefined; // web_fetch refuses it itself
  }
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

/** Whether a pattern text is valid (for input schemas): undefined, or the reason it is not. */
export function domainPatternIssue(text: string): string | undefined {
  const parsed = parseDomainPattern(text);
  return 'error' in parsed ? parsed.error : undefined;
}
