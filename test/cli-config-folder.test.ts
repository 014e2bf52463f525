// Every CLI command that opens a Periscope reads a config file the same way: a relative path in it
// (`providers.custom[].module`) starts from the config file's folder, not from the working directory. Run in this
// process from another folder, with `--config` naming the file.
import assert from 'node:assert/strict';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runCliInProcess } from './support/run-cli.ts';

const root = mkdtempSync(join(tmpdir(), 'periscope-cli-config-folder-'));
after(() => rmSync(root, { recursive: true, force: true }));

// The module leaves a mark beside itself when it is imported, and answers searches with one result.
const PROVIDER_MODULE = `
import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./imported.txt', import.meta.url), 'imported');
export default {
  id: 'folder-local',
  async search(request) {
    return { results: [{ title: 'From the config folder', url: 'https://folder.example/', snippet: request.query }] };
  },
};
`;

/**
 * A config folder with its own provider module (each run gets its own: this process caches what it imported) and a
 * working directory elsewhere, which has no such module.
 */
function setUp(name: string): { configPath: string; marker: string; cwd: string } {
  const folder = join(root, name, 'config');
  const cwd = join(root, name, 'elsewhere');
  mkdirSync(folder, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(folder, 'folder-local.mjs'), PROVIDER_MODULE);
  const configPath = join(folder, 'periscope.config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      search: { chain: ['folder-local'] },
      providers: { custom: [{ id: 'folder-local', module: './folder-local.mjs' }] },
      store: { url: 'memory:' },
    }),
  );
  return { configPath, marker: join(folder, 'imported.txt'), cwd };
}

/** The module is imported when the Periscope is made, in the background: wait for its mark. */
async function imported(marker: string, timeoutMs = 5000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!existsSync(marker)) {
    if (performance.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

const COMMANDS: Array<[string, (configPath: string) => string[]]> = [
  ['search', (configPath) => ['search', 'tides', '--config', configPath]],
  ['status', (configPath) => ['status', '--config', configPath]],
  ['fetch', (configPath) => ['fetch', 'http://127.0.0.1:9/', '--config', configPath]],
  ['credits', (configPath) => ['credits', 'show', '--config', configPath]],
  ['keys', (configPath) => ['keys', 'list', '--config', configPath]],
];

for (const [name, args] of COMMANDS) {
  test(`${name}: providers.custom module paths start from the config file's folder, not the working directory`, async () => {
    const { configPath, marker, cwd } = setUp(name);
    const result = await runCliInProcess(args(configPath), { cwd });
    assert.doesNotMatch(result.stderr, /internal error/, result.stderr);
    assert.ok(await imported(marker), `${name} imported ./folder-local.mjs from the config folder`);
  });
}

test('search answers from the module beside the config file', async () => {
  const { configPath, cwd } = setUp('search-answer');
  const result = await runCliInProcess(['search', 'tides', '--config', configPath], { cwd });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /From the config folder/);
});

test('no command makes its own Periscope: each goes through openPeriscope', () => {
  const folder = new URL('../src/surfaces/cli/commands/', import.meta.url);
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(new URL(file, folder), 'utf8');
    assert.doesNotMatch(source, /createPeriscope\(/, `${file} calls createPeriscope itself`);
  }
});
