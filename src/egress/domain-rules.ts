import { PeriscopeError } from '../errors.ts';
import {
  coversPattern,
  type DomainPattern,
  formatDomainPattern,
  intersectPatterns,
  matchesDomain,
  normaliseHost,
  parseDomainPattern,
} from '../net/domain-pattern.ts';

/**
 * One layer of the domain policy (the deployment's, an API key's, a call's), or several intersected into one:
 * a host passes when it matches an allow pattern (or there is no allow list: `allow` undefined) and no block
 * pattern. An empty `allow` passes nothing (allow lists that have no domain in common).
 */
export interface DomainRules {
  allow: readonly DomainPattern[] | undefined;
  block: readonly DomainPattern[];
}

/** Whose rules these are, for messages: `the deployment` (config), `this API key`, `this call`. */
export type DomainLayerName = 'the deployment' | 'this API key' | 'this call';

export interface DomainLayer {
  name: DomainLayerName;
  rules: DomainRules;
}

export const NO_RULES: DomainRules = { allow: undefined, block: [] };

/**
 * Patterns → rules; an empty or missing allow list is no allow list. A bad pattern is `code` (CONFIG_INVALID for
 * the config, INVALID_INPUT for a caller's or a call's), naming the field.
 */
export function compileRules(
  lists: { allow?: readonly string[] | undefined; block?: readonly string[] | undefined },
  code: 'CONFIG_INVALID' | 'INVALID_INPUT' = 'INVALID_INPUT',
  field = 'domains',
): DomainRules {
  const parse = (texts: readonly string[] | undefined, name: string) =>
    (texts ?? []).map((text) => {
      const parsed = parseDomainPattern(text);
      if ('error' in parsed)
        throw new PeriscopeError(code, `${field}.${name}: ${parsed.error}`, {
          details: { field: `${field}.${name}` },
        });
      return parsed;
    });
  const allow = parse(lists.allow, 'allow');
  return { allow: allow.length === 0 ? undefined : allow, block: parse(lists.block, 'block') };
}

export function isEmptyRules(rules: DomainRules): boolean {
  return rules.allow === undefined && rules.block.length === 0;
}

/** The hosts both layers pass, as one layer (exact: domain patterns are nested or disjoint). */
export function intersectRules(a: DomainRules, b: DomainRules): DomainRules {
  let allow: DomainPattern[] | undefined;
  if (a.allow === undefined) allow = b.allow === undefined ? undefined : [...b.allow];
  else if (b.allow === undefined) allow = [...a.allow];
  else {
    allow = [];
    for (const left of a.allow)
      for (const right of b.allow) {
        const both = intersectPatterns(left, right);
        if (both) allow.push(both);
      }
  }
  const block = withoutCovered([...a.block, ...b.block]);
  if (allow === undefined) return { allow, block };
  const reachable = withoutCovered(allow).filter(
    (pattern) => !block.some((blocked) => coversPattern(blocked, pattern)),
  );
  // Blocks that cannot meet an allowed host say nothing more.
  const relevant = block.filter((blocked) =>
    reachable.some((allowed) => intersectPatterns(allowed, blocked)),
  );
  return { allow: reachable, block: relevant };
}

/** Whether the rules let a URL's host through. */
export function allowsHost(rules: DomainRules, hostname: string): boolean {
  const host = normaliseHost(hostname);
  if (rules.block.some((pattern) => matchesDomain(pattern, host))) return false;
  return rules.allow === undefined || rules.allow.some((pattern) => matchesDomain(pattern, host));
}

/** Why a layer refuses a host, or undefined when it passes it. */
export function refusal(layer: DomainLayer, hostname: string): string | undefined {
  const host = normaliseHost(hostname);
  const blocked = layer.rules.block.find((pattern) => matchesDomain(pattern, host));
  if (blocked) return `${layer.name} blocks ${formatDomainPattern(blocked)}`;
  const { allow } = layer.rules;
  if (allow === undefined || allow.some((pattern) => matchesDomain(pattern, host))) return undefined;
  return allow.length === 0
    ? `${layer.name} allows no domain`
    : `${layer.name} allows only ${listPatterns(allow)}`;
}

/** `a.com, *.b.org, =www.c.net` (at most `max`, then `and N more`). */
export function listPatterns(patterns: readonly DomainPattern[], max = 8): string {
  const shown = patterns.slice(0, max).map(formatDomainPattern);
  const more = patterns.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** The rules as pattern strings (the form config, keys and calls give them in), for passing on. */
export function rulesToLists(rules: DomainRules): { allow: string[]; block: string[] } {
  // An empty allow list means "any domain" once written out: rules that pass nothing are refused before this.
  if (rules.allow !== undefined && rules.allow.length === 0)
    throw new PeriscopeError('POLICY_DENIED', 'no domain is allowed', { details: { reason: 'domain' } });
  return { allow: (rules.allow ?? []).map(formatDomainPattern), block: rules.block.map(formatDomainPattern) };
}

/** Patterns that no other pattern in the list covers, without duplicates. */
function withoutCovered(patterns: readonly DomainPattern[]): DomainPattern[] {
  const kept: DomainPattern[] = [];
  for (const [index, pattern] of patterns.entries()) {
    const coveredByOther = patterns.some(
      (other, otherIndex) =>
        otherIndex !== index &&
        coversPattern(other, pattern) &&
        // Of two equal patterns, keep the first.
        !(coversPattern(pattern, other) && otherIndex > index),
    );
    if (!coveredByOther) kept.push(pattern);
  }
  return kept;
}
