import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidInputError } from '../core/errors/index.ts';
import { ENV_CONFIG } from '../core/policy/config/env-overrides.ts';
import type { FlagValues } from '../core/policy/config/flag-overrides.ts';
import { type ResolvedConfig, resolveConfig } from '../core/policy/config/resolve-config.ts';
import type { PolicyDialect } from '../core/policy/policy-aliases.ts';

/**
 * The I/O half of config loading: find and read the config file, take the process environment, and
 * hand both to the pure `resolveConfig`. The file is `configPath` (a `--config` flag), else
 * $CTXKIT_CONFIG, else the first of {@link DEFAULT_CONFIG_FILES} present in `cwd`; no file is fine.
 */

export const DEFAULT_CONFIG_FILES = ['ctxkit.yaml', 'ctxkit.yml', 'ctxkit.json'] as const;

export interface LoadConfigOptions {
  /** An explicit config file; it must exist. */
  configPath?: string;
  /** Where default file names are looked for. Default: process.cwd(). */
  cwd?: string;
  /** Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  flags?: FlagValues;
  preset?: string;
  agent?: string;
  dialect?: PolicyDialect;
}

export interface LoadedConfig extends ResolvedConfig {
  /** The file read, if any. */
  configFile: string | undefined;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  const cwd = options.cwd ?? process.cwd();
  const env = options.env ?? process.env;
  const explicit = options.configPath ?? (env[ENV_CONFIG]?.trim() || undefined);

  let configFile: string | undefined;
  let fileText: string | undefined;
  // Messages and provenance name the file as the user would: as given, or as found in cwd.
  let displayName: string | undefined = explicit;
  if (explicit !== undefined) {
    configFile = resolve(cwd, explicit);
    fileText = await readIfPresent(configFile);
    if (fileText === undefined) {
      // Named as the user gave it: the --config flag, or the environment variable.
      const given = options.configPath !== undefined ? '--config' : ENV_CONFIG;
      throw new InvalidInputError(`${given}: no such file: ${explicit}`);
    }
  } else {
    for (const name of DEFAULT_CONFIG_FILES) {
      const candidate = resolve(cwd, name);
      fileText = await readIfPresent(candidate);
      if (fileText !== undefined) {
        configFile = candidate;
        displayName = name;
        break;
      }
    }
  }

  const resolved = resolveConfig({
    env,
    ...(fileText !== undefined ? { fileText, fileName: displayName ?? configFile } : {}),
    ...(options.flags !== undefined ? { flags: options.flags } : {}),
    ...(options.preset !== undefined ? { preset: options.preset } : {}),
    ...(options.agent !== undefined ? { agent: options.agent } : {}),
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
  });
  return { ...resolved, configFile };
}
