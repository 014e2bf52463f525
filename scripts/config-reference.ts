// docs/config.md, generated from the config schema (src/config/*schema.ts) and the code's own lists of
// environment variables, so the reference cannot drift: test/config-reference.test.ts fails when it is stale.
// Run: npx node scripts/config-reference.ts --write   (or: npx node scripts/config-reference.ts > docs/config.md)
import { writeFileSync } from 'node:fs';
import { AGENT_SETTING_VARIABLES, OPENAI_BASE_URL } from '../src/agent/resolve-endpoint.ts';
import { configJsonSchema, type JsonSchemaNode, SCHEMA_KEY } from '../src/config/config-json-schema.ts';
import { effectiveProxy } from '../src/config/network-options.ts';
import { configSchema } from '../src/config/schema.ts';
import { READER_KEYS, type ReaderKeys } from '../src/fetch/fetch-setup.ts';
import { AUTO_ORDER, KEYLESS_TAIL } from '../src/search/chain.ts';
import { wellKnownEnv } from '../src/search/provider-settings.ts';
import { BUILT_IN_PROVIDERS } from '../src/search/providers/registry.ts';

export const CONFIG_REFERENCE_URL = new URL('../docs/config.md', import.meta.url);
export const REGENERATE_COMMAND = 'npx node scripts/config-reference.ts --write';

/** One key of the config: its dotted path (`providers.<id>.apiKey`, `providers.custom[].id`) and its schema. */
export interface ConfigKey {
  path: string;
  node: JsonSchemaNode;
  /** Whether it is a leaf (no keys of its own below it). */
  isLeaf: boolean;
}

/** `fetch.backends.<id>` → the search provider whose `apiKey` it borrows and the variables it reads. */
export const READER_FALLBACKS = Object.entries(READER_KEYS).map(([id, keys]: [string, ReaderKeys]) => ({
  id,
  ...keys,
}));

/** Every key under `node`, depth first, in schema order; map entries as `<id>`, array items as `[]`. */
export function configKeys(node: JsonSchemaNode, path = ''): ConfigKey[] {
  const keys: ConfigKey[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    if (path === '' && name === SCHEMA_KEY) continue;
    const childPath = path === '' ? name : `${path}.${name}`;
    const below = childKeys(child, childPath);
    keys.push({ path: childPath, node: child, isLeaf: below.length === 0 }, ...below);
  }
  return keys;
}

/** The keys below `node` (at `path`): its properties, its map entries, its list items' keys. */
export function childKeys(node: JsonSchemaNode, path: string): ConfigKey[] {
  const keys = configKeys(node, path);
  const entry = node.additionalProperties;
  if (typeof entry === 'object' && entry.properties) {
    const entryPath = `${path}.<id>`;
    keys.push({ path: entryPath, node: entry, isLeaf: false }, ...configKeys(entry, entryPath));
  }
  if (node.items?.properties) keys.push(...configKeys(node.items, `${path}[]`));
  for (const branch of node.anyOf ?? []) keys.push(...childKeys(branch, path));
  return keys;
}

const SAFE_LIMIT = Number.MAX_SAFE_INTEGER;

/** A short type: `integer 1–20`, `"markdown" | "text"`, `string[]`, `map of string → string`. */
export function describeType(node: JsonSchemaNode): string {
  if (node.anyOf) return node.anyOf.map(describeType).join(' | ');
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (Array.isArray(node.enum)) return node.enum.map((value) => JSON.stringify(value)).join(' | ');
  const types = Array.isArray(node.type) ? node.type : node.type === undefined ? ['any'] : [node.type];
  return types.map((type) => describeOneType(node, type)).join(' | ');
}

function describeOneType(node: JsonSchemaNode, type: string): string {
  if (type === 'integer' || type === 'number') return `${type}${describeRange(node)}`;
  if (type === 'array') {
    const items = node.items?.properties ? 'object' : node.items ? describeType(node.items) : 'any';
    const list = `${items.includes(' | ') ? `(${items})` : items}[]`;
    return typeof node.minItems === 'number' && node.minItems > 0 ? `non-empty ${list}` : list;
  }
  if (type === 'object' && !node.properties) {
    const entry = node.additionalProperties;
    const value = typeof entry === 'object' && Object.keys(entry).length > 0 ? describeType(entry) : 'any';
    return `map of string → ${value}`;
  }
  return type;
}

function describeRange(node: JsonSchemaNode): string {
  const bound = (keyword: string) => {
    const value = node[keyword];
    return typeof value === 'number' && Math.abs(value) < SAFE_LIMIT ? value : undefined;
  };
  const [minimum, maximum, above] = [bound('minimum'), bound('maximum'), bound('exclusiveMinimum')];
  if (minimum !== undefined && maximum !== undefined) return ` ${minimum}–${maximum}`;
  if (above !== undefined && maximum !== undefined) return ` > ${above}, ≤ ${maximum}`;
  if (minimum !== undefined) return ` ≥ ${minimum}`;
  if (above !== undefined) return ` > ${above}`;
  if (maximum !== undefined) return ` ≤ ${maximum}`;
  return '';
}

function describeDefault(key: ConfigKey): string {
  if (!('default' in key.node)) return key.isLeaf ? '—' : '';
  if (!key.isLeaf && !Array.isArray(key.node.default)) return '';
  return `\`${JSON.stringify(key.node.default)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

function keyTable(keys: readonly ConfigKey[]): string[] {
  return [
    '| Key | Type | Default | Description |',
    '| --- | --- | --- | --- |',
    ...keys.map(
      (key) =>
        `| \`${key.path}\` | ${cell(key.isLeaf || key.node.type === 'array' ? describeType(key.node) : 'object')} | ${cell(describeDefault(key))} | ${cell(key.node.description ?? '')} |`,
    ),
  ];
}

const code = (names: readonly string[]) => names.map((name) => `\`${name}\``).join(', ');

/**
 * The proxy variables `effectiveProxy` reads for each setting, strongest first, found by asking it: which names
 * fill which setting, and which of two set names wins.
 */
function proxyVariables(): Array<{ setting: string; names: string[] }> {
  const network = configSchema.parse({}).network;
  const candidates = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY'];
  const noProxyCandidates = ['no_proxy', 'NO_PROXY'];
  const settings = [
    { setting: '`network.proxy`, https:// URLs', key: 'httpsProxy', candidates },
    { setting: '`network.proxy`, http:// URLs', key: 'httpProxy', candidates },
    { setting: '`network.noProxy`', key: 'noProxy', candidates: noProxyCandidates },
  ] as const;
  return settings.map(({ setting, key, candidates: names }) => {
    const read = (env: Record<string, string>) => effectiveProxy(network, env)[key]?.value;
    const used = names.filter((name) => read({ [name]: 'probe' }) === 'probe');
    const ordered = [...used].sort((a, b) => (read({ [a]: 'a', [b]: 'b' }) === 'a' ? -1 : 1));
    return { setting, names: ordered };
  });
}

function providerVariables(): string[] {
  const rows: string[] = [];
  const keyless: string[] = [];
  for (const id of [...AUTO_ORDER, ...KEYLESS_TAIL]) {
    const provider = BUILT_IN_PROVIDERS.get(id);
    if (provider === undefined) continue;
    const variables = Object.entries(wellKnownEnv(provider));
    if (variables.length === 0) keyless.push(`\`${id}\``);
    for (const [setting, names] of variables) {
      // Settings other than the key and the endpoint live under `extras` (resolveProviderSettings spreads it).
      const key = setting === 'apiKey' || setting === 'baseUrl' ? setting : `extras.${setting}`;
      rows.push(`| \`providers.${id}.${key}\` | ${code(names)} |`);
    }
  }
  return [
    '| Key | Variables, first set one wins |',
    '| --- | --- |',
    ...rows,
    '',
    `${keyless.join(' and ')} need no key. A key in the config always wins over the variable; an empty value counts as unset.`,
    '`periscope config show` shows each value read from a variable (keys redacted) and names the variable.',
  ];
}

/** `agent.*` rows from the table `periscope ask` and `config show` read (AGENT_SETTING_VARIABLES). */
function agentVariables(): string[] {
  return Object.entries(AGENT_SETTING_VARIABLES).map(([setting, names]) => {
    const otherwise = setting === 'baseUrl' ? `, else \`${OPENAI_BASE_URL}\`` : '';
    return `| \`agent.${setting}\` | ${names.map((name) => `\`${name}\``).join(', then ')}${otherwise} |`;
  });
}

function readerVariables(): string[] {
  return [
    '| Key | Falls back to |',
    '| --- | --- |',
    ...READER_FALLBACKS.flatMap(({ id, searchId, keyEnv, baseUrlEnv }) => [
      `| \`fetch.backends.${id}.apiKey\` | ${searchId ? `\`providers.${searchId}.apiKey\`, then ` : ''}${code(keyEnv)} |`,
      ...(baseUrlEnv ? [`| \`fetch.backends.${id}.baseUrl\` | ${code(baseUrlEnv)} |`] : []),
    ]),
  ];
}

/** docs/config.md, whole. */
export function renderConfigReference(): string {
  const schema = configJsonSchema();
  const sections = Object.entries(schema.properties ?? {}).filter(([name]) => name !== SCHEMA_KEY);
  const proxies = proxyVariables();
  const lines = [
    '<!-- Generated by scripts/config-reference.ts from the config schema; do not edit by hand. -->',
    `<!-- Regenerate: ${REGENERATE_COMMAND} -->`,
    '',
    '# Configuration reference',
    '',
    'Every key of `periscope.config.json` / `periscope.config.yaml`, generated from the schema that validates it',
    '(`src/config/*schema.ts`). No file is needed: every key has a default or is optional. Unknown keys are errors,',
    'so a typo never silently does nothing. `periscope config show` prints the effective configuration, secrets',
    'redacted; `periscope config schema` prints the JSON Schema this page is made from.',
    '',
    'In the tables, **Default** is what applies when the key is absent; `—` means unset, and the description says what',
    'happens then. `<id>` stands for a provider id, `[]` for each element of a list.',
    '',
    `Sections: ${sections.map(([name]) => `[\`${name}\`](#${name})`).join(', ')}.`,
    '',
    '## Where the file is found',
    '',
    'The first of:',
    '',
    '1. `--config FILE` (it must exist);',
    '2. `$PERISCOPE_CONFIG` (it must exist);',
    '3. the working directory: `periscope.config.json`, `periscope.config.yaml`, `periscope.config.yml`;',
    '4. `~/.config/periscope/`: the same three names, then `config.json`, `config.yaml`, `config.yml`.',
    '',
    'A `.json` file is read as JSON, anything else as YAML. With no file, the defaults apply. Command-line flags',
    '(`--total-timeout-ms`, `--proxy`, …) win over the file. A library `createPeriscope(config)` takes the same keys as an',
    'object and reads no file.',
    '',
    '## `${VAR}` references',
    '',
    'Any string value in the file may contain `${NAME}` or `${NAME:-default}`; it is replaced by the environment',
    'variable `NAME` (a variable set to the empty string counts as unset, so the default applies). Every variable',
    'that is missing and has no default is reported at once, each with the key it is in, and nothing runs. Only',
    "strings are replaced: a number such as `gateway.port` cannot come from a variable. In YAML's `{ … }` flow",
    'style the braces of a reference must be quoted, as in `{ apiKey: "${BRAVE_API_KEY}" }`.',
    '',
    '```yaml',
    'providers:',
    '  brave:',
    '    apiKey: ${BRAVE_API_KEY}',
    '  tavily: { apiKey: "${TAVILY_API_KEY}" }',
    'network:',
    '  proxy: ${CORP_PROXY:-http://127.0.0.1:3128}',
    '```',
    '',
    '## Environment fallbacks',
    '',
    'Without a config value, these variables are read (the config value always wins).',
    '',
    '**Proxy.** With `network.proxy` null, each request picks its proxy by its URL scheme; lower-case names win',
    'over upper-case ones and empty values count as unset. `periscope config show` names the variable it used.',
    '',
    '| Setting | Variables, strongest first |',
    '| --- | --- |',
    ...proxies.map(({ setting, names }) => `| ${setting} | ${code(names)} |`),
    '',
    '**Search providers** (docs/providers.md has every provider, its pacing and its quota):',
    '',
    ...providerVariables(),
    '',
    '**Fetch readers** (`fetch.backends.<id>`):',
    '',
    ...readerVariables(),
    '',
    '**Others.**',
    '',
    '| Key | Falls back to |',
    '| --- | --- |',
    ...agentVariables(),
    '| `fetch.browser.executablePath` | `PERISCOPE_CHROMIUM_PATH`, then the usual install paths |',
    '| `store.url: sqlite://default`, the file | `$XDG_STATE_HOME/periscope/state.db`, else `~/.local/state/periscope/state.db` |',
    '',
    '## Checking and completing the file in an editor',
    '',
    '`periscope config schema` prints the JSON Schema (draft 2020-12) of the config file: every key, its type,',
    'default and description. Save it next to the config and point the file at it; editors then complete keys,',
    'show these descriptions on hover and flag unknown keys and wrong types. Periscope ignores a top-level',
    '`$schema` key. Save the schema again after upgrading Periscope.',
    '',
    '```sh',
    'periscope config schema > periscope.schema.json',
    '```',
    '',
    'YAML (editors using yaml-language-server, such as VS Code with the Red Hat YAML extension), as the first line:',
    '',
    '```yaml',
    '# yaml-language-server: $schema=./periscope.schema.json',
    'search: { chain: [brave, duckduckgo] }',
    '```',
    '',
    'JSON:',
    '',
    '```json',
    '{ "$schema": "./periscope.schema.json", "search": { "chain": ["brave", "duckduckgo"] } }',
    '```',
  ];
  for (const [name, node] of sections) {
    lines.push('', `## \`${name}\``, '', node.description ?? '', '', ...keyTable(childKeys(node, name)));
  }
  return `${lines.join('\n')}\n`;
}

if (import.meta.main) {
  const text = renderConfigReference();
  if (process.argv.includes('--write')) {
    writeFileSync(CONFIG_REFERENCE_URL, text);
    process.stderr.write('wrote docs/config.md\n');
  } else {
    process.stdout.write(text);
  }
}
