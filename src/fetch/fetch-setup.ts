import type { FetchBackendId } from '../config/fetch-schema.ts';
import type { FetchConfig, NetworkConfig, ProvidersConfig } from '../config/schema.ts';
import type { NetworkPolicy } from '../net/network-policy.ts';
import type { HttpFetch } from '../net/types.ts';
import { createBrowserFetchBackend } from './backends/browser.ts';
import { createExaBackend, EXA_KEY_ENV } from './backends/exa.ts';
import { createFirecrawlBackend, FIRECRAWL_KEY_ENV } from './backends/firecrawl.ts';
import { createInfoquestBackend, INFOQUEST_KEY_ENV } from './backends/infoquest.ts';
import { createJinaReaderBackend, JINA_READER_KEY_ENV } from './backends/jina-reader.ts';
import { createLocalFetchBackend } from './backends/local.ts';
import { createServiceBackend, SERVICE_KEY_ENV, SERVICE_URL_ENV } from './backends/service.ts';
import { createTavilyBackend, TAVILY_KEY_ENV } from './backends/tavily.ts';
import type { FetchBackend } from './fetch-backend.ts';
import { createFetchChain, type FetchChain } from './fetch-chain.ts';
import { resolveReaderSettings } from './reader-http.ts';
import { createRobotsChecker } from './robots.ts';
import { createUrlPreflight } from './url-preflight.ts';

export interface ConfiguredFetchChainSettings {
  fetch: FetchConfig;
  network: NetworkConfig;
  providers?: ProvidersConfig | undefined;
  env?: NodeJS.ProcessEnv | undefined;
  /** The guarded client (robots.txt is read through it). */
  httpFetch: HttpFetch;
  /** The deployment's network policy, the guarded client's own: the preflight decides with it. */
  policy: NetworkPolicy;
  /** Back-ends to use instead of the built-in ones of the same id (tests, embedding). */
  overrides?: readonly FetchBackend[] | undefined;
}

/** `fetch.chain` from config → the chain: back-ends built for the ids it lists, the URL preflight, robots.txt. */
export function createConfiguredFetchChain(settings: ConfiguredFetchChainSettings): FetchChain {
  const env = settings.env ?? process.env;
  const overrides = new Map((settings.overrides ?? []).map((backend) => [backend.id, backend]));
  const backends = settings.fetch.chain.map((id) => overrides.get(id) ?? createBackend(id, settings, env));
  return createFetchChain({
    backends,
    thirdParty: settings.fetch.thirdParty,
    preflight: createUrlPreflight(settings.policy),
    robots:
      settings.fetch.robots === 'respect'
        ? createRobotsChecker({
            httpFetch: settings.httpFetch,
            userAgent: settings.network.userAgent,
            timeoutMs: settings.fetch.robotsTimeoutMs,
          })
        : undefined,
  });
}

/** A reader back-end's credentials: the search provider whose `apiKey` it borrows and the variables it reads. */
export interface ReaderKeys {
  searchId?: string;
  keyEnv: readonly string[];
  baseUrlEnv?: readonly string[];
}

/** `fetch.backends.<id>` → where its key (and the service's URL) come from when the back-end has none of its own. */
export const READER_KEYS = {
  'jina-reader': { searchId: 'jina', keyEnv: JINA_READER_KEY_ENV },
  firecrawl: { searchId: 'firecrawl', keyEnv: FIRECRAWL_KEY_ENV },
  tavily: { searchId: 'tavily', keyEnv: TAVILY_KEY_ENV },
  exa: { searchId: 'exa', keyEnv: EXA_KEY_ENV },
  infoquest: { searchId: 'infoquest', keyEnv: INFOQUEST_KEY_ENV },
  service: { keyEnv: SERVICE_KEY_ENV, baseUrlEnv: SERVICE_URL_ENV },
} as const satisfies Record<string, ReaderKeys>;

function createBackend(
  id: FetchBackendId,
  settings: ConfiguredFetchChainSettings,
  env: NodeJS.ProcessEnv,
): FetchBackend {
  const { backends } = settings.fetch;
  const reader = (readerId: keyof typeof READER_KEYS) => {
    const keys: ReaderKeys = READER_KEYS[readerId];
    return resolveReaderSettings(readerId, backends, settings.providers, env, {
      ...(keys.searchId === undefined ? {} : { searchId: keys.searchId }),
      keyEnv: keys.keyEnv,
      ...(keys.baseUrlEnv ? { baseUrlEnv: keys.baseUrlEnv } : {}),
    });
  };
  switch (id) {
    case 'local':
      return createLocalFetchBackend();
    case 'browser':
      return createBrowserFetchBackend({
        config: settings.fetch.browser,
        maxBytes: settings.network.maxBytes,
        env,
      });
    case 'jina-reader':
      return createJinaReaderBackend(reader('jina-reader'));
    case 'firecrawl':
      return createFirecrawlBackend(reader('firecrawl'));
    case 'tavily':
      return createTavilyBackend(reader('tavily'));
    case 'exa':
      return createExaBackend(reader('exa'));
    case 'infoquest':
      return createInfoquestBackend(reader('infoquest'));
    case 'service':
      return createServiceBackend({
        ...reader('service'),
        toolCallIdHeader: backends.service.toolCallIdHeader ?? undefined,
      });
  }
}
