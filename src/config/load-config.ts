import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import type { z } from 'zod';
import { PeriscopeError } from '../errors.ts';
import { SCHEMA_KEY } from './config-json-schema.ts';
import { interpolateEnvironment } from './interpolate.ts';
import { configSchema, type PeriscopeConfig } from './schema.ts';
import { DEFAULT_STORE_URL } from './store-url.ts';

export interface LoadConfigOptions {
  /** `--config`: a file that must exist. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  homeDir?: string;
  /** Values from command-line flags; they win over the file. */
  overrides?: Record<string, unknown>;
}

export interface LoadedConfig {
  config: PeriscopeConfig;
  /** The file the config came from, or undefined when only defaults (and flags) apply. */
  source: string | undefined;
}

const FILE_NAMES = ['periscope.config.json', 'periscope.config.yaml', 'periscope.config.yml'];

/** Where the config file is looked for, in order: --config, PERISCOPE_CONFIG, the working directory, ~/.config/periscope/. */
export function findConfigFile(options: LoadConfigOptions = {}): string | undefined {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const explicit = options.configPath ?? env.PERISCOPE_CONFIG;
  if (explicit) {
    const path = resolve(cwd, explicit);
    if (!existsSync(path)) {
      const origin = options.configPath ? '--config' : 'PERISCOPE_CONFIG';
      throw configError(`config file ${path} (from ${origin}) does not exist; check the path`, []);
    }
    return path;
  }
  const directories = [cwd, join(options.homeDir ?? homedir(), '.config', 'periscope')];
  for (const directory of directories) {
    for (const name of [...FILE_NAMES, 'config.json', 'config.yaml', 'config.yml']) {
      if (directory === cwd && name.startsWith('config.')) continue;
      const path = join(directory, name);
      if (existsSync(path)) return path;
    }
  }
  return undefined;
}

/** Find, read, interpolate and validate the config. Throws `CONFIG_INVALID` listing every problem. */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const source = findConfigFile(options);
  const raw = source === undefined ? {} : readConfigFile(source);
  const { value, missing } = interpolateEnvironment(raw, env);
  if (missing.length > 0) {
    throw configError(
      `config ${source} references environment variables that are not set; set them or give a default as \${NAME:-default}`,
      missing.map((item) => `${item.path}: \${${item.name}} is not set`),
    );
  }
  const merged = deepMerge(value, options.overrides ?? {});
  const config = validateConfig(merged, source);
  // An application's config (the CLI, serve, mcp) keeps state in the user's state directory unless told
  // otherwise; a library's config object stays in memory (docs/decisions/0008-call-policy.md).
  config.store.url ??= DEFAULT_STORE_URL;
  return { config, source };
}

/** Validate a config object (a file's content or a library caller's object), filling every default. */
export function validateConfig(input: unknown, source?: string): PeriscopeConfig {
  const result = configSchema.safeParse(input ?? {});
  if (result.success) return result.data;
  throw configError(
    `config${source ? ` ${source}` : ''} is invalid; fix these and try again`,
    formatIssues(result.error.issues),
  );
}

// The YAML parser (72 modules) loads only when a YAML file is read; loadConfig stays synchronous.
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  return yaml.parse(text);
}

function readConfigFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw configError(`cannot read config file ${path}: ${(error as Error).message}`, []);
  }
  try {
    const parsed: unknown = extname(path) === '.json' ? JSON.parse(text) : parseYaml(text);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('the top level must be a mapping of keys to values');
    }
    // Editors name the file's JSON Schema here (`periscope config schema`); it is not a setting.
    const { [SCHEMA_KEY]: _schema, ...settings } = parsed as Record<string, unknown>;
    return settings;
  } catch (error) {
    const firstLine = ((error as Error).message ?? String(error)).split('\n')[0];
    throw configError(
      `config file ${path} is not valid ${extname(path) === '.json' ? 'JSON' : 'YAML'}: ${firstLine}`,
      [],
    );
  }
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = issue.path.map(String).join('.') || '(root)';
    return `${path}: ${issue.message}`;
  });
}

function configError(message: string, problems: string[]): PeriscopeError {
  return new PeriscopeError('CONFIG_INVALID', message, { details: { problems } });
}

function deepMerge(base: unknown, overrides: Record<string, unknown>): unknown {
  if (base === null || typeof base !== 'object' || Array.isArray(base)) return overrides;
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const current = result[key];
    result[key] =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current &&
      typeof current === 'object'
        ? deepMerge(current, value as Record<string, unknown>)
        : value;
  }
  return result;
}
