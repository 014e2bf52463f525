// The page tabs: one page shown at a time, loaded as it opens; the overview refreshes itself while it is open.
import { $, visible } from './kernel/dom.js';
import { loadKeys } from './tabs/keys.js';
import { loadOverview } from './tabs/overview.js';
import { loadPlayground } from './tabs/playground.js';
import { loadProviders } from './tabs/providers.js';

/** What each page loads as it opens (calls has nothing to load: the tail fills it). */
const loaders = {
  overview: loadOverview,
  providers: loadProviders,
  keys: loadKeys,
  playground: loadPlayground,
};

const OVERVIEW_REFRESH_MS = 5000;

let refresher;

export function show(page) {
  clearInterval(refresher);
  if (page === 'overview') refresher = setInterval(() => loadOverview().catch(() => {}), OVERVIEW_REFRESH_MS);
  for (const button of document.querySelectorAll('#tabs [data-page]')) {
    if (button.dataset.page === page) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  for (const section of document.querySelectorAll('.page')) section.hidden = section.id !== `page-${page}`;
  loaders[page]?.()
    .then(() => page !== 'playground' && report(page, undefined))
    .catch((error) => report(page, error));
}

/** A page that failed to load says why, on that page: its error line (the playground: its status line); cleared once it loads. */
function report(page, error) {
  const target = page === 'playground' ? $('play-status') : $(`${page}-error`);
  if (target) target.textContent = error ? visible(error.message) : '';
}

for (const button of document.querySelectorAll('#tabs [data-page]')) {
  button.addEventListener('click', () => show(button.dataset.page));
}
