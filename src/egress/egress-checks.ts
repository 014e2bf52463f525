import type { PeriscopeConfig } from '../config/schema.ts';
import type { HttpFetch } from '../net/types.ts';
import type { LazyStore } from '../store/lazy-store.ts';
import { type BeforeCallHook, createBeforeCallCheck } from './before-call-check.ts';
import { createBudgetCheck } from './budget-check.ts';
import { createDomainCheck, type DomainPolicy } from './domain-check.ts';
import type { EgressCheck } from './egress-check.ts';
import { createSecretCheck } from './secret-check.ts';
import { createSeenUrlCheck } from './seen-url-check.ts';

export interface EgressCheckSettings {
  config: PeriscopeConfig;
  /** The state store (seen URLs and session budgets live there, shared across gateway instances). */
  store: LazyStore;
  /** Environment (secret scanning reads the names and values of KEY/TOKEN/SECRET/PASSWORD variables). */
  env: NodeJS.ProcessEnv;
  /** `egress.domains`, compiled (createPeriscope shares it with the search tools, which filter results by it). */
  domains: DomainPolicy;
  /** The guarded client (the beforeCall webhook is asked through it). */
  httpFetch: HttpFetch;
  /** The library's hook (`CreatePeriscopeOptions.beforeCall`). */
  beforeCall?: BeforeCallHook | undefined;
  /** The caller's own checks (`CreatePeriscopeOptions.egressChecks`), run after the built-in ones. */
  extra?: readonly EgressCheck[] | undefined;
}

/**
 * The deployment's egress checks, in the order they run (src/egress/egress-gate.ts). Cheap local refusals come
 * first, then the ones that hold something (a budget reservation, released if a later one refuses), then the one
 * that asks outside (the beforeCall hook / webhook), so nothing is reserved or asked for a call a local rule
 * refuses. The secret check is first of all: another rule's refusal repeats the call's query or URL in its display
 * line, a secret refusal never does. Each check is one file beside this one; adding one is one line here:
 *
 * 1. secret      egress.secretScan (src/egress/secret-check.ts)
 * 2. domain      egress.domains, the API key's, the call's (src/egress/domain-check.ts)
 * 3. seen-url    egress.seenUrlsOnly (src/egress/seen-url-check.ts)
 * 4. budget      limits.session (src/egress/budget-check.ts)
 * 5. before-call the library's beforeCall hook, the gateway's webhook (src/egress/before-call-check.ts)
 * 6. the caller's own (`extra`)
 */
export function createEgressChecks(settings: EgressCheckSettings): EgressCheck[] {
  const { config, store, env } = settings;
  const { secretScan } = config.egress;
  const beforeCall = createBeforeCallCheck({
    hook: settings.beforeCall,
    webhook: config.egress.beforeCallWebhook,
    httpFetch: settings.httpFetch,
  });
  return [
    ...(secretScan.enabled ? [createSecretCheck({ config, env, entropy: secretScan.entropy })] : []),
    createDomainCheck(settings.domains),
    ...(config.egress.seenUrlsOnly ? [createSeenUrlCheck({ store })] : []),
    createBudgetCheck({ limits: config.limits, store }),
    ...(beforeCall ? [beforeCall] : []),
    ...(settings.extra ?? []),
  ];
}
