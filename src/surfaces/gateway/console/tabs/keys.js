// Keys and credits: create, re-rate and revoke API keys; grant credits and read an agent's ledger.
import { api } from '../kernel/api.js';
import { $, el, visible } from '../kernel/dom.js';
import { formatRate } from '../kernel/rate.js';
import { row } from '../kernel/table.js';

export async function loadKeys() {
  $('keys-error').textContent = '';
  const [{ body: keys }, { body: credits }] = await Promise.all([
    api('/v1/admin/keys'),
    api('/v1/admin/credits'),
  ]);
  $('keys-body').replaceChildren(...keys.keys.slice().reverse().map(keyRow));
  $('balances-body').replaceChildren(
    ...credits.accounts.map((account) => {
      const open = el('button', 'Ledger');
      open.type = 'button';
      open.setAttribute('aria-label', `Ledger of ${account.agent}`);
      open.addEventListener('click', () => guarded(() => loadLedger(account.agent)));
      return row([account.agent, String(account.balance), open]);
    }),
  );
}

function keyRow(key) {
  const revoke = el('button', 'Revoke');
  revoke.type = 'button';
  revoke.disabled = Boolean(key.revokedAt);
  revoke.setAttribute('aria-label', `Revoke key ${key.id}`);
  revoke.addEventListener('click', async () => {
    if (!confirm(`Revoke key ${key.id} of ${key.agent}?`)) return;
    await guarded(() => api(`/v1/admin/keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' }));
    await loadKeys();
  });
  const setRate = el('button', 'Set rate');
  setRate.type = 'button';
  setRate.disabled = Boolean(key.revokedAt);
  setRate.setAttribute('aria-label', `Set rate of key ${key.id}`);
  setRate.addEventListener('click', async () => {
    const rate = prompt(`Rate for key ${key.id} (e.g. 60/min; empty removes it)`, formatRate(key.rate));
    if (rate === null) return;
    await guarded(() =>
      api(`/v1/admin/keys/${encodeURIComponent(key.id)}`, {
        method: 'PATCH',
        body: { rate: rate.trim() === '' ? null : rate.trim() },
      }),
    );
    await loadKeys();
  });
  const actions = document.createElement('span');
  actions.append(setRate, ' ', revoke);
  return row([
    key.id,
    key.agent,
    key.admin ? 'yes' : '',
    formatRate(key.rate),
    describeDomains(key.domains),
    describeSession(key.session),
    key.createdAt,
    key.revokedAt ?? '',
    key.note ?? '',
    actions,
  ]);
}

/** The domains a key's calls are narrowed to, as `periscope keys list` shows them: `only a.com; not b.com`. */
function describeDomains(domains) {
  const parts = [];
  if (domains?.allow?.length) parts.push(`only ${domains.allow.join(', ')}`);
  if (domains?.block?.length) parts.push(`not ${domains.block.join(', ')}`);
  return parts.join('; ');
}

/** A key's session budget, as `periscope keys list` shows it: `web_fetch 20, 100 credits per session`. */
function describeSession(session) {
  if (!session) return '';
  const parts = Object.entries(session.maxCalls ?? {}).map(([tool, calls]) => `${tool} ${calls}`);
  if (session.maxCredits !== undefined) parts.push(`${session.maxCredits} credits`);
  return parts.length ? `${parts.join(', ')} per session` : '';
}

async function loadLedger(agent) {
  const { body } = await api(`/v1/admin/credits/${encodeURIComponent(agent)}`);
  $('ledger').hidden = false;
  $('ledger-agent').textContent = `${visible(body.agent)} (balance ${body.balance})`;
  $('ledger-body').replaceChildren(
    ...body.ledger
      .slice()
      .reverse()
      .map((entry) =>
        row([
          entry.at,
          String(entry.delta),
          String(entry.balanceAfter),
          entry.tool ? `${entry.reason} (${entry.tool})` : entry.reason,
        ]),
      ),
  );
}

/** Runs an action of this page, its failure shown in the page's error line. */
async function guarded(run) {
  try {
    $('keys-error').textContent = '';
    return await run();
  } catch (error) {
    $('keys-error').textContent = visible(error.message);
    return undefined;
  }
}

$('key-create').addEventListener('click', () =>
  guarded(async () => {
    const credits = $('key-credits').value.trim();
    const rate = $('key-rate').value.trim();
    const note = $('key-note').value.trim();
    const { body } = await api('/v1/admin/keys', {
      method: 'POST',
      body: {
        agent: $('key-agent').value.trim(),
        admin: $('key-admin').checked,
        ...(credits ? { credits: Number(credits) } : {}),
        ...(rate ? { rate } : {}),
        ...(note ? { note } : {}),
      },
    });
    const secret = $('key-secret');
    secret.hidden = false;
    secret.textContent = `New key for ${visible(body.record.agent)} (shown once, copy it now): ${body.key}`;
    await loadKeys();
  }),
);

$('grant-button').addEventListener('click', () =>
  guarded(async () => {
    const agent = $('grant-agent').value.trim();
    const reason = $('grant-reason').value.trim();
    await api('/v1/admin/credits', {
      method: 'POST',
      body: { agent, amount: Number($('grant-amount').value), ...(reason ? { reason } : {}) },
    });
    await loadKeys();
    await loadLedger(agent);
  }),
);
