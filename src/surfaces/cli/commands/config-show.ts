import { stringify } from 'yaml';
import { loadConfig } from '../../../config/load-config.ts';
import { type EffectiveProxy, effectiveProxy } from '../../../config/network-options.ts';
import { redactConfig, redactUrlCredentials } from '../../../config/redact.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

export const CONFIG_HELP = `Usage: periscope config show [--config FILE] [--json]

Print the effective configuration (file, environment and defaults merged), with secrets redacted.`;

export async function configCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('config', argv, COMMON_FLAGS);
  if (values.help) {
    writeLine(io.stdout, CONFIG_HELP);
    return EXIT_OK;
  }
  if (positionals.length === 0)
    throw new UsageError("missing subcommand: 'periscope config show' prints the effective configuration");
  if (positionals[0] !== 'show' || positionals.length > 1) {
    throw new UsageError(
      `unknown config subcommand '${positionals.join(' ')}'; did you mean 'periscope config show'?`,
    );
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
