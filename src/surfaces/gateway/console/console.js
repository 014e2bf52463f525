// The Periscope operator console. Plain ES module, no build step, no dependencies. Everything that came from a page,
// a provider or a caller is put in the DOM with textContent (never parsed as HTML); links are made only for http(s) URLs.
const KEY_STORAGE = 'periscope.console.key';
const MAX_ROWS = 500;
const $ = (id) => document.getElementById(id);

let adminKey = sessionStorage.getItem(KEY_STORAGE) ?? '';
let tailAbort;
const calls = [];

// ---------- rendering helpers (text only) ----------

/** Bidi controls (RLO, LRI, …) shown as visible marks, so a hostile title cannot reorder what is around it. */
export function visible(text) {
  return String(text ?? '').replace(
    /[\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase()}⟩`,
  );
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = visible(text);
  if (className) node.className = className;
  return node;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    if (cell instanceof Node) {
      const td = document.createElement('td');
      td.append(cell);
      tr.append(td);
    } else tr.append(el('td', cell));
  }
  return tr;
}

/** A link only for an absolute http(s) URL; anything else (javascript:, data:, …) stays text. */
export function safeLink(url) {
  let parsed;
  try {
    parsed = new URL(String(url));
  } catch {
    return el('span', url);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return el('span', url);
  const a = el('a', parsed.href);
  a.href = parsed.href;
  a.rel = 'noopener noreferrer';
  a.target = '_blank';
  return a;
}

const pretty = (value) => visible(typeof value === 'string' ? value : JSON.stringify(value, null, 2));

// ---------- API ----------

async function api(path, options = {}) {
  const headers = { ...(options.body ? { 'content-type': 'application/json' } : {}) };
  if (adminKey) headers.authorization = `Bearer ${adminKey}`;
  const response = await fetch(path, {
    method: options.method ?? 'GET',
    headers,
    body: options.body ? JSON.stringify(options.body) : undefined,
    cache: 'no-store',
    credentials: 'omit',
    signal: options.signal,
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok && !options.keepError) {
    throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  }
  return { status: response.status, body };
}

// ---------- sign in ----------

// Only the latest attempt decides: the start-up attempt (stored key or open mode) may answer after the user signed in.
let signInAttempt = 0;

async function signIn(key) {
  const attempt = ++signInAttempt;
  adminKey = key;
  try {
    await api('/v1/admin/console/overview');
  } catch (error) {
    if (attempt !== signInAttempt) return undefined;
    adminKey = '';
    sessionStorage.removeItem(KEY_STORAGE);
    return error.message;
  }
  if (attempt !== signInAttempt) return undefined;
  if (key) sessionStorage.setItem(KEY_STORAGE, key);
  $('login').hidden = true;
  $('tabs').hidden = false;
  show('calls');
  startTail();
  return undefined;
}

$('login-button').addEventListener('click', async () => {
  const key = $('login-key').value.trim();
  $('login-key').value = '';
  const failed = await signIn(key);
  $('login-error').textContent = failed ? visible(failed) : '';
});
$('login-key').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') $('login-button').click();
});
$('logout').addEventListener('click', () => {
  sessionStorage.removeItem(KEY_STORAGE);
  adminKey = '';
  tailAbort?.abort();
  location.reload();
});

// ---------- pages ----------

const loaders = {
  overview: loadOverview,
  providers: loadProviders,
  keys: loadKeys,
  playground: loadPlayground,
};

let refresher;

function show(page) {
  clearInterval(refresher);
  if (page === 'overview') refresher = setInterval(() => loadOverview().catch(() => {}), 5000);
  for (const button of document.querySelectorAll('#tabs [data-page]')) {
    if (button.dataset.page === page) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const section of document.querySelectorAll('.page')) section.hidden = section.id !== `page-${page}`;
  loaders[page]?.().catch((error) => report(page, error));
}

function report(page, error) {
  const target = page === 'keys' ? $('keys-error') : $('play-status');
  if (target) target.textContent = visible(error.message);
}

for (const button of document.querySelectorAll('#tabs [data-page]')) {
  button.addEventListener('click', () => show(button.dataset.page));
}

// ---------- calls: live tail over fetch() streaming (EventSource cannot send the key in a header) ----------

async function startTail() {
  tailAbort?.abort();
  tailAbort = new AbortController();
  const { signal } = tailAbort;
  let lastId = calls.at(-1)?.id ?? 0;
  while (!signal.aborted) {
    try {
      const headers = { accept: 'text/event-stream' };
      if (adminKey) headers.authorization = `Bearer ${adminKey}`;
      if (lastId) headers['last-event-id'] = String(lastId);
      const response = await fetch('/v1/admin/console/events', {
        headers,
        signal,
        cache: 'no-store',
        credentials: 'omit',
      });
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      $('tail-state').textContent = '(live)';
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end = buffer.indexOf('\n\n');
        while (end !== -1) {
          const event = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event.type === 'call' && event.data) {
            const call = JSON.parse(event.data);
            lastId = call.id;
            addCall(call);
          }
          end = buffer.indexOf('\n\n');
        }
      }
    } catch (error) {
      if (signal.aborted) return;
      $('tail-state').textContent = `(reconnecting: ${visible(error.message)})`;
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

function parseEvent(block) {
  const event = { type: 'message', data: '' };
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) event.type = line.slice(6).trim();
    else if (line.startsWith('data:')) event.data += line.slice(5).trimStart();
  }
  return event;
}

function matches(call) {
  const agent = $('filter-agent').value.trim();
  const tool = $('filter-tool').value.trim();
  const outcome = $('filter-outcome').value.trim();
  return (
    (!agent || call.agent.includes(agent)) &&
    (!tool || call.tool.includes(tool)) &&
    (!outcome || call.outcome.toLowerCase() === outcome.toLowerCase())
  );
}

function callRow(call) {
  const tr = row([
    new Date(call.time).toLocaleTimeString(),
    call.agent,
    call.session ?? '',
    call.surface === 'rest' ? call.tool : `${call.tool} (${call.surface})`,
    call.display,
    call.outcome,
    String(call.ms),
    String(call.credits),
  ]);
  tr.className = call.outcome === 'ok' ? 'ok' : 'failed';
  tr.tabIndex = 0;
  tr.dataset.id = String(call.id);
  tr.addEventListener('click', () => openCall(call.id));
  tr.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') openCall(call.id);
  });
  return tr;
}

function addCall(call) {
  calls.push(call);
  if (calls.length > MAX_ROWS) calls.shift();
  if (!matches(call)) return;
  const body = $('calls-body');
  body.prepend(callRow(call));
  while (body.rows.length > MAX_ROWS) body.deleteRow(-1);
}

function redrawCalls() {
  const body = $('calls-body');
  body.replaceChildren(...calls.filter(matches).reverse().map(callRow));
}
for (const id of ['filter-agent', 'filter-tool', 'filter-outcome'])
  $(id).addEventListener('input', redrawCalls);

async function openCall(id) {
  const { body } = await api(`/v1/admin/console/calls/${id}`);
  $('call-detail').hidden = false;
  $('call-detail-id').textContent = `#${body.id} ${visible(body.tool)} (${visible(body.outcome)})`;
  $('call-input').textContent = pretty(body.input);
  $('call-output').textContent = visible(body.result.output) + (body.result.truncated ? '\n[… cut]' : '');
  $('call-data').textContent = pretty(body.result.data);
  const links = $('call-links');
  links.replaceChildren();
  const results = body.result.data?.results;
  if (Array.isArray(results)) {
    for (const item of results.slice(0, 50)) {
      const li = el('li', `${item?.title ?? ''} — `);
      li.append(safeLink(item?.url ?? ''));
      links.append(li);
    }
  }
}

// ---------- overview ----------

let overviewWindow = 'hour';

for (const button of document.querySelectorAll('button.window')) {
  button.addEventListener('click', () => {
    overviewWindow = button.dataset.window;
    for (const other of document.querySelectorAll('button.window'))
      other.setAttribute('aria-pressed', String(other === button));
    loadOverview().catch(() => {});
  });
}

async function loadOverview() {
  const { body } = await api(`/v1/admin/console/overview?window=${overviewWindow}`);
  const span = body.window === 'day' ? '24 h' : '1 h';
  const percent = (rate) => (rate === null ? '–' : `${Math.round(rate * 100)} %`);
  const tiles = [
    [`Calls (${span})`, body.calls],
    [`Errors (${span})`, body.errors],
    ['In flight', body.inFlight],
    ['Queued', body.queued],
    ['p50 ms', body.latencyMs.p50 ?? '–'],
    ['p95 ms', body.latencyMs.p95 ?? '–'],
    ['Cache hit rate', percent(body.cacheHitRate)],
    [`Credits (${span})`, body.credits],
    ['Calls today (UTC)', body.today?.totals?.calls ?? '–'],
    ['Credits today', body.today?.totals?.credits ?? '–'],
  ];
  $('overview-tiles').replaceChildren(
    ...tiles.map(([label, value]) => {
      const tile = el('div', undefined, 'tile');
      tile.append(el('span', label, 'label'), el('strong', String(value)));
      return tile;
    }),
  );
  const steps = body.steps;
  const per = body.stepMinutes === 1 ? 'minute' : `${body.stepMinutes} min`;
  const axis = body.window === 'day' ? '−24 h' : '−60 min';
  const when = (step) => new Date(step.start).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  $('chart-calls-title').textContent = `Calls per ${per} (errors in red)`;
  $('overview-chart').replaceChildren(
    barChart({
      label: `Calls per ${per}, ${span}: ${body.calls} calls, ${body.errors} errors`,
      axis,
      series: [
        { values: steps.map((s) => s.calls), className: 'bar' },
        { values: steps.map((s) => s.errors), className: 'bar-error' },
      ],
      titles: steps.map((s) => `${when(s)}: ${s.calls} calls, ${s.errors} errors`),
    }),
  );
  $('chart-latency').replaceChildren(
    lineChart({
      label: `Latency per ${per}, ${span}: p50 ${body.latencyMs.p50 ?? 'none'} ms, p95 ${body.latencyMs.p95 ?? 'none'} ms`,
      axis,
      series: [
        { values: steps.map((s) => s.p50), className: 'line', name: 'p50' },
        { values: steps.map((s) => s.p95), className: 'line-p95', name: 'p95' },
      ],
    }),
  );
  $('chart-cache').replaceChildren(
    lineChart({
      label: `Cache hit rate per ${per}, ${span}: ${percent(body.cacheHitRate)}`,
      axis,
      max: 100,
      series: [
        {
          values: steps.map((s) => (s.cacheHitRate === null ? null : Math.round(s.cacheHitRate * 100))),
          className: 'line',
          name: 'hit %',
        },
      ],
    }),
  );
  $('chart-credits').replaceChildren(
    barChart({
      label: `Credits spent per ${per}, ${span}: ${body.credits}`,
      axis,
      series: [{ values: steps.map((s) => s.credits), className: 'bar-credits' }],
      titles: steps.map((s) => `${when(s)}: ${s.credits} credits`),
    }),
  );
  const codes = Object.entries(body.errorsByCode);
  $('chart-errors').replaceChildren(
    codes.length === 0 ? el('p', `No errors in the last ${span}.`, 'muted') : codeChart(codes, span),
  );
  $('overview-errors').replaceChildren(...codes.map(([code, count]) => row([code, String(count)])));
}

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 600;
const HEIGHT = 110;

function svgNode(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = visible(text);
  return node;
}

/** An SVG frame with a text label for screen readers, the peak value and the time axis. */
function frame(label, axis, peak) {
  const svg = svgNode('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT + 18}`, role: 'img', 'aria-label': label });
  svg.append(svgNode('title', {}, label));
  svg.append(svgNode('line', { x1: 0, y1: HEIGHT, x2: WIDTH, y2: HEIGHT, class: 'axis' }));
  svg.append(svgNode('text', { x: 0, y: 12 }, `max ${peak}`));
  svg.append(svgNode('text', { x: 0, y: HEIGHT + 16 }, axis));
  svg.append(svgNode('text', { x: WIDTH, y: HEIGHT + 16, 'text-anchor': 'end' }, 'now'));
  return svg;
}

/** Bars per step; later series are drawn over earlier ones (errors over calls). Hand-written: no chart library. */
function barChart({ label, axis, series, titles }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const svg = frame(label, axis, max);
  const count = series[0].values.length;
  const barWidth = WIDTH / count;
  for (const { values, className } of series) {
    values.forEach((value, index) => {
      if (!value) return;
      const h = (value / max) * (HEIGHT - 12);
      const rect = svgNode('rect', {
        x: index * barWidth + barWidth * 0.1,
        y: HEIGHT - h,
        width: Math.max(1, barWidth * 0.8),
        height: h,
        class: className,
      });
      if (titles) rect.append(svgNode('title', {}, titles[index]));
      svg.append(rect);
    });
  }
  return svg;
}

/** Lines per step (null: no calls, a gap), with a legend. */
function lineChart({ label, axis, series, max: fixedMax }) {
  const max = fixedMax ?? Math.max(1, ...series.flatMap((s) => s.values.filter((v) => v !== null)));
  const svg = frame(label, axis, max);
  const count = series[0].values.length;
  const x = (index) => ((index + 0.5) * WIDTH) / count;
  const y = (value) => HEIGHT - (value / max) * (HEIGHT - 12);
  series.forEach(({ values, className, name }, order) => {
    let points = [];
    const flush = () => {
      if (points.length === 1) {
        const [px, py] = points[0].split(',');
        svg.append(svgNode('circle', { cx: px, cy: py, r: 2, class: `${className} dot` }));
      } else if (points.length > 1) {
        svg.append(svgNode('polyline', { points: points.join(' '), class: className }));
      }
      points = [];
    };
    values.forEach((value, index) => {
      if (value === null) flush();
      else points.push(`${x(index).toFixed(1)},${y(value).toFixed(1)}`);
    });
    flush();
    const legendX = WIDTH - 70 * (series.length - order);
    svg.append(svgNode('line', { x1: legendX, y1: 7, x2: legendX + 14, y2: 7, class: className }));
    svg.append(svgNode('text', { x: legendX + 17, y: 12 }, name));
  });
  return svg;
}

/** Horizontal bars, one per error code, largest first. */
function codeChart(codes, span) {
  const max = Math.max(1, ...codes.map(([, count]) => count));
  const rowHeight = 20;
  const height = codes.length * rowHeight;
  const svg = svgNode('svg', {
    viewBox: `0 0 ${WIDTH} ${height}`,
    role: 'img',
    'aria-label': `Errors by code, ${span}: ${codes.map(([code, count]) => `${code} ${count}`).join(', ')}`,
  });
  codes.forEach(([code, count], index) => {
    const y = index * rowHeight;
    svg.append(svgNode('text', { x: 0, y: y + 15 }, code));
    svg.append(
      svgNode('rect', {
        x: 200,
        y: y + 2,
        width: Math.max(1, (count / max) * (WIDTH - 260)),
        height: rowHeight - 4,
        class: 'bar-error',
      }),
    );
    svg.append(svgNode('text', { x: WIDTH - 50, y: y + 15 }, String(count)));
  });
  return svg;
}

// ---------- providers ----------

async function loadProviders() {
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

// ---------- keys and credits ----------

const UNITS = { 1000: 's', 60000: 'min', 3600000: 'hour', 86400000: 'day' };
const formatRate = (rate) =>
  rate ? `${rate.limit}/${UNITS[rate.windowMs] ?? `${rate.windowMs / 1000}s`}` : '';

async function loadKeys() {
  $('keys-error').textContent = '';
  const [{ body: keys }, { body: credits }] = await Promise.all([
    api('/v1/admin/keys'),
    api('/v1/admin/credits'),
  ]);
  $('keys-body').replaceChildren(
    ...keys.keys
      .slice()
      .reverse()
      .map((key) => {
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
          key.createdAt,
          key.revokedAt ?? '',
          key.note ?? '',
          actions,
        ]);
      }),
  );
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

// ---------- playground ----------

const EXAMPLES = {
  web_search: { query: 'example' },
  web_fetch: { url: 'https://example.com/' },
  image_search: { query: 'example' },
};

async function loadPlayground() {
  await loadRunAs();
  const select = $('play-tool');
  if (select.options.length > 0) return;
  const { body } = await api('/v1/tools');
  for (const tool of body.tools) {
    const option = el('option', tool.name);
    option.value = tool.name;
    select.append(option);
  }
}

/** "Run as": the signed-in key itself, or any active key (its agent's credits, rate and session budget apply). */
async function loadRunAs() {
  const select = $('play-as');
  const chosen = select.value;
  const { body } = await api('/v1/admin/keys').catch(() => ({ body: { keys: [] } }));
  const own = el('option', 'the signed-in key');
  own.value = '';
  const options = body.keys
    .filter((key) => !key.revokedAt)
    .map((key) => {
      const option = el(
        'option',
        `${key.agent} (key ${key.id}${key.rate ? `, ${formatRate(key.rate)}` : ''})`,
      );
      option.value = key.id;
      return option;
    });
  select.replaceChildren(own, ...options);
  if ([...select.options].some((option) => option.value === chosen)) select.value = chosen;
}

$('play-tool').addEventListener('change', () => {
  const example = EXAMPLES[$('play-tool').value];
  if (example) $('play-input').value = JSON.stringify(example);
});

$('play-run').addEventListener('click', async () => {
  let input;
  try {
    input = JSON.parse($('play-input').value);
  } catch (error) {
    $('play-status').textContent = `The input is not JSON: ${error.message}`;
    return;
  }
  $('play-status').textContent = 'Running…';
  const started = performance.now();
  const tool = encodeURIComponent($('play-tool').value);
  const as = $('play-as').value;
  const path = as ? `/v1/admin/console/as/${encodeURIComponent(as)}/tools/${tool}` : `/v1/tools/${tool}`;
  const { status, body } = await api(path, {
    method: 'POST',
    body: input,
    keepError: true,
  }).catch((error) => ({ status: 0, body: { error: { message: error.message } } }));
  $('play-status').textContent =
    `HTTP ${status}, ${Math.round(performance.now() - started)} ms` +
    (typeof body.data?.creditsSpent === 'number'
      ? `, ${body.data.creditsSpent} credit${body.data.creditsSpent === 1 ? '' : 's'}`
      : '') +
    (body.isError ? ' (error result)' : '');
  $('play-output').textContent = visible(body.output ?? body.error?.message ?? '');
  $('play-data').textContent = pretty(body.data ?? null);
  $('play-display').textContent = visible(body.display ?? '');
});

// ---------- keyboard: each text box that may scroll is a named region Tab can reach (set here: the HTML linter
// refuses tabindex on <pre>, axe asks for it) ----------

for (const pre of document.querySelectorAll('pre')) {
  pre.tabIndex = 0;
  pre.setAttribute('role', 'region');
  const heading = pre.previousElementSibling;
  if (heading?.id) pre.setAttribute('aria-labelledby', heading.id);
}

// ---------- start: the stored key, or open mode (no keys on a loopback gateway) ----------

signIn(adminKey).then((failed) => {
  if (failed) $('login-key').focus();
});
