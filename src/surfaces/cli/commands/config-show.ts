import { stringify } from 'yaml';
import { configJsonSchema } from '../../../config/config-json-schema.ts';
import { loadConfig } from '../../../config/load-config.ts';
import { type EffectiveProxy, effectiveProxy } from '../../../config/network-options.ts';
import { redactConfig, redactUrlCredentials } from '../../../config/redact.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

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
  const proxy = effectiveProxy(config.network, io.env);
  const network = {
    ...config.network,
    proxy: proxy.httpsProxy?.value ?? proxy.httpProxy?.value ?? null,
    noProxy: proxy.noProxy?.value ?? null,
  };
  const shown = redactConfig({ ...config, network });
  writeLine(io.stderr, source ? `# from ${source}` : '# no config file found: defaults only');
  for (const note of environmentNotes(proxy)) writeLine(io.stderr, `# ${note}`);
  writeLine(io.stdout, values.json ? JSON.stringify(shown, null, 2) : stringify(shown).trimEnd());
  return EXIT_OK;
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
