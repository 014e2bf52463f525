// Signing in and out: the admin key form, the sign-out button, and the start with the key kept in this tab.
import { forgetKey, keyRequired, signIn, storedKey } from './kernel/api.js';
import { $, visible } from './kernel/dom.js';
import { show } from './pages.js';
import { startTail, stopTail } from './tabs/calls.js';

let waiting;

/** Signed in: the page tabs replace the form, and the calls page opens with its live tail. */
function opened() {
  stopWaiting();
  $('login').hidden = true;
  $('tabs').hidden = false;
  show('calls');
  startTail();
}

$('login-button').addEventListener('click', async () => {
  const key = $('login-key').value.trim();
  $('login-key').value = '';
  refused(await signIn(key, opened));
});
$('login-key').addEventListener('keydown', (event) => {
  if (event.key === 'Enter') $('login-button').click();
});
$('logout').addEventListener('click', () => {
  forgetKey();
  stopTail();
  location.reload();
});

/**
 * At start: the key kept from earlier in this tab; without one, the form when the gateway asks for a key (its page
 * says so: trying without a key would count as a failed authentication from this address), else open mode.
 */
export function resume() {
  const key = storedKey();
  if (!key && keyRequired()) {
    $('login-key').focus();
    return;
  }
  signIn(key, opened).then(refused);
}

/**
 * Why signing in failed, under the form. An answer that asks to wait (too many failed authentications from this
 * address) keeps the key: the wait counts down, and the key is tried again when it is over.
 */
function refused(error) {
  stopWaiting();
  if (!error) return;
  const seconds = error.retryAfterSeconds;
  if (!seconds || !storedKey()) {
    $('login-error').textContent = visible(error.message);
    $('login-key').focus();
    return;
  }
  let left = seconds;
  const tell = () => {
    $('login-error').textContent = '';
    $('login-wait').textContent =
      `${visible(error.message.replace(/; try again in \d+ s$/, ''))}. The key is kept in this tab; signing in again in ${left} s.`;
  };
  tell();
  waiting = setInterval(() => {
    left -= 1;
    if (left > 0) return tell();
    stopWaiting();
    signIn(storedKey(), opened).then(refused);
  }, 1000);
}

function stopWaiting() {
  clearInterval(waiting);
  $('login-wait').textContent = '';
}
