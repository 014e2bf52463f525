import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chromiumArgs, findChromium } from './chromium-launch.ts';

test('Chromium starts with the flags a closed network needs, and every connection of its own goes to the sink', () => {
  const args = chromiumArgs(41_234);
  for (const flag of [
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    '--disable-domain-reliability',
    '--disable-breakpad',
    '--no-pings',
  ]) {
    assert.ok(args.includes(flag), flag);
  }
  assert.ok(args.includes('--proxy-server=http://127.0.0.1:41234'));
  // Loopback is not exempt from the proxy (Chromium bypasses it by default).
  assert.ok(args.includes('--proxy-bypass-list=<-loopback>'));
  assert.ok(args.some((arg) => arg.startsWith('--host-resolver-rules=MAP * ~NOTFOUND')));
  assert.ok(!args.some((arg) => arg.startsWith('--remote-debugging-port')));
});

test('the browser is found without a download: config, then PERISCOPE_CHROMIUM_PATH, then the usual paths', () => {
  assert.equal(
    findChromium('/opt/chrome/chrome', { PERISCOPE_CHROMIUM_PATH: '/x/chromium' }),
    '/opt/chrome/chrome',
  );
  assert.equal(findChromium(null, { PERISCOPE_CHROMIUM_PATH: ' /x/chromium ' }), '/x/chromium');
  const found = findChromium(null, {});
  assert.ok(found === undefined || found.startsWith('/'), String(found));
});
