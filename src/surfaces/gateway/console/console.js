// The Periscope operator console: plain ES modules, no build step, no dependencies. This entry starts it; the
// shared kernel (the API with the admin key, the event stream, text and links into the DOM, tables, charts) is in
// kernel/, each page in tabs/. Everything that came from a page, a provider or a caller is put in the DOM with
// textContent (never parsed as HTML); links are made only for http(s) URLs.
import { resume } from './sign-in.js';

// The safety helpers, for the browser test (it imports this module as the page loaded it).
export { safeLink, visible } from './kernel/dom.js';

// Keyboard: each text box that may scroll is a named region Tab can reach (set here: the HTML linter refuses
// tabindex on <pre>, axe asks for it).
for (const pre of document.querySelectorAll('pre')) {
  pre.tabIndex = 0;
  pre.setAttribute('role', 'region');
  const heading = pre.previousElementSibling;
  if (heading?.id) pre.setAttribute('aria-labelledby', heading.id);
}

resume();
