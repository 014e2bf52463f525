// The CLI spawned as a user runs it: real process, real exit codes, real stdout/stderr.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startConnectProxyServer } from '../src/testing/connect-proxy-server.ts';
import { startDnsServer } from '../src/testing/dns-server.ts';
import { startHttpServerOn } from '../src/testing/loopback-server.ts';
import { startSocks5Server } from '../src/testing/socks5-server.ts';
import { startTestServer, type TestHandler, type TestServer } from '../src/testing/test-server.ts';
import { TEST_TLS_CERT } from '../src/testing/tls-fixtures.ts';
import { type CliRun, type RunCliOptions, runCli } from './support/run-cli.ts';

const PAGE = `<!doctype html><html><head><title>Tide tables</title></head><body><main><h1>Tide tables</h1>
${'<p>High tide at Brest is at 06:12 and 18:40 today; the coefficient is 95, a spring tide.</p>'.repeat(8)}</main></body></html>`;

type Run = CliRun;

function run(args: string[], options: Partial<RunCliOptions> = {}): Promise<Run> {
  return runCli(args, {
    ...options,
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), 'periscope-cli-')),
    stdin: options.stdin ?? '',
  });
}

function assertOneLineError(result: Run, code: number, pattern: RegExp): void {
  assert.equal(result.code, code, result.stderr);
  assert.match(result.stderr.trimEnd(), pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(result.stderr.trim().split('\n').length, 1, `one line, got: ${result.stderr}`);
}

/** A failed fetch: the summary line `search` also prints (the call, then its code), then the message. */
function assertFetchFailure(result: Run, code: string, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  const lines = result.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 2, `the summary and the message, got: ${result.stderr}`);
  assert.match(lines[0] as string, new RegExp(`^fetch( \\S+)? → ${code}$`));
  assert.match(lines[1] as string, pattern);
}

const OPEN = ['--allow-private-network', '127.0.0.1'];

const unique = (items: readonly string[]): string[] => [...new Set(items)];

/** `/chain/N` redirects to `/chain/N-1`; `/chain/0` is the page. */
function redirectChain(length: number): Record<string, TestHandler> {
  const routes: Record<string, TestHandler> = {
    '/chain/0': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
  };
  for (let hop = 1; hop <= length; hop += 1)
    routes[`/chain/${hop}`] = (_request, response) =>
      response.writeHead(302, { location: `/chain/${hop - 1}` }).end();
  return routes;
}

let server: TestServer;
before(async () => {
  server = await startTestServer({
    '/tides': (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    // Never answers: the client's deadline has to end the call.
    '/slow': () => {},
    '/big': (_request, response) =>
      response.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(5000)),
    ...redirectChain(3),
  });
});
after(() => server.close());

test('--version and --help', async () => {
  const version = await run(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+\n$/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /fetch <url>/);
  for (const command of ['fetch', 'extract', 'config']) {
    const commandHelp = await run([command, '--help']);
    assert.equal(commandHelp.code, 0, command);
    assert.match(commandHelp.stdout, new RegExp(`Usage: periscope ${command}`));
  }
  assert.equal((await run([])).code, 2);
});

test('fetch prints the page to stdout and the summary to stderr', async () => {
  const result = await run(['fetch', `${server.url}/tides`, '--allow-private-network', '127.0.0.1']);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^<<<untrusted_web_content id="[0-9a-f]{12}"/);
  assert.match(result.stdout, /High tide at Brest is at 06:12/);
  assert.match(result.stderr, /^fetch 127\.0\.0\.1:\d+\/tides → 200 text\/html, \d+ chars in \d+ ms\n$/);
});

test('fetch --json prints the whole ToolResult', async () => {
  const result = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--json',
    '--mode',
    'text',
  ]);
  assert.equal(result.code, 0, result.stderr);
  const parsed = JSON.parse(result.stdout) as { isError: boolean; data: { title: string; status: number } };
  assert.equal(parsed.isError, false);
  assert.equal(parsed.data.title, 'Tide tables');
  assert.equal(parsed.data.status, 200);
});

test('--max-chars and --start read a long page in windows', async () => {
  const first = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--max-chars',
    '200',
    '--json',
  ]);
  const data = (JSON.parse(first.stdout) as { data: { truncated: boolean; nextStartIndex: number } }).data;
  assert.equal(data.truncated, true);
  const second = await run([
    'fetch',
    `${server.url}/tides`,
    '--allow-private-network',
    '127.0.0.1',
    '--max-chars',
    '200',
    '--start',
    String(data.nextStartIndex),
    '--json',
  ]);
  assert.equal(
    (JSON.parse(second.stdout) as { data: { startIndex: number } }).data.startIndex,
    data.nextStartIndex,
  );
  // The model is told to call web_fetch with startIndex; a person at the command line is told the flag.
  assert.match(
    (JSON.parse(first.stdout) as { output: string }).output,
    /To read on, call web_fetch with the same url and startIndex=\d+\.\]$/,
  );
  const plain = await run(['fetch', `${server.url}/tides`, ...OPEN, '--max-chars', '200']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.doesNotMatch(plain.stdout, /web_fetch|startIndex/);
  assert.match(
    plain.stdout,
    new RegExp(
      `<<<end_untrusted_web_content id="[0-9a-f]{12}">>>\\n.*\\n\\[Showing characters 0–${data.nextStartIndex} of \\d+\\. To read on, run the same command with --start ${data.nextStartIndex}\\.\\]\\n$`,
    ),
  );
});

test('a private address is exit 1, the summary then one line naming the fix, and the server is never asked', async () => {
  const before = server.calls.length;
  const result = await run(['fetch', `${server.url}/tides`]);
  assertFetchFailure(result, 'URL_BLOCKED', /^periscope: .*--allow-private-network/);
  assert.equal(server.calls.length, before);
});

test('a fetch that fails prints the same summary line as search, then the message', async () => {
  const result = await run(['fetch', `${server.url}/missing`, ...OPEN]);
  assertFetchFailure(
    result,
    'HTTP_STATUS',
    /^periscope: GET http:\/\/127\.0\.0\.1:\d+\/missing failed with 404 Not Found$/,
  );
  assert.match(result.stderr, /^fetch 127\.0\.0\.1:\d+\/missing → HTTP_STATUS\n/);
  assert.equal(result.stdout, '');
});

test('user mistakes are exit 2 with one line, never a stack trace', async () => {
  assertOneLineError(await run(['fetch']), 2, /missing URL/);
  assertOneLineError(await run(['fetch', 'http://exa mple.com']), 2, /not a valid URL/);
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--bogus']),
    2,
    /Unknown option '--bogus'.*periscope fetch --help/,
  );
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--max-chars', 'lots']),
    2,
    /--max-chars expects a whole number/,
  );
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--mode', 'html']),
    2,
    /--mode must be markdown or text/,
  );
  assertOneLineError(await run(['frobnicate']), 2, /unknown command 'frobnicate'/);
  assertOneLineError(await run(['extract', 'no-such-file.html']), 2, /file not found: no-such-file\.html/);
  assertOneLineError(await run(['extract', '-'], { stdin: '' }), 2, /stdin was empty/);
  assertOneLineError(
    await run(['fetch', 'https://example.com', '--config', 'missing.yaml']),
    2,
    /does not exist/,
  );
});

test('an invalid config is exit 2 with every problem on its own line', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'periscope.config.yaml'),
    'network:\n  maxBytes: -5\n  maxRedirects: lots\nfetch:\n  extractMode: html\n',
  );
  const result = await run(['fetch', 'https://example.com'], { cwd });
  assert.equal(result.code, 2);
  const lines = result.stderr.trim().split('\n');
  assert.match(lines[0] as string, /^periscope: config .*periscope\.config\.yaml is invalid/);
  assert.equal(lines.length, 4, result.stderr);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
});

test('config show prints the effective config with secrets redacted', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(join(cwd, 'periscope.config.yaml'), 'network:\n  proxy: ${MY_PROXY}\n');
  const result = await run(['config', 'show', '--json'], {
    cwd,
    env: { MY_PROXY: 'http://me:hunter2@127.0.0.1:3128' },
  });
  assert.equal(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout) as { network: { proxy: string; maxRedirects: number } };
  assert.equal(shown.network.proxy, 'http://me:[redacted]@127.0.0.1:3128');
  assert.equal(shown.network.maxRedirects, 5);
  assert.doesNotMatch(result.stdout, /hunter2/);
  assert.match(result.stderr, /# from .*periscope\.config\.yaml/);
});

test('extract reads a file or stdin, offline; --url makes relative links absolute', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  const linked = PAGE.replace(
    '<h1>Tide tables</h1>',
    '<h1>Tide tables</h1><p>See the <a href="../almanac/2026">almanac</a> for the year.</p>',
  );
  writeFileSync(join(cwd, 'page.html'), linked);
  const fromFile = await run(['extract', 'page.html', '--url', 'https://tides.example/today/brest'], { cwd });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.match(fromFile.stdout, /High tide at Brest/);
  assert.match(fromFile.stdout, /\[almanac\]\(https:\/\/tides\.example\/almanac\/2026\)/);
  const fromStdin = await run(['extract', '--mode', 'text', '--json'], { stdin: PAGE });
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
  assert.equal((JSON.parse(fromStdin.stdout) as { title: string }).title, 'Tide tables');
});

test('extract: empty, textless and binary input, and --config, are one line with the right exit code', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(join(cwd, 'empty.html'), '');
  writeFileSync(
    join(cwd, 'blank.html'),
    '<!doctype html><html><head><title></title></head><body></body></html>',
  );
  writeFileSync(
    join(cwd, 'data.bin'),
    Buffer.from(Array.from({ length: 4096 }, (_, index) => (index * 7) % 256)),
  );
  const [empty, blank, binary, config] = await Promise.all([
    run(['extract', 'empty.html'], { cwd }),
    run(['extract', 'blank.html'], { cwd }),
    run(['extract', 'data.bin'], { cwd }),
    run(['extract', 'blank.html', '--config', 'periscope.config.yaml'], { cwd }),
  ]);
  assertOneLineError(empty, 2, /^periscope: empty\.html is empty: give an HTML file$/);
  assertOneLineError(blank, 1, /^periscope: blank\.html has no readable text/);
  assertOneLineError(binary, 1, /^periscope: data\.bin is binary data, not HTML; give an HTML page/);
  assertOneLineError(config, 2, /^periscope: extract is offline and reads no config; drop --config/);
  for (const result of [empty, blank, binary, config]) assert.equal(result.stdout, '');
});

test('unsupported schemes: exit 1, the summary then one line saying only http and https can be fetched, no allow-list hint', async () => {
  const urls = [
    'file:///etc/passwd',
    'ftp://127.0.0.1/x',
    'gopher://127.0.0.1:70/1',
    'data:text/html,<p>hi</p>',
    'javascript:alert(1)',
  ];
  const results = await Promise.all(urls.map((url) => run(['fetch', url])));
  for (const [index, result] of results.entries()) {
    const scheme = (urls[index] as string).split(':')[0] as string;
    assertFetchFailure(
      result,
      'URL_BLOCKED',
      new RegExp(
        `^periscope: .*the scheme "${scheme}:" is not allowed; only http and https URLs can be fetched`,
      ),
    );
    assert.doesNotMatch(result.stderr, /--allow-private-network/, urls[index]);
  }
});

test('fetch --json on an error prints the ToolResult with the error code on stdout, exit 1', async () => {
  const before = server.calls.length;
  const result = await run(['fetch', `${server.url}/tides`, '--json']);
  assert.equal(result.code, 1, result.stderr);
  const parsed = JSON.parse(result.stdout) as {
    isError: boolean;
    data: { error: { code: string; details: { reason: string } } };
  };
  assert.equal(parsed.isError, true);
  assert.equal(parsed.data.error.code, 'URL_BLOCKED');
  assert.equal(parsed.data.error.details.reason, 'loopback');
  assert.equal(server.calls.length, before);
});

test('timeouts: the message names the phase and its limit, the hint the flag that raises it', async () => {
  const [total, formerName, headers] = await Promise.all([
    run(['fetch', `${server.url}/slow`, ...OPEN, '--total-timeout-ms', '300']),
    run(['fetch', `${server.url}/slow`, ...OPEN, '--timeout-ms', '300']),
    run(['fetch', `${server.url}/slow`, ...OPEN, '--headers-timeout-ms', '200']),
  ]);
  // --timeout-ms, the former name of --total-timeout-ms (network.timeoutMs → network.totalTimeoutMs), still works.
  for (const result of [total, formerName]) {
    assertFetchFailure(
      result,
      'TIMEOUT',
      /timed out after 300 ms in total \(totalTimeoutMs\) \(raise it with --total-timeout-ms N\)$/,
    );
  }
  assertFetchFailure(
    headers,
    'TIMEOUT',
    /timed out after 200 ms waiting for headers \(headersTimeoutMs\) \(raise it with --headers-timeout-ms N\)$/,
  );
});

test('--max-bytes: a larger body is refused, naming the limit and the flag', async () => {
  const [small, large] = await Promise.all([
    run(['fetch', `${server.url}/big`, ...OPEN, '--max-bytes', '1000']),
    run(['fetch', `${server.url}/big`, ...OPEN, '--max-bytes', '6000', '--max-chars', '100']),
  ]);
  assertFetchFailure(
    small,
    'BODY_TOO_LARGE',
    /larger than 1000 bytes \(maxBytes\).*\(raise it with --max-bytes N\)$/,
  );
  assert.equal(large.code, 0, large.stderr);
});

test('--max-redirects: a chain longer than N fails naming the limit, N hops pass, -1 is a usage error', async () => {
  const [short, exact, negative] = await Promise.all([
    run(['fetch', `${server.url}/chain/3`, ...OPEN, '--max-redirects', '2']),
    run(['fetch', `${server.url}/chain/3`, ...OPEN, '--max-redirects', '3']),
    run(['fetch', `${server.url}/chain/3`, ...OPEN, '--max-redirects', '-1']),
  ]);
  assertFetchFailure(
    short,
    '[A-Z_]+',
    /more than 2 redirects \(maxRedirects\).*\(raise it with --max-redirects N\)$/,
  );
  assert.equal(exact.code, 0, exact.stderr);
  assert.match(exact.stdout, /High tide at Brest/);
  assertOneLineError(negative, 2, /^periscope: --max-redirects expects a whole number ≥ 0, got '-1'$/);
});

test('a flag without its value is one line naming the flag', async () => {
  assertOneLineError(
    await run(['fetch', `${server.url}/tides`, '--proxy', '--json']),
    2,
    /^periscope: --proxy needs a value.*see 'periscope fetch --help'$/,
  );
});

test('--allow-private-network is repeatable: every value is honoured', async () => {
  const second = await startHttpServerOn('127.0.0.2', (_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
  );
  try {
    const both = ['--allow-private-network', '127.0.0.1/32', '--allow-private-network', '127.0.0.2'];
    const [first, other, onlyFirst] = await Promise.all([
      run(['fetch', `${server.url}/tides`, ...both]),
      run(['fetch', `${second.url}/tides`, ...both]),
      run(['fetch', `${second.url}/tides`, '--allow-private-network', '127.0.0.1/32']),
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(other.code, 0, other.stderr);
    assert.match(other.stdout, /High tide at Brest/);
    assertFetchFailure(onlyFirst, 'URL_BLOCKED', /127\.0\.0\.2 is a non-public address/);
    assert.equal(second.calls.filter((call) => call.url.pathname === '/tides').length, 1);
  } finally {
    await second.close();
  }
});

test('--proxy: a CONNECT and a SOCKS5 proxy carry the fetch, and a private target is still refused before them', async () => {
  const connect = await startConnectProxyServer();
  const socks = await startSocks5Server();
  try {
    const [viaConnect, viaSocks, blockedConnect, blockedSocks] = await Promise.all([
      run(['fetch', `${server.url}/tides`, ...OPEN, '--proxy', connect.url]),
      run(['fetch', `${server.url}/tides`, ...OPEN, '--proxy', socks.url]),
      run(['fetch', `${server.url}/tides?blocked`, '--proxy', connect.url]),
      run(['fetch', `${server.url}/tides?blocked`, '--proxy', socks.url]),
    ]);
    assert.equal(viaConnect.code, 0, viaConnect.stderr);
    assert.match(viaConnect.stdout, /High tide at Brest/);
    assert.equal(viaSocks.code, 0, viaSocks.stderr);
    // Each fetch asks for robots.txt, then the page: two tunnels, both to the checked address.
    assert.deepEqual(unique(connect.connects), [`127.0.0.1:${server.port}`]);
    assert.deepEqual(unique(socks.connects.map(({ host, port }) => `${host}:${port}`)), [
      `127.0.0.1:${server.port}`,
    ]);
    assertFetchFailure(
      blockedConnect,
      'URL_BLOCKED',
      /127\.0\.0\.1 is a non-public address.*--allow-private-network/,
    );
    assertFetchFailure(
      blockedSocks,
      'URL_BLOCKED',
      /127\.0\.0\.1 is a non-public address.*--allow-private-network/,
    );
    assert.equal(server.calls.filter((call) => call.url.search === '?blocked').length, 0);
  } finally {
    await Promise.all([connect.close(), socks.close()]);
  }
});

test('--dns-server: names resolve through it, and an answer in a private range is refused without the flag', async () => {
  const dns = await startDnsServer({ 'tides.test': ['127.0.0.1'] });
  try {
    const url = `http://tides.test:${server.port}/tides`;
    const [opened, refused] = await Promise.all([
      run(['fetch', url, '--dns-server', dns.address, '--allow-private-network', '127.0.0.1/32']),
      run(['fetch', `${url}?refused`, '--dns-server', dns.address]),
    ]);
    assert.equal(opened.code, 0, opened.stderr);
    assert.match(opened.stdout, /High tide at Brest/);
    assertFetchFailure(
      refused,
      'URL_BLOCKED',
      /host "tides\.test" resolves to 127\.0\.0\.1, a non-public address \(loopback, 127\.0\.0\.0\/8\) \(if you trust that network, open it with --allow-private-network/,
    );
    assert.equal(server.calls.filter((call) => call.url.search === '?refused').length, 0);
    assert.ok(dns.queries.some((query) => query.name === 'tides.test'));
  } finally {
    await dns.close();
  }
});

test('--dns-timeout-ms and --dns-tries: the resolver limits (network.dnsTimeoutMs, network.dnsTries)', async () => {
  const dns = await startDnsServer({ 'silent.test': { silent: true } });
  try {
    const url = `http://silent.test:${server.port}/tides`;
    const args = ['--dns-server', dns.address, '--dns-timeout-ms', '100'];
    const result = await run(['fetch', url, ...args, '--dns-tries', '1']);
    assertFetchFailure(result, 'NETWORK', /could not be resolved/);
    // A and AAAA, each asked once.
    assert.equal(dns.queries.filter((query) => query.name === 'silent.test').length, 2);
    const usage = await run(['fetch', url, ...args, '--dns-tries', '0']);
    assert.equal(usage.code, 2, usage.stderr);
    assert.match(usage.stderr, /--dns-tries expects a whole number ≥ 1/);
  } finally {
    await dns.close();
  }
});

test('proxy environment variables: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY carry the fetch, NO_PROXY bypasses', async () => {
  const connect = await startConnectProxyServer();
  const bypassed = await startConnectProxyServer();
  const socks = await startSocks5Server();
  const secure = await startHttpServerOn(
    '127.0.0.1',
    (_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE),
    { tls: true },
  );
  // Each run has its own HOME, so its own state and cache: two runs fetch the same page, and a cache hit would
  // answer the second without its proxy.
  const home = () => mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  const httpsHome = home();
  writeFileSync(join(httpsHome, 'test-ca.pem'), TEST_TLS_CERT);
  try {
    const page = `${server.url}/tides`;
    const [http, https, all, direct] = await Promise.all([
      run(['fetch', page, ...OPEN], { cwd: home(), env: { HTTP_PROXY: connect.url } }),
      run(['fetch', `${secure.url}/tides`, ...OPEN], {
        cwd: httpsHome,
        env: { HTTPS_PROXY: connect.url, NODE_EXTRA_CA_CERTS: join(httpsHome, 'test-ca.pem') },
      }),
      run(['fetch', page, ...OPEN], { cwd: home(), env: { ALL_PROXY: socks.url } }),
      run(['fetch', `${page}?direct`, ...OPEN], {
        cwd: home(),
        env: { HTTP_PROXY: bypassed.url, NO_PROXY: '127.0.0.1' },
      }),
    ]);
    for (const result of [http, https, all, direct]) {
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /High tide at Brest/);
    }
    assert.deepEqual(
      unique(connect.connects).toSorted(),
      [`127.0.0.1:${secure.port}`, `127.0.0.1:${server.port}`].toSorted(),
    );
    assert.deepEqual(unique(socks.connects.map(({ host, port }) => `${host}:${port}`)), [
      `127.0.0.1:${server.port}`,
    ]);
    assert.deepEqual(bypassed.connects, []);
    assert.equal(server.calls.filter((call) => call.url.search === '?direct').length, 1);
  } finally {
    await Promise.all([connect.close(), bypassed.close(), socks.close(), secure.close()]);
  }
});

test('config show shows the proxy from the environment, redacted, and says where it came from', async () => {
  const result = await run(['config', 'show', '--json'], {
    env: { HTTPS_PROXY: 'http://me:hunter2@127.0.0.1:3128', NO_PROXY: 'intranet.test' },
  });
  assert.equal(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout) as { network: { proxy: string; noProxy: string } };
  assert.equal(shown.network.proxy, 'http://me:[redacted]@127.0.0.1:3128');
  assert.equal(shown.network.noProxy, 'intranet.test');
  assert.doesNotMatch(result.stdout + result.stderr, /hunter2/);
  assert.match(result.stderr, /^# network\.proxy: from the environment \(HTTPS_PROXY\)$/m);
  assert.match(result.stderr, /^# network\.noProxy: from the environment \(NO_PROXY\)$/m);
  const plain = await run(['config', 'show', '--json']);
  assert.equal((JSON.parse(plain.stdout) as { network: { proxy: null } }).network.proxy, null);
  assert.doesNotMatch(plain.stderr, /environment/);
});

test('config show shows provider keys and agent settings from the environment, redacted, and names each variable', async () => {
  const secrets = { BRAVE_API_KEY: 'brave-secret-1234', OPENAI_API_KEY: 'sk-secret-5678' };
  const result = await run(['config', 'show', '--json'], {
    env: {
      ...secrets,
      SEARXNG_BASE_URL: 'http://127.0.0.1:8888',
      OPENAI_MODEL: 'gpt-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
    },
  });
  assert.equal(result.code, 0, result.stderr);
  const shown = JSON.parse(result.stdout) as {
    providers: Record<string, { apiKey?: string | null; baseUrl?: string | null }>;
    agent: { model: string | null; apiKey: string | null; baseUrl: string | null };
  };
  assert.equal(shown.providers.brave?.apiKey, '[redacted]');
  assert.equal(shown.providers.searxng?.baseUrl, 'http://127.0.0.1:8888');
  assert.equal(shown.providers.serper, undefined, 'a provider with nothing set is not listed');
  assert.deepEqual(
    { model: shown.agent.model, apiKey: shown.agent.apiKey, baseUrl: shown.agent.baseUrl },
    { model: 'gpt-test', apiKey: '[redacted]', baseUrl: 'http://127.0.0.1:11434/v1' },
  );
  for (const secret of Object.values(secrets)) assert.ok(!(result.stdout + result.stderr).includes(secret));
  assert.match(result.stderr, /^# providers\.brave\.apiKey: from the environment \(BRAVE_API_KEY\)$/m);
  assert.match(result.stderr, /^# providers\.searxng\.baseUrl: from the environment \(SEARXNG_BASE_URL\)$/m);
  assert.match(result.stderr, /^# agent\.model: from the environment \(OPENAI_MODEL\)$/m);
  assert.match(result.stderr, /^# agent\.apiKey: from the environment \(OPENAI_API_KEY\)$/m);
  assert.match(result.stderr, /^# agent\.baseUrl: from the environment \(OPENAI_BASE_URL\)$/m);

  // PERISCOPE_MODEL comes before OPENAI_MODEL, as `periscope ask` reads them; the config file before both.
  const both = await run(['config', 'show', '--json'], {
    env: { PERISCOPE_MODEL: 'periscope-model', OPENAI_MODEL: 'gpt-test' },
  });
  assert.equal((JSON.parse(both.stdout) as { agent: { model: string } }).agent.model, 'periscope-model');
  assert.match(both.stderr, /^# agent\.model: from the environment \(PERISCOPE_MODEL\)$/m);
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'periscope.config.yaml'),
    'agent:\n  model: file-model\nproviders:\n  brave:\n    apiKey: file-key-0000\n',
  );
  const file = await run(['config', 'show', '--json'], {
    cwd,
    env: { OPENAI_MODEL: 'gpt-test', BRAVE_API_KEY: 'brave-secret-1234' },
  });
  const fromFile = JSON.parse(file.stdout) as {
    agent: { model: string };
    providers: { brave: { apiKey: string } };
  };
  assert.equal(fromFile.agent.model, 'file-model');
  assert.equal(fromFile.providers.brave.apiKey, '[redacted]');
  assert.doesNotMatch(file.stderr, /environment/);

  const plain = await run(['config', 'show', '--json']);
  const defaults = JSON.parse(plain.stdout) as { agent: { model: null }; providers: Record<string, unknown> };
  assert.equal(defaults.agent.model, null);
  assert.deepEqual(Object.keys(defaults.providers), ['custom']);
  assert.doesNotMatch(plain.stderr, /environment/);
});

test('config without a subcommand is one line naming config show', async () => {
  assertOneLineError(await run(['config']), 2, /^periscope: missing subcommand: 'periscope config show'/);
});

test('config schema prints the JSON Schema of the config file, which a $schema-bearing config passes', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  const result = await run(['config', 'schema'], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stderr, '');
  const schema = JSON.parse(result.stdout) as {
    $schema: string;
    additionalProperties: boolean;
    properties: Record<string, { description?: string; properties?: Record<string, { default?: unknown }> }>;
  };
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(schema.additionalProperties, false);
  for (const section of [
    '$schema',
    'network',
    'fetch',
    'search',
    'providers',
    'limits',
    'cache',
    'gateway',
    'mcp',
  ])
    assert.ok(schema.properties[section]?.description, section);
  assert.equal(schema.properties.fetch?.properties?.maxChars?.default, 50_000);
  // An editor's `$schema` line does not make the file invalid.
  writeFileSync(
    join(cwd, 'periscope.config.json'),
    JSON.stringify({ $schema: './periscope.schema.json', search: { maxResults: 7 } }),
  );
  const shown = await run(['config', 'show', '--json'], { cwd });
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal((JSON.parse(shown.stdout) as { search: { maxResults: number } }).search.maxResults, 7);
  assertOneLineError(await run(['config', 'schema', '--config', 'x.yaml'], { cwd }), 2, /drop --config/);
  assertOneLineError(
    await run(['config', 'validate']),
    2,
    /^periscope: unknown config subcommand 'validate'; use 'periscope config show' or 'periscope config schema'/,
  );
});

test('a reader that closes the pipe early ends the command quietly: no stack, exit 0', async () => {
  const cwd = mkdtempSync(join(tmpdir(), 'periscope-cli-'));
  writeFileSync(
    join(cwd, 'big.html'),
    PAGE.replace('</main>', `${'<p>Another line of tide tables for the coast.</p>\n'.repeat(20_000)}</main>`),
  );
  const [extract, config] = await Promise.all([
    run(['extract', 'big.html'], { cwd, closeStdout: true }),
    run(['config', 'show', '--json'], { cwd, closeStdout: true }),
  ]);
  for (const result of [extract, config]) {
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /EPIPE|\n\s+at /);
  }
});

test('--block-domain and --allow-domain (egress.domains): a refused domain is exit 1, POLICY_DENIED, never asked', async () => {
  const before = server.calls.length;
  const blocked = await run(['fetch', `${server.url}/tides`, ...OPEN, '--block-domain', '127.0.0.1']);
  assertFetchFailure(
    blocked,
    'POLICY_DENIED',
    /^periscope: web_fetch 127\.0\.0\.1 was refused: the deployment blocks 127\.0\.0\.1$/,
  );
  const unlisted = await run(['fetch', `${server.url}/tides`, ...OPEN, '--allow-domain', 'docs.example']);
  assertFetchFailure(unlisted, 'POLICY_DENIED', /the deployment allows only docs\.example$/);
  assert.equal(server.calls.length, before);
  const allowed = await run(['fetch', `${server.url}/tides`, ...OPEN, '--allow-domain', '127.0.0.1']);
  assert.equal(allowed.code, 0, allowed.stderr);
  const malformed = await run(['fetch', `${server.url}/tides`, '--allow-domain', 'https://docs.example/']);
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.match(
    malformed.stderr,
    /--allow-domain expects a domain pattern .* got 'https:\/\/docs\.example\/'/,
  );
});
