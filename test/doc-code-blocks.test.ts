// Every YAML and JSON code block in README.md and docs/ is what it claims to be: it parses, and a block that is a
// Periscope config file loads through the real loader, as a user who pastes it into periscope.config.yaml (or
// .json) would run it. A block is a config file when any of its top-level keys is a config section (`network`,
// `fetch`, `providers`, …): then it is loaded whole, so a misspelt section next to real ones is an error too.
// Other blocks (an MCP client's configuration, a fragment to put under a key) must still parse.
// Every TypeScript and JavaScript block runs as written, as a module, in a network namespace with loopback only
// (`unshare -rn`), with `periscope` resolved to the source and stand-in model endpoints on 127.0.0.1
// (test/support/doc-snippet-preload.ts): a block that uses a name it never defines, or calls an API that is not
// there, fails. A block whose first line is `// name.ts` is written under that name, so a later block of the same
// page can import it (`./name.js`). Decision records (docs/decisions/) sketch interfaces and are not run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config/load-config.ts';
import { configSchema } from '../src/config/schema.ts';
import { isPeriscopeError } from '../src/errors.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface CodeBlock {
  /** `README.md:215`: the file and the line of the opening fence. */
  where: string;
  language: string;
  text: string;
}

/** Fenced code blocks (``` or ~~~, indented inside a list item or not), with the fence's indentation removed. */
function codeBlocks(file: string, root = ROOT): CodeBlock[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^( *)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[index] as string);
    if (!open) continue;
    const [, indent = '', fence = '', language = ''] = open;
    const body: string[] = [];
    let end = index + 1;
    for (; end < lines.length; end += 1) {
      const line = lines[end] as string;
      if (line.trim().startsWith(fence) && line.trim().replace(/[`~]/g, '') === '') break;
      body.push(line.startsWith(indent) ? line.slice(indent.length) : line.trimStart());
    }
    blocks.push({ where: `${file}:${index + 1}`, language: language.toLowerCase(), text: body.join('\n') });
    index = end;
  }
  return blocks;
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  return ['README.md', ...docs.sort()];
}

const CONFIG_SECTIONS = new Set(Object.keys(configSchema.shape));

/** Whether a parsed block is (meant as) a Periscope config file: a mapping with any config section at the top. */
function isConfigFile(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  return Object.keys(value).some((key) => CONFIG_SECTIONS.has(key));
}

/** Every `${NAME}` without a default the block references, set to a dummy value, as a user would have them set. */
function dummyEnvironment(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g))
    env[match[1] as string] = `dummy-${match[1]}`;
  return env;
}

/** Load `text` as the file `name` through loadConfig, in a scratch folder; the loader's own message on failure. */
function loadAsConfigFile(name: string, text: string): void {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-doc-block-'));
  const path = join(folder, name);
  writeFileSync(path, text);
  try {
    loadConfig({ configPath: path, cwd: folder, homeDir: folder, env: dummyEnvironment(text) });
  } catch (error) {
    if (!isPeriscopeError(error)) throw error;
    const problems = (error.details.problems as string[] | undefined) ?? [];
    assert.fail([error.message, ...problems.map((problem) => `  ${problem}`)].join('\n'));
  }
}

const PARSED_LANGUAGES = new Set(['yaml', 'yml', 'json']);
const blocks = markdownFiles()
  .flatMap((file) => codeBlocks(file))
  .filter((block) => PARSED_LANGUAGES.has(block.language));

test('the docs have YAML and JSON blocks to check, config files among them', () => {
  assert.ok(blocks.length >= 6, `found ${blocks.length} blocks`);
  const configs = blocks.filter((block) => {
    try {
      return isConfigFile(block.language === 'json' ? JSON.parse(block.text) : parseYaml(block.text));
    } catch {
      return true; // a block that does not parse is reported by its own test
    }
  });
  assert.ok(configs.length >= 4, `found ${configs.length} config-file blocks`);
});

for (const block of blocks) {
  test(`${block.where} (${block.language}) parses, and loads as a config file when it is one`, () => {
    let value: unknown;
    try {
      value = block.language === 'json' ? JSON.parse(block.text) : parseYaml(block.text);
    } catch (error) {
      assert.fail(`not valid ${block.language.toUpperCase()}: ${(error as Error).message.split('\n')[0]}`);
    }
    if (!isConfigFile(value)) return;
    loadAsConfigFile(
      block.language === 'json' ? 'periscope.config.json' : 'periscope.config.yaml',
      block.text,
    );
  });
}

test('a config block with a misspelt section next to real ones is loaded and refused, not skipped', () => {
  const text = 'network:\n  timeoutMs: 1000\nfetchh:\n  maxChars: 10\n';
  const value = parseYaml(text);
  assert.ok(isConfigFile(value));
  assert.throws(() => loadAsConfigFile('periscope.config.yaml', text), /fetchh/);
});

test('the fence reader finds indented blocks and strips their indentation', () => {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-doc-blocks-'));
  const sample =
    '- a step:\n\n  ```yaml\n  search:\n    maxResults: 3\n  ```\n\n````json\n{ "a": 1 }\n````\n';
  writeFileSync(join(folder, 'sample.md'), sample);
  assert.deepEqual(codeBlocks('sample.md', folder), [
    { where: 'sample.md:3', language: 'yaml', text: 'search:\n  maxResults: 3' },
    { where: 'sample.md:8', language: 'json', text: '{ "a": 1 }' },
  ]);
});

const RUN_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript']);
const PRELOAD = fileURLToPath(new URL('./support/doc-snippet-preload.ts', import.meta.url));
const ISOLATION = spawnSync('unshare', ['-rn', 'true']).status === 0;
const NO_ISOLATION =
  'needs `unshare -rn` (user and network namespaces) so that a block can reach nothing but loopback';

/** Where each block of one page is written: `// name.ts` on its first line names it, else `block-<line>.ts`. */
function snippetName(block: CodeBlock): string {
  const named = /^\/\/ ([\w.-]+\.ts)\b/.exec(block.text);
  return named ? (named[1] as string) : `block-${block.where.split(':')[1]}.ts`;
}

/** A scratch folder with every block of `blocks` written in it, and the repository's node_modules beside them. */
function writeSnippets(blocks: CodeBlock[]): string {
  const folder = mkdtempSync(join(tmpdir(), 'periscope-doc-snippets-'));
  symlinkSync(join(ROOT, 'node_modules'), join(folder, 'node_modules'));
  for (const block of blocks) writeFileSync(join(folder, snippetName(block)), `${block.text}\n`);
  return folder;
}

/** Run one written block with loopback only; the exit status and what it printed on stderr. */
function runSnippet(folder: string, name: string): { status: number | null; stderr: string } {
  const run = spawnSync(
    'unshare',
    [
      '-rn',
      'sh',
      '-c',
      'ip link set lo up && exec "$@"',
      'sh',
      process.execPath,
      '--import',
      PRELOAD,
      join(folder, name),
    ],
    {
      cwd: folder,
      encoding: 'utf8',
      timeout: 180_000,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: folder,
        XDG_STATE_HOME: join(folder, 'state'),
        OPENAI_API_KEY: 'stand-in',
        OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
        ANTHROPIC_API_KEY: 'stand-in',
        ANTHROPIC_BASE_URL: 'http://127.0.0.1:11434',
      },
    },
  );
  const error = run.error ? `\n${run.error.message}` : '';
  return { status: run.status, stderr: `${run.stdout.slice(-2000)}\n${run.stderr}${error}` };
}

// Decision records sketch interfaces (signatures with elided parameters): they are read, not run.
const scripts = markdownFiles()
  .filter((file) => !file.startsWith('docs/decisions/'))
  .map((file) => codeBlocks(file).filter((block) => RUN_LANGUAGES.has(block.language)))
  .filter((page) => page.length > 0);

test('the docs have TypeScript blocks to run, the README library example among them', () => {
  const all = scripts.flat();
  assert.ok(all.length >= 5, `found ${all.length} blocks`);
  assert.ok(
    all.some((block) => block.where.startsWith('README.md') && block.text.includes('createPeriscope(')),
  );
});

for (const page of scripts) {
  let folder: string | undefined;
  for (const block of page) {
    test(`${block.where} (${block.language}) runs as written`, { skip: !ISOLATION && NO_ISOLATION }, () => {
      folder ??= writeSnippets(page);
      const run = runSnippet(folder, snippetName(block));
      assert.equal(run.status, 0, `exit ${run.status}:\n${run.stderr.slice(-3000)}`);
    });
  }
}

test('a block that uses a name it never defines fails the run', { skip: !ISOLATION && NO_ISOLATION }, () => {
  const block = {
    where: 'sample.md:1',
    language: 'ts',
    text: "import { createPeriscope } from 'periscope';\n\nconst periscope = createPeriscope();\nawait periscope.extract({ html, url });\nawait periscope.close();",
  };
  const folder = writeSnippets([block]);
  const run = runSnippet(folder, snippetName(block));
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /ReferenceError: html is not defined/);
});

test('`npm install` in a clone builds dist/, which the package exports point at', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    exports: Record<string, { default: string }>;
  };
  assert.match(manifest.scripts.prepare ?? '', /^npm run build\b/, 'a prepare script that runs the build');
  for (const target of Object.values(manifest.exports)) assert.match(target.default, /^\.\/dist\//);
});
