// Overview: tiles and charts of the last hour or day (per-minute counts the gateway keeps in memory).
import { api } from '../kernel/api.js';
import { barChart, codeChart, lineChart } from '../kernel/charts.js';
import { $, el } from '../kernel/dom.js';
import { row } from '../kernel/table.js';

let overviewWindow = 'hour';

for (const button of document.querySelectorAll('button.window')) {
  button.addEventListener('click', () => {
    overviewWindow = button.dataset.window;
    for (const other of document.querySelectorAll('button.window'))
      other.setAttribute('aria-pressed', String(other === button));
    loadOverview().catch(() => {});
  });
}

export async function loadOverview() {
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
