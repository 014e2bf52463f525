// One call whole: its input, the output the model read, its data, and the links among its results.
import { api } from '../kernel/api.js';
import { $, el, pretty, safeLink, visible } from '../kernel/dom.js';

/** Links listed under a call's data, at most. */
const MAX_LINKS = 50;

export async function openCall(id) {
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
    for (const item of results.slice(0, MAX_LINKS)) {
      const li = el('li', `${item?.title ?? ''} — `);
      li.append(safeLink(item?.url ?? ''));
      links.append(li);
    }
  }
}
