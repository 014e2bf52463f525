import { stringify } from 'yaml';
import { loadConfig } from '../../../config/load-config.ts';
import { redactConfig } from '../../../config/redact.ts';
import { EXIT_OK, UsageError } from '../cli-error.ts';
import { COMMON_FLAGS, parseFlags } from '../flags.ts';
import { type CliIo, writeLine } from '../io.ts';

export const CONFIG_HELP = `Usage: periscope config show [--config FILE] [--json]

Print the effective configuration (file, environment and defaults merged), with secrets redacted.`;

export async function configCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags('config', argv, COMMON_FLAGS);
  if (values.help || positionals.length === 0) {
    writeLine(values.help ? io.stdout : io.stderr, CONFIG_HELP);
    if (!values.help) throw new UsageError("missing subcommand; did you mean 'periscope config show'?");
    return EXIT_OK;
  }
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
  const shown = redactConfig(config);
  writeLine(io.stderr, source ? `# from ${source}` : '# no config file found: defaults only');
  writeLine(io.stdout, values.json ? JSON.stringify(shown, null, 2) : stringify(shown).trimEnd());
  return EXIT_OK;
}
