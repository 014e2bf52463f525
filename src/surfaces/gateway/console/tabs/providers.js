// Providers: the search providers in chain order with their health and quota, and the web_fetch back-ends.
import { api } from '../kernel/api.js';
import { $ } from '../kernel/dom.js';
import { row } from '../kernel/table.js';

export async function loadProviders() {
  const [{ body }, { body: fetchChain }] = await Promise.all([
    api('/v1/status'),
    api('/v1/admin/console/fetch-chain'),
  ]);
  $('fetch-body').replaceChildren(
    ...fetchChain.backends.map((backend) => {
      const health = backend.health;
      const failure = health?.lastFailure;
      const tr = row([
        String(backend.position),
        backend.id,
        backend.kind + (backend.rendersJavaScript ? ', runs JavaScript' : ''),
        backend.unavailable === null ? 'yes' : `no: ${backend.unavailable}`,
        String(health?.ok ?? 0),
        String(health?.failed ?? 0),
        String(health?.skipped ?? 0),
        health?.lastOkAt ?? '',
        failure ? `${failure.at} ${failure.code}: ${failure.message}` : '',
      ]);
      tr.className = backend.unavailable === null ? 'ok' : 'failed';
      return tr;
    }),
  );
  const providers = (body.providers ?? []).filter((p) => p.inChain || p.inImageChain);
  providers.sort((a, b) => (a.position ?? 99) - (b.position ?? 99));
  $('providers-body').replaceChildren(
    ...providers.map((p) => {
      const quota = p.quota ?? p.health?.quota;
      const tr = row([
        p.position ? String(p.position) : '',
        p.id,
        [p.inChain ? 'web' : '', p.inImageChain ? 'images' : ''].filter(Boolean).join(', '),
        p.credentials,
        p.enabled ? (p.configured ? p.health.state : 'not configured') : 'off',
        p.health.coolingUntil ?? '',
        String(p.health.consecutiveFailures),
        p.health.lastError ? `${p.health.lastError.code}: ${p.health.lastError.message}` : '',
        quota
          ? [quota.remaining, quota.limit].filter((n) => n !== undefined).join(' / ') +
            (quota.note ? ` ${quota.note}` : '')
          : '',
      ]);
      tr.className = p.health.state === 'ok' ? 'ok' : 'failed';
      return tr;
    }),
  );
}
