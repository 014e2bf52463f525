// Signing in and out: the admin key form, the sign-out button, and the start with the key kept in this tab.
import { forgetKey, signIn, storedKey } from './kernel/api.js';
import { $, visible } from './kernel/dom.js';
import { show } from './pages.js';
import { startTail, stopTail } from './tabs/calls.js';

/** Signed in: the page tabs replace the form, and the calls page opens with its live tail. */
function opened() {
  $('login').hidden = true;
  $('tabs').hidden = false;
  show('calls');
  startTail();
}

$('login-button').addEventListener('click', async () => {
  const key = $('login-key').value.trim();
  $('login-key').value = '';
  const failed = await signIn(key, opened);
  $('login-error').textContent = failed ? visible(failed) : '';
});
$('login-key').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') $('login-button').click();
});
$('logout').addEventListener('click', () => {
  forgetKey();
  stopTail();
  location.reload();
});

/** At start: the key kept from earlier in this tab, or open mode (no keys on a loopback gateway). */
export function resume() {
  signIn(storedKey(), opened).then((failed) => {
    if (failed) $('login-key').focus();
  });
}
