// Calls: the live tail of recent calls, filtered by agent, tool and outcome; a row opens the call's detail.
import { $, visible } from '../kernel/dom.js';
import { followEvents } from '../kernel/event-stream.js';
import { row } from '../kernel/table.js';
import { openCall } from './call-detail.js';

/** Calls kept (and rows shown): the newest. */
const MAX_ROWS = 500;

const calls = [];
let tailAbort;

/** Follows the gateway's calls as they end, from after the last one seen. */
export async function startTail() {
  tailAbort?.abort();
  tailAbort = new AbortController();
  let lastId = calls.at(-1)?.id ?? 0;
  await followEvents('/v1/admin/console/events', {
    signal: tailAbort.signal,
    lastId: () => lastId,
    opened: () => {
      $('tail-state').textContent = '(live)';
    },
    received: (event) => {
      if (event.type === 'call' && event.data) {
        const call = JSON.parse(event.data);
        lastId = call.id;
        addCall(call);
      }
    },
    failed: (error) => {
      $('tail-state').textContent = `(reconnecting: ${visible(error.message)})`;
    },
  });
}

export function stopTail() {
  tailAbort?.abort();
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
