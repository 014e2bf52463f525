// What the README and docs say about the CLI and the config is what they do: the commands said to take
// --allow-private-network are those whose help lists it, and every config key the docs name exists.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { configJsonSchema } from '../src/config/config-json-schema.ts';
import { ASK_HELP } from '../src/surfaces/cli/commands/ask.ts';
import { CONFIG_HELP } from '../src/surfaces/cli/commands/config-show.ts';
import { CREDITS_HELP } from '../src/surfaces/cli/commands/credits.ts';
import { EXTRACT_HELP } from '../src/surfaces/cli/commands/extract.ts';
import { FETCH_HELP } from '../src/surfaces/cli/commands/fetch.ts';
import { KEYS_HELP } from '../src/surfaces/cli/commands/keys.ts';
import { MCP_HELP } from '../src/surfaces/cli/commands/mcp.ts';
import { IMAGES_HELP, SEARCH_HELP } from '../src/surfaces/cli/commands/search.ts';
import { SERVE_HELP } from '../src/surfaces/cli/commands/serve.ts';
import { STATUS_HELP } from '../src/surfaces/cli/commands/status.ts';
import { VERIFY_HELP } from '../src/surfaces/cli/commands/verify.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

const HELP: Record<string, string> = {
  ask: ASK_HELP,
  config: CONFIG_HELP,
  credits: CREDITS_HELP,
  extract: EXTRACT_HELP,
  fetch: FETCH_HELP,
  keys: KEYS_HELP,
  mcp: MCP_HELP,
  search: SEARCH_HELP,
  images: IMAGES_HELP,
  serve: SERVE_HELP,
  status: STATUS_HELP,
  verify: VERIFY_HELP,
};

test("the README's list of commands taking --allow-private-network is every command whose help lists it", () => {
  const sentence = /The flag \(on ([^;]+); repeatable\)/.exec(README.replace(/\n/g, ' '))?.[1];
  assert.ok(sentence, 'the README lists the commands that take the flag');
  const listed = [...sentence.matchAll(/`([a-z]+)`/g)].map((match) => match[1]).sort();
  const taking = Object.keys(HELP)
    .filter((command) => HELP[command]?.includes('--allow-private-network'))
    .sort();
  assert.deepEqual(listed, taking);
});

type JsonSchema = {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  items?: JsonSchema;
};

/** Decision records name code as well as keys (`store.keys`, a method): only the reference docs are checked. */
const REFERENCE_DOCS = (file: string) => !file.startsWith('docs/decisions/');

/** Whether `path` (`network.dnsServer`, `providers.brave.apiKey`) names a key of the config's JSON Schema. */
function isConfigKey(schema: JsonSchema, path: readonly string[]): boolean {
  if (path.length === 0) return true;
  const [head, ...rest] = path as [string, ...string[]];
  const branches = [schema, ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];
  return branches.some((branch) => {
    const next =
      branch.properties?.[head] ??
      (typeof branch.additionalProperties === 'object' ? branch.additionalProperties : undefined);
    return next !== undefined && isConfigKey(next, rest);
  });
}

function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  return ['README.md', ...docs];
}

test('every config key the README and docs name in code spans exists (network.dnsServer, not dnsServers)', () => {
  const schema = configJsonSchema() as JsonSchema;
  const sections = Object.keys(schema.properties ?? {});
  const pattern = new RegExp(`\`((?:${sections.join('|')})(?:\\.[A-Za-z_][\\w-]*)+)`, 'g');
  const unknown: string[] = [];
  for (const file of docFiles().filter(REFERENCE_DOCS)) {
    for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(pattern)) {
      const path = (match[1] as string).split('.');
      if (!isConfigKey(schema, path)) unknown.push(`${file}: ${match[1]}`);
    }
  }
  assert.deepEqual(unknown, []);
});

/** A value in a config example that stands for the reader's own: a made-up host or a module path. */
const STAND_IN_VALUE = /(?:[\w-]+\.example(?:\.[a-z]+)?|[\w-]+\.internal)\b|module: \.{1,2}\//;

test('in the YAML config examples, a made-up host or module path is marked as a placeholder on its line', () => {
  const unmarked: string[] = [];
  for (const file of docFiles().filter(REFERENCE_DOCS)) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const block of text.matchAll(/^( *)```ya?ml\n([\s\S]*?)^\1```/gm)) {
      for (const line of (block[2] as string).split('\n')) {
        const [value = '', comment = ''] = line.split(/\s#\s/, 2);
        if (STAND_IN_VALUE.test(value) && !/placeholder/.test(comment))
          unmarked.push(`${file}: ${line.trim()}`);
      }
    }
  }
  assert.deepEqual(unmarked, []);
});
