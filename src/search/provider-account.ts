import { digest } from '../store/digest.ts';
import type { ProviderSettings } from './types.ts';

/**
 * The account a provider is used with, for store keys shared by every instance (its health, its pacing turns): a
 * short digest of its resolved `apiKey` and `baseUrl` (base64url, 96 bits), never the key itself. A keyless
 * provider on its default endpoint is one account everywhere.
 */
export function providerAccount(settings: Pick<ProviderSettings, 'apiKey' | 'baseUrl'>): string {
  return digest(JSON.stringify([settings.apiKey ?? null, settings.baseUrl ?? null])).slice(0, 16);
}
