import { allowsHost, compileRules } from '../egress/domain-rules.ts';
import { type DomainPattern, parseDomainPattern } from '../net/domain-pattern.ts';
import { queryTooLong } from './chain-errors.ts';
import type { SearchDomains, SearchProvider } from './types.ts';

/**
 * What a provider's own filter can be told: domains results may come from (each covering its subdomains, so
 * `*.x.com` is asked as `x.com` and the chain drops `x.com` itself afterwards), and domains to leave out (only whole
 * domains: leaving out `x.com` for a block of `*.x.com` or `=x.com` would lose results the rules keep).
 */
export function siteDomains(domains: SearchDomains): { include: string[]; exclude: string[] } {
  const parsed = (texts: readonly string[]) =>
    texts.map(parseDomainPattern).filter((pattern): pattern is DomainPattern => !('error' in pattern));
  const include = parsed(domains.allow).map((pattern) => pattern.domain);
  const exclude = parsed(domains.block)
    .filter((pattern) => pattern.mode === 'tree')
    .map((pattern) => pattern.domain);
  return { include: [...new Set(include)], exclude: [...new Set(exclude)] };
}

/** At most this many `site:` operators are written into a query (engines cap operators and query length). */
const MAX_SITE_OPERATORS = 10;

/**
 * The query with `site:` / `-site:` operators for the domains (`q (site:a.com OR site:b.org) -site:c.net`), or
 * undefined when they do not fit: more than MAX_SITE_OPERATORS, or over the provider's query limit for the kind.
 */
export function withSiteOperators(
  provider: SearchProvider,
  kind: 'web' | 'images',
  query: string,
  domains: SearchDomains,
): string | undefined {
  const { include, exclude } = siteDomains(domains);
  if (include.length + exclude.length === 0) return query;
  if (include.length + exclude.length > MAX_SITE_OPERATORS) return undefined;
  const sites = include.map((domain) => `site:${domain}`);
  const parts = [query];
  if (sites.length === 1) parts.push(sites[0] as string);
  else if (sites.length > 1) parts.push(`(${sites.join(' OR ')})`);
  for (const domain of exclude) parts.push(`-site:${domain}`);
  const written = parts.join(' ');
  return queryTooLong(provider, kind, written) === undefined ? written : undefined;
}

/** Whether a result URL passes the domain rules (an unreadable URL does not: the chain would drop it anyway). */
export function createResultFilter(domains: SearchDomains): (url: unknown) => boolean {
  const rules = compileRules({ allow: domains.allow, block: domains.block });
  return (url) => {
    const parsed = typeof url === 'string' ? URL.parse(url) : null;
    return parsed !== null && allowsHost(rules, parsed.hostname);
  };
}

/** The rules as given, for messages: `example.com, *.docs.org`. */
export function describeDomains(domains: SearchDomains): string {
  const allow = domains.allow.length > 0 ? `only ${domains.allow.join(', ')}` : '';
  const block = domains.block.length > 0 ? `not ${domains.block.join(', ')}` : '';
  return [allow, block].filter((part) => part !== '').join('; ');
}

/**
 * A provider's own include/exclude parameters for the domains (`{ include_domains, exclude_domains }` for Tavily),
 * each only when not empty; nothing when there are no domains.
 */
export function domainParams(
  domains: SearchDomains | undefined,
  names: { include: string; exclude: string },
): Record<string, string[]> {
  if (domains === undefined) return {};
  const { include, exclude } = siteDomains(domains);
  return {
    ...(include.length > 0 ? { [names.include]: include } : {}),
    ...(exclude.length > 0 ? { [names.exclude]: exclude } : {}),
  };
}

/**
 * The one site a provider that takes a single `site` can be told (InfoQuest `site`, Jina `X-Site`, Google CSE
 * `siteSearch`): the only allowed domain, or (`canExclude`) the only blocked one; else undefined and a warning that
 * it cannot filter by these domains itself.
 */
export function oneSite(
  provider: string,
  domains: SearchDomains | undefined,
  canExclude = false,
): { site?: { domain: string; exclude: boolean }; warnings: string[] } {
  if (domains === undefined) return { warnings: [] };
  const { include, exclude } = siteDomains(domains);
  if (include.length === 1 && (exclude.length === 0 || !canExclude))
    return { site: { domain: include[0] as string, exclude: false }, warnings: [] };
  if (include.length === 0 && exclude.length === 1 && canExclude)
    return { site: { domain: exclude[0] as string, exclude: true }, warnings: [] };
  if (include.length === 0 && exclude.length === 0) return { warnings: [] };
  return {
    warnings: [
      `${provider} can filter by one site only, not by ${describeDomains(domains)}; results are kept to the domains after it answers`,
    ],
  };
}
