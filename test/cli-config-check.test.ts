// `periscope config show` checks what the commands check: a config it prints is one `search` runs with. A custom
// provider module that does not load is refused by both, naming the entry; one that loads is shown.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from './support/run-cli.ts';

function folderWith(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-config-check-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  return folder;
}

const CUSTOM = (module: string) =>
  `providers:\n  custom:\n    - { id: acme, module: ${module} }\nsearch:\n  chain: [acme]\n`;

test('config show refuses a custom provider module that search refuses, naming the entry (exit 2)', async () => {
  const cwd = folderWith({ 'periscope.config.yaml': CUSTOM('./not-there.js') });
  const shown = await runCli(['config', 'show'], { cwd });
  assert.equal(shown.code, 2, shown.stdout);
  assert.match(shown.stderr, /providers\.custom\[0\] \(\.\/not-there\.js\) is not a usable search provider/);
  assert.equal(shown.stdout, '', 'nothing printed as if it were a working config');
  const searched = await runCli(['search', 'tides'], { cwd });
  assert.equal(searched.code, 2);
  assert.match(searched.stderr, /providers\.custom\[0\] \(\.\/not-there\.js\)/);
});

test('config show prints a config whose custom provider module loads', async () => {
  const cwd = folderWith({
    'periscope.config.yaml': CUSTOM('./acme.js'),
    'acme.js': "export default { id: 'acme', async search() { return { results: [], warnings: [] }; } };\n",
  });
  const shown = await runCli(['config', 'show', '--json'], { cwd });
  assert.equal(shown.code, 0, shown.stderr);
  const config = JSON.parse(shown.stdout) as { search: { chain: string[] } };
  assert.deepEqual(config.search.chain, ['acme']);
});
