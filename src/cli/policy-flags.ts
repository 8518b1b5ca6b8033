import { existsSync } from 'node:fs';
import { InvalidConfigError } from '../core/errors.ts';
import { FLAG_PRESET } from '../core/policy/config/flag-overrides.ts';
import { isPresetName, PRESET_NAMES } from '../core/policy/presets/index.ts';
import { quoted } from './escape-for-terminal.ts';
import { FlagError } from './flag-error.ts';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from './load-config.ts';
import { parseCountFlag } from './parse-count-flag.ts';

/** The flags every command that runs a policy shares. */
export interface PolicyFlags {
  policy?: string;
  config?: string;
  model?: string;
  window?: string;
  maxOutput?: string;
  set?: string[];
}

/** What `--window 0` means (the DESIGN's "0/unset means auto-detect"); in help, errors and `config`. */
export const WINDOW_ZERO_MEANS = "the model profile's window";
/** What `--max-output 0` means. */
export const MAX_OUTPUT_ZERO_MEANS = "the model profile's, else 4,096";

export interface PolicyConfigOptions extends LoadConfigOptions {
  /**
   * The config layer's name for each flag given (`preset`, `window`, `summarize.trigger`) → the flag
   * as the user typed it (`--policy`, `--window`, `--set summarize.trigger`), for error messages.
   */
  flagNames: Record<string, string>;
}

/**
 * `--policy NAME` picks a preset; `--policy FILE` (or `--config FILE`) reads a config file; `--set
 * key=value` sets any policy path. Flags win over the file and the environment. Numbers are checked
 * here, so a bad one is an error that names the flag.
 */
export function configOptionsFromFlags(flags: PolicyFlags): PolicyConfigOptions {
  const values: Record<string, string | number> = {};
  const flagNames: Record<string, string> = {};
  let preset: string | undefined;
  let configPath = flags.config;
  if (flags.policy !== undefined) {
    if (isPresetName(flags.policy) || !existsSync(flags.policy)) {
      preset = flags.policy;
      flagNames[FLAG_PRESET] = '--policy';
    } else configPath = flags.policy;
  }
  for (const assignment of flags.set ?? []) {
    const at = assignment.indexOf('=');
    if (at <= 0) {
      throw new FlagError(
        '--set',
        `expected key=value (e.g. --set summarize.trigger=0.8), got ${quoted(assignment)}`,
        assignment,
      );
    }
    const key = assignment.slice(0, at).trim();
    values[key] = assignment.slice(at + 1);
    flagNames[key] = `--set ${key}`;
  }
  if (flags.model !== undefined) {
    values.model = flags.model;
    flagNames.model = '--model';
  }
  const window = parseCountFlag('--window', flags.window, { unit: 'tokens', zero: WINDOW_ZERO_MEANS });
  if (window !== undefined) {
    values.window = window;
    flagNames.window = '--window';
  }
  const maxOutput = parseCountFlag('--max-output', flags.maxOutput, {
    unit: 'tokens',
    zero: MAX_OUTPUT_ZERO_MEANS,
  });
  if (maxOutput !== undefined) {
    values['max-output'] = maxOutput;
    flagNames['max-output'] = '--max-output';
  }
  return {
    ...(configPath !== undefined ? { configPath } : {}),
    flags: { ...(preset !== undefined ? { preset } : {}), ...values },
    flagNames,
  };
}

/** {@link loadConfig} for a command's flags: a value a flag set that is refused names that flag. */
export async function loadConfigFromFlags(flags: PolicyFlags): Promise<LoadedConfig> {
  const options = configOptionsFromFlags(flags);
  try {
    return await loadConfig(options);
  } catch (error) {
    throw inUserWords(error, options.flagNames);
  }
}

/**
 * A config error from a flag, renamed to the flag the user typed: the config layer knows
 * `--preset` and `--summarize.trigger`; the user typed `--policy` and `--set summarize.trigger=…`.
 */
export function inUserWords(error: unknown, flagNames: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof InvalidConfigError) || !error.source.startsWith('flag:--')) return error;
  const name = error.source.slice('flag:--'.length);
  const typed = flagNames[name] ?? `--${name}`;
  const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message;
  if (name === FLAG_PRESET) {
    const value = String(error.details.value ?? '');
    const looksLikeFile = /[/\\]|\.(ya?ml|json)$/i.test(value);
    return new FlagError(
      typed,
      looksLikeFile
        ? `no such file: ${value} (--policy takes a config file or a preset: ${PRESET_NAMES.join(', ')})`
        : reason,
      value,
    );
  }
  // The message is `location: key: reason`; the location names flags by their source (`--summarize.trigger`
  // as its own label, or "flag:--window, with flag:--max-output" for a rule across fields). Each flag is
  // renamed by its exact source string, never re-parsed from the text: a --set key can hold any character.
  const tail = `: ${error.key}: ${reason}`;
  const location = error.message.endsWith(tail) ? error.message.slice(0, -tail.length) : error.source;
  let where: string;
  if (location === `--${name}` || location === error.source) where = typed;
  else {
    where = location;
    const sources = Object.keys(flagNames).sort((a, b) => b.length - a.length);
    for (const flag of sources) where = where.split(`flag:--${flag}`).join(flagNames[flag] ?? `--${flag}`);
  }
  // A --set key the schema does not have is a key, not an option.
  const said =
    typed.startsWith('--set ') && reason.startsWith('unknown option')
      ? `unknown policy key${reason.slice('unknown option'.length)}`
      : reason;
  // `--set summarize.trigger: summarize.trigger: …` says the key once.
  const message =
    where === typed && error.key === name ? `${typed}: ${said}` : `${where}: ${error.key}: ${said}`;
  const renamed = new FlagError(typed, said);
  renamed.message = message;
  return renamed;
}
