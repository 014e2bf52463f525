import type { EgressCall, EgressCheck } from './egress-check.ts';
import { knownSecrets } from './known-secrets.ts';
import { createSecretScanner } from './secret-scanner.ts';

export interface SecretCheckSettings {
  /** The validated config: its keys, header values and URL passwords are secrets to look for. */
  config: unknown;
  /** Its KEY/TOKEN/SECRET/PASSWORD variables are secrets to look for. */
  env: NodeJS.ProcessEnv;
  /** `egress.secretScan.entropy`. */
  entropy: boolean;
}

/**
 * `egress.secretScan`: what a call would send out is scanned before anything leaves (src/egress/secret-scanner.ts)
 * — every string of a web_search or image_search input (the query, and whatever else a provider may be sent), the
 * URL of web_fetch (which a reader service is handed too) and of verify_citation. A hit is POLICY_DENIED `secret`
 * whose message and details name the kind of secret and the field, never any of its characters.
 *
 * Redirect hops, browser sub-requests and a reader's final URL are not scanned: those URLs come from the site,
 * which only has what it was sent (and that was scanned), so a match there would be the site's own token.
 */
export function createSecretCheck(settings: SecretCheckSettings): EgressCheck {
  const scanner = createSecretScanner({
    secrets: knownSecrets(settings.config, settings.env),
    entropy: settings.entropy,
  });
  return {
    name: 'secret',
    checkCall(call) {
      for (const [field, text] of outbound(call)) {
        const finding = scanner.scan(text);
        if (finding === undefined) continue;
        return {
          reason: 'secret',
          message: `the ${field} of this ${call.tool} call contains what looks like ${finding.label}, so nothing was sent; never put credentials or private data in a query or URL`,
          details: { kind: finding.kind, field, ...(finding.encoding ? { encoding: finding.encoding } : {}) },
        };
      }
      return undefined;
    },
  };
}

/** The strings of a call that would leave Periscope, with their field paths (`query`, `allowedDomains[0]`, `url`). */
function outbound(call: EgressCall): Array<[string, string]> {
  if (call.tool === 'web_fetch' && Array.isArray(call.input.urls)) {
    return call.input.urls.flatMap(
      (url, index): Array<[string, string]> => (typeof url === 'string' ? [[`urls[${index}]`, url]] : []),
    );
  }
  if (call.tool === 'web_fetch' || call.tool === 'verify_citation') {
    return typeof call.input.url === 'string' ? [['url', call.input.url]] : [];
  }
  const found: Array<[string, string]> = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'string') found.push([path, value]);
    else if (Array.isArray(value))
      for (const [index, item] of value.entries()) walk(item, `${path}[${index}]`);
    else if (value !== null && typeof value === 'object')
      for (const [name, item] of Object.entries(value)) walk(item, path ? `${path}.${name}` : name);
  };
  walk(call.input, '');
  return found;
}
