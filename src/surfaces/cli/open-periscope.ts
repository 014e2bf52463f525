import { dirname } from 'node:path';
import { loadConfig } from '../../config/load-config.ts';
import { createPeriscope, type Periscope } from '../../index.ts';
import type { ParsedFlags } from './flags.ts';
import type { CliIo } from './io.ts';

export interface OpenedPeriscope {
  periscope: Periscope;
  /** The config file read, or undefined when only defaults (and flags) apply. */
  source: string | undefined;
}

/**
 * What every command that calls a tool or reads state does first: find and load the config (`--config`, then the
 * usual places), apply the flags' `overrides`, and make the Periscope. Relative paths in the file
 * (`providers.custom[].module`) start from the file's folder; without a file, from the working directory.
 */
export function openPeriscope(
  io: CliIo,
  values: ParsedFlags,
  overrides: Record<string, unknown> = {},
  /** A command that keeps serving (serve, mcp): see CreatePeriscopeOptions.longRunning. */
  longRunning = false,
): OpenedPeriscope {
  const { config, source } = loadConfig({
    configPath: typeof values.config === 'string' ? values.config : undefined,
    env: io.env,
    cwd: io.cwd,
    overrides,
  });
  const periscope = createPeriscope(config, {
    env: io.env,
    baseDir: source ? dirname(source) : io.cwd,
    longRunning,
  });
  return { periscope, source };
}
