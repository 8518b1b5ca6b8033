import { existsSync } from 'node:fs';
import { FlagError, InvalidConfigError, InvalidPolicyError } from '../core/errors/index.ts';
import { quoted } from '../core/escape-for-terminal.ts';
import { coerceTextValue } from '../core/policy/config/coerce-text-value.ts';
import { FLAG_AGENT, FLAG_ALIASES, FLAG_PRESET } from '../core/policy/config/flag-overrides.ts';
import { didYouMean, nearestNames } from '../core/policy/nearest-name.ts';
import {
  type PolicyDialect,
  SEED_ALIAS_BY_NAME,
  SEED_DIALECTS,
  TOP_LEVEL_ALIAS_NOTES,
} from '../core/policy/policy-aliases.ts';
import { leafKind, leafPaths, parsePath, schemaAt } from '../core/policy/policy-paths.ts';
import { isPresetName, PRESET_NAMES } from '../core/policy/presets/index.ts';
import { translateSeedNames } from '../core/policy/translate-seed-names.ts';
import { valueAtPath } from '../core/value-at-path.ts';
import { type LoadConfigOptions, type LoadedConfig, loadConfig } from './load-config.ts';
import { parseCountFlag } from './parse-count-flag.ts';

/** The flags every command that runs a policy shares. */
export interface PolicyFlags {
  policy?: string;
  config?: string;
  /** The agent block of the config file to apply (`agents`; also CTXKIT_AGENT). */
  agent?: string;
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
  // Seed names (`compression_trigger`, `KeepRecentTokens`) are translated together, as in a config file.
  const seedSettings: Record<string, unknown> = {};
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
    const text = assignment.slice(at + 1);
    if (isSeedName(key)) {
      seedSettings[key] = seedValueFromText(key, text);
      continue;
    }
    refuseUnknownKey(key);
    values[key] = text;
    flagNames[key] = `--set ${key}`;
  }
  if (Object.keys(seedSettings).length > 0) addSeedSettings(seedSettings, preset, values, flagNames);
  if (flags.agent !== undefined) {
    values[FLAG_AGENT] = flags.agent;
    flagNames[FLAG_AGENT] = '--agent';
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

/** The config layer's path for a flag key (`window` → `budget.contextWindow`), as readFlagConfig reads it. */
function flagPath(key: string): string {
  const flag = key.replace(/^--?/, '');
  return FLAG_ALIASES[flag] ?? flag;
}

/** A seed's own name (`compression_trigger`) that is not also a ctxkit key or flag name. */
function isSeedName(key: string): boolean {
  if (!SEED_ALIAS_BY_NAME.has(key) || key in FLAG_ALIASES) return false;
  const path = parsePath(key);
  return path.length === 0 || schemaAt(path) === undefined;
}

/**
 * A seed name's text read by the kind of the field it stands for (every meaning of a name has the
 * same kind), so `summarize_token_percent=75` arrives as the number its translation divides. Text
 * that does not read is passed on as it is, for the field's own check to refuse by name.
 */
function seedValueFromText(key: string, text: string): unknown {
  const meaning = Object.values(SEED_ALIAS_BY_NAME.get(key)?.meanings ?? {})[0];
  const schema = meaning === undefined ? undefined : schemaAt(parsePath(meaning.target));
  if (schema === undefined) return text;
  const coerced = coerceTextValue(text, leafKind(schema));
  return coerced.ok ? coerced.value : text;
}

/** What a --set key could have meant: the keys readFlagConfig takes, and the seeds' names. */
function setKeyCandidates(): string[] {
  return [
    ...Object.keys(FLAG_ALIASES),
    FLAG_PRESET,
    FLAG_AGENT,
    ...leafPaths().map((path) => path.join('.')),
    ...SEED_ALIAS_BY_NAME.keys(),
  ];
}

/** A --set key that is neither a policy key, a flag name nor a seed name: refused with the nearest keys. */
function refuseUnknownKey(key: string): void {
  const flag = key.replace(/^--?/, '');
  if (flag === FLAG_PRESET || flag === FLAG_AGENT) return;
  const path = parsePath(flagPath(key));
  if (path.length > 0 && schemaAt(path) !== undefined) return;
  const suggestions = nearestNames(flag, setKeyCandidates());
  throw new FlagError(
    `--set ${key}`,
    `unknown policy key${didYouMean(suggestions, (name) => TOP_LEVEL_ALIAS_NOTES.get(name))}`,
    key,
  );
}

/**
 * Translates the --set seed names the way a config file's are (translateSeedNames), read in the
 * dialect of the --policy preset when it is a seed's (`--policy picoclaw --set MaxTokens=…`), else
 * inferred from the names given. Each ctxkit field set is recorded as the `--set NAME` that set it.
 */
function addSeedSettings(
  seedSettings: Record<string, unknown>,
  preset: string | undefined,
  values: Record<string, string | number | boolean>,
  flagNames: Record<string, string>,
): void {
  const dialect: PolicyDialect =
    preset !== undefined && (SEED_DIALECTS as readonly string[]).includes(preset)
      ? (preset as PolicyDialect)
      : 'auto';
  let translated: ReturnType<typeof translateSeedNames>;
  try {
    translated = translateSeedNames(seedSettings, { dialect });
  } catch (error) {
    if (!InvalidPolicyError.isInstance(error)) throw error;
    const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message;
    const dialects = Array.isArray(error.details.dialects) ? (error.details.dialects as string[]) : [];
    const hint =
      dialects.length > 0
        ? ` (on the command line, --policy ${dialects.join(' or --policy ')} reads seed names in that seed's dialect, and picks its preset)`
        : '';
    throw new FlagError(`--set ${error.key}`, `${reason}${hint}`, error.key);
  }
  const setBy = new Map(Object.keys(values).map((key) => [flagPath(key), key]));
  for (const [path, written] of translated.writtenAs) {
    const typed = `--set ${written}`;
    const other = setBy.get(path);
    if (other !== undefined) {
      throw new FlagError(
        typed,
        `sets ${path}, which is also set by ${flagNames[other] ?? `--set ${other}`}; keep one of them`,
      );
    }
    const value = valueAtPath(translated.value, parsePath(path));
    values[path] =
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? value
        : JSON.stringify(value);
    flagNames[path] = typed;
  }
}

/** {@link loadConfig} for a command's flags: a value a flag set that is refused names that flag. */
export async function loadConfigFromFlags(
  flags: PolicyFlags,
): Promise<LoadedConfig & Pick<PolicyConfigOptions, 'flagNames'>> {
  const options = configOptionsFromFlags(flags);
  try {
    return { ...(await loadConfig(options)), flagNames: options.flagNames };
  } catch (error) {
    throw inUserWords(error, options.flagNames);
  }
}

/**
 * A source for people to read: `flag:--preset` → `flag:--policy`, `flag:--summarize.trigger` →
 * `flag:--set summarize.trigger` (or `flag:--set compression_trigger`, the seed name typed). Other
 * sources (`preset:`, `file:`, `env:`) are already as the user wrote them. `--json` keeps the
 * config layer's own source, the ctxkit path, for machines.
 */
export function sourceAsTyped(source: string, flagNames: Readonly<Record<string, string>>): string {
  if (!source.startsWith('flag:--')) return source;
  const typed = flagNames[source.slice('flag:--'.length)];
  return typed === undefined ? source : `flag:${typed}`;
}

/** Every `flag:--NAME` in a message, renamed to the flag typed; the longest names first. */
function renameFlagSources(text: string, flagNames: Readonly<Record<string, string>>): string {
  let renamed = text;
  const names = Object.keys(flagNames).sort((a, b) => b.length - a.length);
  for (const name of names) renamed = renamed.split(`flag:--${name}`).join(flagNames[name] ?? `--${name}`);
  return renamed;
}

/**
 * A config error from a flag, renamed to the flag the user typed: the config layer knows
 * `--preset` and `--summarize.trigger`; the user typed `--policy` and `--set summarize.trigger=…`.
 */
export function inUserWords(error: unknown, flagNames: Readonly<Record<string, string>>): unknown {
  if (!InvalidConfigError.isInstance(error)) return error;
  if (!error.source.startsWith('flag:--')) {
    // A rule a flag broke, located at another layer's key: "preset:digitorn, with flag:--window".
    const message = renameFlagSources(error.message, flagNames);
    if (message === error.message) return error;
    const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message;
    const tail = `: ${error.key}: ${reason}`;
    const label = message.endsWith(tail) ? message.slice(0, -tail.length) : undefined;
    const renamed = new InvalidConfigError(
      error.key,
      reason,
      {
        source: error.source,
        ...(error.file !== undefined ? { file: error.file } : {}),
        ...(error.line !== undefined ? { line: error.line } : {}),
        ...(label !== undefined ? { label } : {}),
      },
      error.details,
    );
    renamed.message = message;
    return renamed;
  }
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
  const where =
    location === `--${name}` || location === error.source ? typed : renameFlagSources(location, flagNames);
  // A --set key the schema does not have is a key, not an option.
  const said =
    typed.startsWith('--set ') && reason.startsWith('unknown option')
      ? `unknown policy key${reason.slice('unknown option'.length)}`
      : reason;
  // `--set summarize.trigger: summarize.trigger: …` says the key once; `--set compression_trigger:
  // summarize.trigger: …` names the ctxkit key the seed name stands for.
  const keySaid = typed.startsWith('--set ') ? typed === `--set ${error.key}` : error.key === name;
  const message = where === typed && keySaid ? `${typed}: ${said}` : `${where}: ${error.key}: ${said}`;
  const renamed = new FlagError(typed, said);
  renamed.message = message;
  return renamed;
}
