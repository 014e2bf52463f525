import { dirname } from 'node:path';
import { stringify } from 'yaml';
import { effectiveAgentSettings } from '../../../agent/resolve-endpoint.ts';
import { configJsonSchema } from '../../../config/config-json-schema.ts';
import { loadConfig } from '../../../config/load-config.ts';
import { type EffectiveProxy, effectiveProxy } from '../../../config/network-options.ts';
import { redactConfig, redactUrlCredentials } from '../../../config/redact.ts';
import type { PeriscopeConfig } from '../../../config/schema.ts';
import type { ProviderEntryConfig } from '../../../config/search-schema.ts';
import { loadCustomProviders } from '../../../search/custom-providers.ts';
import { resolveProviderSettings } from '../../../search/provider-settings.ts';
import { BUILT_IN_PROVIDERS } from '../../../search/providers/registry.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, type ParsedFlags, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';
import { openPeriscope } from '../open-periscope.ts';

export const CONFIG_HELP = `Usage: periscope config show [--config FILE] [--json]
       periscope config schema

  show     print the effective configuration (file, environment and defaults merged), secrets redacted
  schema   print the JSON Schema (draft 2020-12) of the config file, for editors' checks and completion:
             periscope config schema > periscope.schema.json
             YAML: first line  # yaml-language-server: $schema=./periscope.schema.json
             JSON: "$schema": "./periscope.schema.json"

Every key, its default and the environment fallbacks: docs/config.md.`;

export async function configCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('config', argv, COMMON_FLAGS);
  if (values.help) {
    writeLine(io.stdout, CONFIG_HELP);
    return EXIT_OK;
  }
  if (positionals.length === 0)
    throw new UsageError(
      "missing subcommand: 'periscope config show' prints the effective configuration, 'periscope config schema' its JSON Schema",
    );
  const [subcommand] = positionals;
  if ((subcommand !== 'show' && subcommand !== 'schema') || positionals.length > 1) {
    throw new UsageError(
      `unknown config subcommand '${positionals.join(' ')}'; use 'periscope config show' or 'periscope config schema'`,
    );
  }
  if (subcommand === 'schema') {
    if (values.config !== undefined)
      throw new UsageError('config schema describes every config file and reads none; drop --config');
    writeLine(io.stdout, JSON.stringify(configJsonSchema(), null, 2));
    return EXIT_OK;
  }
  const { config, source } = loadConfig({
    configPath: values.config as string | undefined,
    env: io.env,
    cwd: io.cwd,
  });
  await checkAsCommandsDo(config, source ? dirname(source) : io.cwd, io, values);
  const proxy = effectiveProxy(config.network, io.env);
  const network = {
    ...config.network,
    proxy: proxy.httpsProxy?.value ?? proxy.httpProxy?.value ?? null,
    noProxy: proxy.noProxy?.value ?? null,
  };
  const providers = providersWithEnvironment(config, io.env);
  const agent = agentWithEnvironment(config, io.env);
  const shown = redactConfig({ ...config, network, providers: providers.shown, agent: agent.shown });
  writeLine(io.stderr, source ? `# from ${source}` : '# no config file found: defaults only');
  for (const note of [...environmentNotes(proxy), ...providers.notes, ...agent.notes])
    writeLine(io.stderr, `# ${note}`);
  writeLine(io.stdout, values.json ? JSON.stringify(shown, null, 2) : stringify(shown).trimEnd());
  return EXIT_OK;
}

/**
 * What the commands check before their first call, beyond the schema: the Periscope they build refuses unknown
 * provider ids and the like, and `providers.custom` modules must import and export a provider. A config `config
 * show` prints is one `search` runs with.
 */
async function checkAsCommandsDo(config: PeriscopeConfig, baseDir: string, io: CliIo, values: ParsedFlags) {
  const { periscope } = openPeriscope(io, values);
  try {
    await loadCustomProviders(config.providers.custom ?? [], baseDir);
  } finally {
    await periscope.close();
  }
}

interface WithEnvironment<T> {
  shown: T;
  /** `providers.brave.apiKey: from the environment (BRAVE_API_KEY)`. */
  notes: string[];
}

const fromEnvironment = (path: string, variable: string) => `${path}: from the environment (${variable})`;

/**
 * `providers` with what each built-in provider reads from its well-known variables (`resolveProviderSettings`,
 * the rule the search chain applies): a provider the environment configures is shown as if it were written.
 */
function providersWithEnvironment(
  config: PeriscopeConfig,
  env: NodeJS.ProcessEnv,
): WithEnvironment<PeriscopeConfig['providers']> {
  const shown: Record<string, unknown> = { ...config.providers };
  const notes: string[] = [];
  for (const [id, provider] of BUILT_IN_PROVIDERS) {
    const written = config.providers[id];
    const entry =
      written === undefined || Array.isArray(written) ? undefined : (written as ProviderEntryConfig);
    const { settings, fromEnvironment: variables } = resolveProviderSettings(provider, entry, env);
    const names = Object.keys(variables);
    if (names.length === 0) continue;
    const merged: Record<string, unknown> = { ...entry };
    for (const name of names) {
      const topLevel = name === 'apiKey' || name === 'baseUrl';
      if (topLevel) merged[name] = settings[name];
      else
        merged.extras = { ...(merged.extras as Record<string, unknown> | undefined), [name]: settings[name] };
      notes.push(
        fromEnvironment(`providers.${id}.${topLevel ? '' : 'extras.'}${name}`, variables[name] as string),
      );
    }
    shown[id] = merged;
  }
  return { shown: shown as PeriscopeConfig['providers'], notes };
}

/** `agent` with the model, endpoint and key `periscope ask` takes from the environment (`effectiveAgentSettings`). */
function agentWithEnvironment(
  config: PeriscopeConfig,
  env: NodeJS.ProcessEnv,
): WithEnvironment<PeriscopeConfig['agent']> {
  const shown: PeriscopeConfig['agent'] = { ...config.agent };
  const notes: string[] = [];
  const effective = effectiveAgentSettings(config.agent, env);
  for (const name of ['baseUrl', 'model', 'apiKey'] as const) {
    const setting = effective[name];
    if (setting?.variable === undefined) continue;
    shown[name] = setting.value;
    notes.push(fromEnvironment(`agent.${name}`, setting.variable));
  }
  return { shown, notes };
}

/** Which shown values come from proxy environment variables rather than from the config (stderr, like `# from`). */
function environmentNotes({ httpProxy, httpsProxy, noProxy }: EffectiveProxy): string[] {
  const notes: string[] = [];
  if (httpsProxy?.variable) {
    notes.push(`network.proxy: from the environment (${httpsProxy.variable})`);
    if (!httpProxy) notes.push('  http:// URLs connect directly (no HTTP_PROXY)');
    else if (httpProxy.value !== httpsProxy.value)
      notes.push(
        `  http:// URLs go through ${redactUrlCredentials(httpProxy.value)} (${httpProxy.variable})`,
      );
  } else if (httpProxy?.variable) {
    notes.push(`network.proxy: from the environment (${httpProxy.variable}), for http:// URLs only`);
  }
  if (noProxy?.variable) notes.push(`network.noProxy: from the environment (${noProxy.variable})`);
  return notes;
}
