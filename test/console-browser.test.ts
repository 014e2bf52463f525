// The operator console as a person uses it, in real Chromium (playwright-core, the browser back-end's binary): sign
// in with an admin key, see a call made through the REST API appear in the live tail, open it and find a hostile
// page title shown as text (no element made from it, no script run, bidi overrides made visible), create and revoke
// a key and see the revoked key refused, run the playground. Chromium may reach only the gateway on 127.0.0.1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { chromiumArgs, findChromium } from '../src/fetch/browser/chromium-launch.ts';
import { createPeriscope, type Periscope } from '../src/index.ts';
import { createApiKey } from '../src/keys/api-keys.ts';
import { createMemoryStore } from '../src/store/memory-store.ts';
import { createGateway, type Gateway } from '../src/surfaces/gateway/gateway.ts';
import { chromiumTestGate } from '../src/testing/chromium.ts';
import { httpCall } from '../src/testing/http-call.ts';
import { startTestServer, type TestServer } from '../src/testing/test-server.ts';

const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1"> Tides \u202Egnp.exe';
const PAGE = `<!doctype html><html><head><title>${HOSTILE_TITLE.replace(/</g, '&lt;').replace(/"/g, '&quot;')}</title></head>
<body><main><article><h1>Tide tables for Brest</h1><p>${'High tide is at 06:12 and again at 18:40. '.repeat(20)}</p>
<p><a href="javascript:window.pwned=2">click me</a></p></article></main></body></html>`;

/** axe-core (a dev dependency), evaluated into the page through the DevTools protocol: the console's CSP allows no
 * script of another origin or inline, and the check must not need the CSP loosened. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe's serious and critical violations on the page as it is now (WCAG 2.x A and AA rules, and best practices). */
async function seriousViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(context: Document, options: object): Promise<{ violations: unknown[] }> };
      }
    ).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return (violations as AxeViolation[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} — ${JSON.stringify(violation.nodes.map((node) => node.target))}`,
    );
}

/**
 * Keyboard and labels on the page as it is now: every visible, enabled control has an accessible name, and Tab
 * from the top reaches every one of them. Returns what fails.
 */
async function keyboardProblems(page: Page): Promise<string[]> {
  const controls = await page.evaluate(() => {
    // Native controls whatever their tabindex (tabindex=-1 takes one out of the Tab order: that is a failure).
    const selector = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';
    const found: Array<{ id: string; named: boolean }> = [];
    for (const [index, control] of [...document.querySelectorAll<HTMLElement>(selector)].entries()) {
      if (control.matches(':disabled') || control.getClientRects().length === 0) continue;
      control.dataset.kbd = String(index);
      const labelled =
        (control as HTMLInputElement).labels?.length ||
        control.getAttribute('aria-label') ||
        control.getAttribute('aria-labelledby') ||
        (control.matches('button, a, tr') && control.textContent?.trim());
      found.push({ id: String(index), named: Boolean(labelled) });
    }
    return found;
  });
  const problems = controls
    .filter((control) => !control.named)
    .map((control) => `control ${control.id} has no label`);
  await page.evaluate(() => {
    (document.activeElement as HTMLElement | null)?.blur();
    window.scrollTo(0, 0);
  });
  await page.locator('body').focus();
  const reached = new Set<string>();
  for (let press = 0; press < controls.length + 5; press += 1) {
    await page.keyboard.press('Tab');
    const id = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kbd);
    if (id !== undefined) reached.add(id);
  }
  for (const control of controls) {
    if (!reached.has(control.id)) {
      problems.push(
        `Tab never reaches control ${control.id}: ${await page.locator(`[data-kbd="${control.id}"]`).evaluate((node) => node.outerHTML.slice(0, 120))}`,
      );
    }
  }
  return problems;
}

/** With PERISCOPE_CONSOLE_SCREENSHOTS=1 the run saves each page to docs/console/ (the README shows them). */
async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env.PERISCOPE_CONSOLE_SCREENSHOTS !== '1') return;
  await page.screenshot({ path: fileURLToPath(new URL(`../docs/console/${name}.png`, import.meta.url)) });
}

describe('operator console in the browser (real Chromium)', chromiumTestGate(), () => {
  let origin: TestServer;
  let periscope: Periscope;
  let gateway: Gateway;
  let url = '';
  let admin = '';
  let alice = '';
  let browser: Browser;
  let page: Page;
  const cspErrors: string[] = [];

  before(async () => {
    origin = await startTestServer({
      'GET /hostile': (_request, response) =>
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE),
    });
    const store = createMemoryStore();
    admin = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    alice = (await createApiKey(store, { agent: 'alice' })).key;
    periscope = createPeriscope(
      {
        network: { allowPrivateNetwork: ['127.0.0.1/32'] },
        cache: { enabled: false },
        limits: { credits: { enabled: true } },
        fetch: { chain: ['local', 'firecrawl'] },
        gateway: { port: 0 },
      },
      { store, env: {} },
    );
    await periscope.credits.grant('alice', 50);
    gateway = createGateway({ periscope, version: '0.0.0-test' });
    url = (await gateway.listen()).url;
    const { chromium } = await import('playwright-core');
    // The browser back-end's closed-network flags; only the gateway's loopback address is reachable.
    const args = chromiumArgs(9).filter((arg) => !arg.startsWith('--proxy-bypass-list'));
    browser = await chromium.launch({
      executablePath: findChromium(null, process.env) as string,
      headless: true,
      chromiumSandbox: false,
      args: [...args, '--proxy-bypass-list=127.0.0.1'],
    });
    const context = await browser.newContext();
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${url}/`) ? route.continue() : route.abort(),
    );
    page = await context.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspErrors.push(message.text());
    });
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    await periscope?.close();
    await origin?.close();
  });

  /** A tab of its own (its own session storage) that may reach only `base`. */
  async function freshPage(base: string): Promise<Page> {
    const context = await browser.newContext();
    await context.route('**/*', (route) =>
      route.request().url().startsWith(`${base}/`) ? route.continue() : route.abort(),
    );
    return context.newPage();
  }

  test('eleven console tabs opened without a kept key make no failed authentication: agents from this address are not locked out', async () => {
    const refused: string[] = [];
    // New tabs of one context: each its own session storage, so none has a key kept.
    const context = (await freshPage(url)).context();
    for (let tab = 0; tab < 11; tab++) {
      const fresh = await context.newPage();
      fresh.on('response', (response) => {
        if (response.status() === 401 || response.status() === 429)
          refused.push(`${response.status()} ${response.url()}`);
      });
      await fresh.goto(`${url}/console`);
      // The start is over once the form has the focus (the page said a key is needed, or a try without one failed).
      await fresh.waitForFunction(() => document.activeElement?.id === 'login-key');
      assert.equal(await fresh.getByRole('navigation', { name: 'Pages' }).isVisible(), false);
      await fresh.close();
    }
    await context.close();
    assert.deepEqual(refused, [], 'no request of the console was refused');
    const agent = await httpCall(`${url}/v1/status`, { headers: { authorization: `Bearer ${alice}` } });
    assert.equal(agent.status, 200, `an agent on this address after 11 console tabs: ${agent.text}`);
    const icon = await httpCall(`${url}/favicon.ico`);
    assert.equal(icon.status, 200);
    assert.match(String(icon.headers['content-type']), /^image\//);
    assert.match(String(icon.headers['cache-control']), /max-age=\d+/);
  });

  test('a wrong key is refused; an admin key opens the console and is kept in session storage only', async () => {
    await page.goto(`${url}/console`);
    await page.getByLabel('Admin key').waitFor();
    assert.equal(
      await page.getByRole('navigation', { name: 'Pages' }).isVisible(),
      false,
      'no page tabs before sign-in',
    );
    await page.getByLabel('Admin key').fill(alice);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page
      .locator('#login-error')
      .filter({ hasText: /admin key/ })
      .waitFor();
    await page.getByLabel('Admin key').fill(admin);
    await page.getByRole('button', { name: 'Open the console' }).click();
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    assert.equal(await page.evaluate(() => sessionStorage.getItem('periscope.console.key')), admin);
    assert.equal(await page.evaluate(() => localStorage.length), 0);
    assert.equal(await page.evaluate(() => document.cookie), '');
    assert.ok(!page.url().includes(admin));
  });

  test('a REST call appears in the live tail within a second; its hostile title is shown as text', async () => {
    await page.locator('#tail-state').filter({ hasText: 'live' }).waitFor();
    const called = await httpCall(`${url}/v1/tools/web_fetch`, {
      headers: {
        authorization: `Bearer ${alice}`,
        'content-type': 'application/json',
        'periscope-session': 's1',
      },
      body: JSON.stringify({ url: `${origin.url}/hostile` }),
    });
    assert.equal(called.status, 200);
    const answered = Date.now();
    const row = page.locator('#calls-body tr', { hasText: 'alice' }).first();
    await row.waitFor({ timeout: 3000 });
    const seenAfterMs = Date.now() - answered;
    assert.ok(seenAfterMs < 1000, `in the tail ${seenAfterMs} ms after the REST answer`);
    assert.match(await row.innerText(), /web_fetch/);
    assert.match(await row.innerText(), /\bok\b/);
    await row.click();
    const data = page.locator('#call-data');
    await data.filter({ hasText: 'onerror' }).waitFor();
    const text = await data.innerText();
    assert.match(text, /<img src=x onerror=/, 'the title is text');
    assert.ok(!text.includes('\u202E'), 'no right-to-left override reaches the page');
    assert.equal(await page.locator('main img').count(), 0, 'no element was made from page text');
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
    await screenshot(page, 'calls');
  });

  test('at 1400 px the calls table keeps tool names, agents, sessions, times and numbers on one line; the display wraps', async () => {
    await page.setViewportSize({ width: 1400, height: 900 });
    try {
      // A call with a long display (its URL), the column that takes the room.
      const long = `${origin.url}/hostile?${'tide-table-for-brest-and-the-bay-of-biscay='.repeat(8)}`;
      const called = await httpCall(`${url}/v1/tools/web_fetch`, {
        headers: {
          authorization: `Bearer ${alice}`,
          'content-type': 'application/json',
          'periscope-session': 'session-with-a-longer-id-0123456789',
        },
        body: JSON.stringify({ url: long }),
      });
      assert.equal(called.status, 200);
      await page.locator('#calls-body tr', { hasText: 'session-with-a-longer-id' }).first().waitFor();
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('#calls-body tr')].flatMap((tr) =>
          [...(tr as HTMLTableRowElement).cells].map((cell, column) => {
            const range = document.createRange();
            range.selectNodeContents(cell);
            const tops = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
            return { column, text: cell.textContent ?? '', lines: tops.size };
          }),
        ),
      );
      const display = lines.filter((cell) => cell.column === 4);
      assert.ok(
        display.some((cell) => cell.lines > 1),
        'the long display wraps (so the check below is at a width that matters)',
      );
      const wrapped = lines.filter((cell) => cell.column !== 4 && cell.lines > 1);
      assert.deepEqual(wrapped, [], 'no name, id, time or number is broken over lines');
    } finally {
      await page.setViewportSize({ width: 1280, height: 720 });
    }
  });

  test('links are made only from http(s) URLs, with rel=noopener noreferrer; bidi controls are made visible', async () => {
    const { made, shown } = await page.evaluate(async () => {
      const module = (await import('/console/console.js' as string)) as {
        safeLink(url: string): HTMLElement;
        visible(text: string): string;
      };
      return {
        made: ['javascript:alert(1)', 'data:text/html,x', 'https://example.com/a'].map((link) => {
          const node = module.safeLink(link);
          return { tag: node.tagName, rel: node.getAttribute('rel'), href: node.getAttribute('href') };
        }),
        shown: module.visible('Tides \u202Egnp.exe \u2067x\u2069'),
      };
    });
    assert.equal(shown, 'Tides ⟨U+202E⟩gnp.exe ⟨U+2067⟩x⟨U+2069⟩');
    assert.deepEqual(made, [
      { tag: 'SPAN', rel: null, href: null },
      { tag: 'SPAN', rel: null, href: null },
      { tag: 'A', rel: 'noopener noreferrer', href: 'https://example.com/a' },
    ]);
  });

  test('keys: create one (its secret shown once), set its rate, revoke it, and the API refuses it', async () => {
    await page.getByRole('button', { name: 'Keys and credits' }).click();
    const create = page.getByRole('group', { name: 'Create a key' });
    await create.getByLabel('Agent').fill('bob');
    await create.getByLabel('Credits').fill('5');
    await page.getByRole('button', { name: 'Create' }).click();
    const secret = page.locator('#key-secret');
    await secret.filter({ hasText: 'psk_' }).waitFor();
    const key = /(psk_\S+)/.exec(await secret.innerText())?.[1] ?? '';
    const status = (headers: Record<string, string>) => httpCall(`${url}/v1/status`, { headers });
    assert.equal((await status({ authorization: `Bearer ${key}` })).status, 200);
    const row = page.locator('#keys-body tr', { hasText: 'bob' });
    await row.waitFor();
    await page.locator('#balances-body tr', { hasText: 'bob' }).filter({ hasText: '5' }).waitFor();
    page.once('dialog', (dialog) => dialog.accept('2/min'));
    await row.getByRole('button', { name: /Set rate of key/ }).click();
    await page.locator('#keys-body tr', { hasText: 'bob' }).filter({ hasText: '2/min' }).waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await row.getByRole('button', { name: /Revoke key/ }).click();
    await row
      .getByRole('button', { name: /Revoke key/ })
      .and(page.locator('[disabled]'))
      .waitFor();
    assert.equal((await status({ authorization: `Bearer ${key}` })).status, 401);
    await page.locator('#balances-body tr', { hasText: 'bob' }).getByRole('button').click();
    await page.locator('#ledger-body tr').first().waitFor();
    await page.evaluate(() => {
      (document.getElementById('key-secret') as HTMLElement).hidden = true;
    });
    await screenshot(page, 'keys');
  });

  test("the keys table shows a key's domains and session budget, as keys list does", async () => {
    const created = await httpCall(`${url}/v1/admin/keys`, {
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        agent: 'carol',
        allowDomains: ['example.com', '*.docs.example.org'],
        blockDomains: ['ads.example.com'],
        session: { maxCalls: { web_fetch: 20 }, maxCredits: 100 },
      }),
    });
    assert.equal(created.status, 201, created.text);
    await page.getByRole('button', { name: 'Keys and credits' }).click();
    const row = page.locator('#keys-body tr', { hasText: 'carol' });
    await row.waitFor();
    const text = await row.innerText();
    assert.match(text, /only example\.com, \*\.docs\.example\.org; not ads\.example\.com/);
    assert.match(text, /web_fetch 20, 100 credits per session/);
    const headings = await page.locator('#keys-table th').allInnerTexts();
    assert.ok(headings.includes('Domains') && headings.includes('Session budget'), headings.join(', '));
  });

  test('overview and providers pages render; the playground shows output, data and display', async () => {
    const missing = await httpCall(`${url}/v1/tools/web_fetch`, {
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${origin.url}/missing` }),
    });
    assert.equal((missing.json as { isError: boolean }).isError, true);
    await page.getByRole('button', { name: 'Overview' }).click();
    await page.locator('#overview-tiles .tile').first().waitFor();
    assert.ok((await page.locator('#overview-chart svg rect').count()) > 0, 'the calls chart has bars');
    assert.ok((await page.locator('#overview-chart svg rect.bar-error').count()) > 0, 'and an error bar');
    assert.ok(
      (await page.locator('#chart-latency svg :is(polyline, circle)').count()) > 0,
      'latency is drawn',
    );
    assert.ok((await page.locator('#chart-credits svg rect').count()) > 0, 'credits are drawn');
    assert.ok((await page.locator('#chart-errors svg rect').count()) > 0, 'errors by code are drawn');
    assert.match(await page.locator('#overview-tiles').innerText(), /Calls today \(UTC\)\s+\d+/);
    assert.match(await page.locator('#overview-tiles').innerText(), /In flight\s+0/);
    await page.getByRole('button', { name: 'Last day' }).click();
    await page.locator('#overview-tiles', { hasText: 'Calls (24 h)' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Last day' }).getAttribute('aria-pressed'), 'true');
    assert.ok((await page.locator('#overview-chart svg rect').count()) > 0, 'the day has the same calls');
    await page.getByRole('button', { name: 'Last hour' }).click();
    await page.locator('#overview-tiles', { hasText: 'Calls (1 h)' }).waitFor();
    await screenshot(page, 'overview');
    await page.getByRole('button', { name: 'Providers' }).click();
    await page.locator('#providers-body tr').first().waitFor();
    const fetchRows = page.locator('#fetch-body tr');
    await fetchRows.first().waitFor();
    assert.match(await fetchRows.nth(0).innerText(), /^1\s+local\s+origin\s+yes\s+[1-9]/);
    assert.match(await fetchRows.nth(1).innerText(), /^2\s+firecrawl\s+reader\b.*\s+no: .*API key/);
    await screenshot(page, 'providers');
    await page.getByRole('button', { name: 'Playground' }).click();
    const playground = page.getByRole('region', { name: 'Playground' });
    const runAs = playground.getByLabel('Run as');
    const aliceKey = runAs.locator('option', { hasText: 'alice' });
    await aliceKey.waitFor({ state: 'attached' });
    await runAs.selectOption((await aliceKey.getAttribute('value')) ?? '');
    await playground.getByLabel('Tool').selectOption('web_fetch');
    await playground.getByLabel('Input (JSON)').fill(JSON.stringify({ url: `${origin.url}/hostile` }));
    const before = await periscope.credits.balance('alice');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('#play-status').filter({ hasText: 'HTTP 200' }).waitFor();
    const after = await periscope.credits.balance('alice');
    assert.ok(after < before, `alice was charged (${before} → ${after})`);
    assert.match(await page.locator('#play-status').innerText(), new RegExp(`${before - after} credits?\\b`));
    assert.match(await page.locator('#play-output').innerText(), /High tide is at 06:12/);
    assert.match(await page.locator('#play-data').innerText(), /onerror/);
    assert.match(await page.locator('#play-display').innerText(), /^fetch /);
    await screenshot(page, 'playground');
    await page.getByRole('button', { name: 'Calls' }).click();
    const played = page.locator('#calls-body tr', { hasText: 'web_fetch (console)' }).first();
    await played.waitFor({ timeout: 3000 });
    assert.match(await played.innerText(), /\balice\b/, 'the playground call is in the tail as alice');
    assert.equal(await page.locator('main img').count(), 0);
    assert.deepEqual(cspErrors, [], 'the console itself breaks none of its own Content-Security-Policy');
  });

  test('accessibility on every page: no serious or critical axe violation, every control labelled and reached by Tab, tabs open with Enter and Space', async () => {
    const signIn = await page.context().newPage();
    await signIn.goto(`${url}/console`);
    await signIn.getByLabel('Admin key').waitFor();
    assert.deepEqual(await seriousViolations(signIn), [], 'sign-in page');
    assert.deepEqual(await keyboardProblems(signIn), [], 'sign-in page');
    await signIn.close();

    const checked: string[] = [];
    for (const [name, ready] of [
      ['Calls', '#calls-body tr'],
      ['Overview', '#overview-tiles .tile'],
      ['Providers', '#fetch-body tr'],
      ['Keys and credits', '#balances-body tr'],
      ['Playground', '#play-as option'],
    ] as const) {
      // Each tab is opened from the keyboard: Enter for some, Space for the others.
      const tab = page.getByRole('navigation', { name: 'Pages' }).getByRole('button', { name, exact: true });
      await tab.focus();
      await page.keyboard.press(checked.length % 2 === 0 ? 'Enter' : 'Space');
      assert.equal(await tab.getAttribute('aria-current'), 'page', `${name} opened from the keyboard`);
      await page.locator(ready).first().waitFor({ state: 'attached' });
      if (name === 'Calls') await page.locator('#calls-body tr').first().press('Enter');
      if (name === 'Calls') await page.locator('#call-detail').waitFor();
      assert.deepEqual(await seriousViolations(page), [], `${name} page`);
      assert.deepEqual(await keyboardProblems(page), [], `${name} page`);
      checked.push(name);
    }
    assert.equal(checked.length, 5);
  });

  test('a console reloaded while its address is locked out (429) keeps its key and shows the wait', async () => {
    // A gateway of its own (its own store): the lock-out must not reach the tests above.
    const store = createMemoryStore();
    const ops = (await createApiKey(store, { agent: 'ops', admin: true })).key;
    const locked = createPeriscope({ gateway: { port: 0, authFailuresPerMinute: 2 } }, { store, env: {} });
    const lockedGateway = createGateway({ periscope: locked, version: '0.0.0-test' });
    const base = (await lockedGateway.listen()).url;
    const tab = await freshPage(base);
    try {
      await tab.goto(`${base}/console`);
      await tab.getByLabel('Admin key').fill(ops);
      await tab.getByRole('button', { name: 'Open the console' }).click();
      await tab.getByRole('navigation', { name: 'Pages' }).waitFor();
      // Something else on this address fails twice: the address is locked out for up to a minute.
      for (let attempt = 0; attempt < 2; attempt++) {
        const wrong = await httpCall(`${base}/v1/status`, { headers: { authorization: 'Bearer psk_wrong' } });
        assert.equal(wrong.status, 401);
      }
      const blocked = await httpCall(`${base}/v1/status`, { headers: { authorization: `Bearer ${ops}` } });
      assert.equal(blocked.status, 429);
      const retryAfter = Number(blocked.headers['retry-after']);
      await tab.reload();
      const wait = tab.locator('#login-wait').filter({ hasText: /signing in again in \d+ s/ });
      await wait.waitFor();
      const seconds = Number(/in (\d+) s\.?$/.exec(await wait.innerText())?.[1]);
      assert.ok(
        seconds >= 1 && seconds <= retryAfter,
        `the wait shown (${seconds} s) is the gateway's (${retryAfter} s)`,
      );
      assert.match(await wait.innerText(), /too many failed authentications/);
      assert.equal(
        await tab.evaluate(() => sessionStorage.getItem('periscope.console.key')),
        ops,
        'the key is kept in this tab',
      );
      assert.equal(await tab.getByRole('navigation', { name: 'Pages' }).isVisible(), false);
    } finally {
      await tab.context().close();
      await lockedGateway.close();
      await locked.close();
      await store.close();
    }
  });
});
