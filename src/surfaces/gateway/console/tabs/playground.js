// Playground: a real tool call, run as the signed-in key or as any active key (limited, charged and counted as it).
import { api } from '../kernel/api.js';
import { $, el, pretty, visible } from '../kernel/dom.js';
import { formatRate } from '../kernel/rate.js';

const EXAMPLES = {
  web_search: { query: 'example' },
  web_fetch: { url: 'https://example.com/' },
  image_search: { query: 'example' },
};

export async function loadPlayground() {
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
