// Each entry point loads only its own framework: the core and the gateway's MCP handler load no SDK until used, and
// each adapter loads its framework and no other. Checked in a fresh process that records every module resolved.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

const run = promisify(execFile);

const FRAMEWORKS = ['@modelcontextprotocol/sdk', 'openai', '@anthropic-ai/sdk', 'ai', '@langchain/core'];

const RECORDER = `
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });
for (const entry of process.argv.slice(1)) await import(entry);
process.stdout.write(JSON.stringify([...seen]));
`;

/** The frameworks loaded by importing the entries, together, in a fresh process. */
async function frameworksLoadedBy(entries: string[]): Promise<string[]> {
  const urls = entries.map((entry) => new URL(`../${entry}`, import.meta.url).href);
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', RECORDER, ...urls]);
  const loaded = JSON.parse(stdout) as string[];
  return FRAMEWORKS.filter((name) => loaded.some((url) => url.includes(`/node_modules/${name}/`)));
}

const EXPECTED: Array<[string[], string[]]> = [
  [
    [
      'src/index.ts',
      'src/surfaces/mcp/http.ts',
      'src/surfaces/cli/main.ts',
      'src/surfaces/adapters/openai.ts',
      'src/surfaces/adapters/anthropic.ts',
    ],
    [],
  ],
  [['src/surfaces/adapters/ai-sdk.ts'], ['ai']],
  [['src/surfaces/adapters/langchain.ts'], ['@langchain/core']],
  [['src/surfaces/mcp/server.ts'], ['@modelcontextprotocol/sdk']],
];

for (const [entries, expected] of EXPECTED) {
  const what = expected.length === 0 ? 'no framework' : `${expected.join(', ')} and nothing else`;
  test(`${entries.join(', ')}: ${what}`, async () => {
    assert.deepEqual(await frameworksLoadedBy(entries), expected);
  });
}

test('package.json exports each adapter as a subpath with its types, built from src/surfaces/adapters', () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
    peerDependenciesMeta: Record<string, { optional: boolean }>;
  };
  for (const name of ['openai', 'anthropic', 'ai-sdk', 'langchain']) {
    const target = manifest.exports[`./${name}`];
    assert.deepEqual(target, {
      types: `./dist/surfaces/adapters/${name}.d.ts`,
      default: `./dist/surfaces/adapters/${name}.js`,
    });
    assert.ok(existsSync(new URL(`../src/surfaces/adapters/${name}.ts`, import.meta.url)), name);
  }
  for (const framework of ['openai', '@anthropic-ai/sdk', 'ai', '@langchain/core']) {
    assert.equal(manifest.peerDependenciesMeta[framework]?.optional, true, framework);
  }
});

test('package.json exports periscope/testing (stand-in, failure suite) with its types; the build emits it', async () => {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    exports: Record<string, { types: string; default: string }>;
  };
  assert.deepEqual(manifest.exports['./testing'], {
    types: './dist/testing/provider-testing.d.ts',
    default: './dist/testing/provider-testing.js',
  });
  assert.ok(existsSync(new URL('../src/testing/provider-testing.ts', import.meta.url)));
  // src/testing is left out of the build as a folder; the public entry is listed by name, and its imports follow.
  const build = JSON.parse(readFileSync(new URL('../tsconfig.build.json', import.meta.url), 'utf8')) as {
    files?: string[];
  };
  assert.ok(build.files?.includes('src/testing/provider-testing.ts'), 'tsconfig.build.json files');
  const entry = (await import('../src/testing/provider-testing.ts')) as Record<string, unknown>;
  for (const name of ['startProviderStandIn', 'standInContext', 'jsonReply', 'runProviderFailureSuite']) {
    assert.equal(typeof entry[name], 'function', name);
  }
  assert.deepEqual(await frameworksLoadedBy(['src/testing/provider-testing.ts']), []);
});

// The CLI loads a command's modules only when that command runs (cold start: bench/cold-start.bench.ts).
const CLI_RECORDER = `
import { registerHooks } from 'node:module';
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });
const { main } = await import(process.argv[1]);
const sink = { write() { return true; } };
const code = await main(process.argv.slice(2), { stdout: sink, stderr: sink, stdin: process.stdin, env: {}, cwd: process.cwd() });
process.stdout.write(JSON.stringify({ code, loaded: [...seen] }));
`;

test('periscope extract loads the content pipeline only: no config schema, YAML, store, search or network code', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'periscope-extract-')), 'page.html');
  writeFileSync(file, '<html><body><article><h1>Title</h1><p>Some text.</p></article></body></html>');
  const main = new URL('../src/surfaces/cli/main.ts', import.meta.url).href;
  const { stdout } = await run(process.execPath, [
    '--input-type=module',
    '-e',
    CLI_RECORDER,
    main,
    'extract',
    file,
  ]);
  const { code, loaded } = JSON.parse(stdout) as { code: number; loaded: string[] };
  assert.equal(code, 0);
  assert.ok(
    loaded.some((url) => url.endsWith('/src/content/html-extract.ts')),
    'the extractor ran',
  );
  const unwanted = [
    '/node_modules/zod/',
    '/node_modules/yaml/',
    '/src/store/',
    '/src/search/',
    '/src/net/http-client.ts',
  ];
  for (const part of unwanted) {
    assert.ok(!loaded.some((url) => url.includes(part)), `${part} should not load for extract`);
  }
});
