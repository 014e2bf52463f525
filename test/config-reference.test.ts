// docs/config.md is generated from the config schema (scripts/config-reference.ts); this keeps it current and keeps
// the schema documented: every key has a description, units are named, and defaults are the ones that apply.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  CONFIG_REFERENCE_URL,
  childKeys,
  configKeys,
  READER_FALLBACKS,
  REGENERATE_COMMAND,
  renderConfigReference,
} from '../scripts/config-reference.ts';
import { configJsonSchema, type JsonSchemaNode } from '../src/config/config-json-schema.ts';
import { configSchema } from '../src/config/schema.ts';

const schema = configJsonSchema();
const keys = configKeys(schema);

test('docs/config.md is what scripts/config-reference.ts generates from the schema', () => {
  const written = readFileSync(CONFIG_REFERENCE_URL, 'utf8');
  assert.ok(
    written === renderConfigReference(),
    `docs/config.md is out of date with the config schema; regenerate it with: ${REGENERATE_COMMAND}`,
  );
});

test('the JSON Schema is draft 2020-12, refuses unknown keys and allows $schema at the top', () => {
  assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(schema.additionalProperties, false);
  assert.equal(schema.properties?.$schema?.type, 'string');
  assert.deepEqual(
    Object.keys(schema.properties ?? {}).filter((name) => name !== '$schema'),
    Object.keys(configSchema.shape),
  );
  const timeout = schema.properties?.network?.properties?.totalTimeoutMs;
  assert.equal(timeout?.default, 30_000);
  assert.match(timeout?.description ?? '', /ms/);
  // Its former name is still a key a file may use (not an unknown key the editor flags).
  const formerName = schema.properties?.network?.properties?.timeoutMs;
  assert.match(formerName?.description ?? '', /Former name of `totalTimeoutMs`/);
});

test('every key of the schema has a description, sections and map entries included', () => {
  const paths = keys.map((key) => key.path);
  for (const expected of [
    'network.totalTimeoutMs',
    'network.timeoutMs',
    'network.dnsTries',
    'fetch.backends.service.toolCallIdHeader',
    'providers.<id>.apiKey',
    'providers.custom[].module',
    'limits.rate.perTool.web_fetch.windowMs',
    'mcp.tools',
  ])
    assert.ok(paths.includes(expected), `the walk reaches ${expected}`);
  const undocumented = keys.filter((key) => !key.node.description?.trim()).map((key) => key.path);
  assert.deepEqual(undocumented, [], 'keys without .describe(…) in src/config/*schema.ts');
  // The same, without the walk: any `properties` anywhere in the JSON Schema.
  const missing: string[] = [];
  const visit = (value: unknown, where: string): void => {
    if (value === null || typeof value !== 'object') return;
    const properties = (value as JsonSchemaNode).properties;
    if (properties && typeof properties === 'object')
      for (const [name, property] of Object.entries(properties))
        if (!property.description?.trim()) missing.push(`${where}/${name}`);
    for (const [name, child] of Object.entries(value)) visit(child, `${where}/${name}`);
  };
  visit(schema, '#');
  assert.deepEqual(missing, []);
});

test('a key with a unit in its name says the unit', () => {
  const units: Array<[RegExp, RegExp]> = [
    [/Ms$/, /\bms\b/],
    [/Bytes$/, /\bbytes\b/i],
    [/Chars$/, /\bcharacters\b/i],
  ];
  for (const key of keys) {
    const name = key.path.split('.').at(-1) ?? '';
    for (const [suffix, unit] of units)
      if (suffix.test(name)) assert.match(key.node.description ?? '', unit, key.path);
  }
});

test('the defaults in the reference are the ones that apply when a key is absent', () => {
  const applied = configSchema.parse({}) as unknown as Record<string, unknown>;
  let compared = 0;
  for (const key of keys) {
    if (!('default' in key.node) || /<id>|\[\]/.test(key.path)) continue;
    if (key.node.type === 'object') continue;
    const names = key.path.split('.');
    const parent = names
      .slice(0, -1)
      .reduce<unknown>((node, name) => (node as Record<string, unknown> | undefined)?.[name], applied);
    // A key of an optional object left unset (egress.beforeCallWebhook): its defaults apply once it is set.
    if (parent === undefined) continue;
    const value = (parent as Record<string, unknown>)[names.at(-1) as string];
    assert.deepEqual(value, key.node.default, key.path);
    compared += 1;
  }
  assert.ok(compared > 50, `compared ${compared} defaults`);
});

test("each reader's entry names the key and variables fetch-setup falls back to", () => {
  const backends = childKeys(schema.properties?.fetch?.properties?.backends ?? {}, 'fetch.backends');
  for (const { id, searchId, keyEnv, baseUrlEnv } of READER_FALLBACKS) {
    const description = backends.find((key) => key.path === `fetch.backends.${id}`)?.node.description ?? '';
    for (const name of [...keyEnv, ...(baseUrlEnv ?? [])])
      assert.ok(description.includes(name), `${id}: ${name}`);
    if (searchId)
      assert.ok(description.includes(`providers.${searchId}.apiKey`), `${id}: providers.${searchId}`);
  }
});
