// Each entry point loads only its own framework: the core and the gateway's MCP handler load no SDK until used, and
// each adapter loads its framework and no other. Checked in a fresh process that records every module resolved.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
