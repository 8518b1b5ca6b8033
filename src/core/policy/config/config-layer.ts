import { InvalidConfigError, InvalidPolicyError } from '../../errors/index.ts';
import { parsePolicyWithOrigins } from '../parse-policy.ts';
import { formatPath, leafKind, parsePath, schemaAt } from '../policy-paths.ts';
import type { PolicyOverride } from '../policy-schema.ts';
import { coerceTextValue } from './coerce-text-value.ts';

/**
 * One source of settings in the config stack (preset < file < agent block < env < flags), already
 * validated, with the source of each field it sets.
 */
export interface ConfigLayer {
  override: PolicyOverride;
  /** Leaf path → `file:ctxkit.yaml#summarize.trigger` / `env:CTXKIT_…` / `flag:--window`. */
  sources: Record<string, string>;
  /** Where a key of this layer came from, for errors found after merging. */
  locate: (key: string) => ConfigLocation | undefined;
}

export interface ConfigLocation {
  source: string;
  file?: string;
  line?: number;
  /** How the location reads in a message: `ctxkit.yaml:4`, `CTXKIT_SUMMARIZE__TRIGGER`, `--window`. */
  label?: string;
}

/** The value for `key` or its nearest ancestor in a path-keyed map (`hooks[0].id` → `hooks`). */
export function lookupByPath<T>(key: string, map: ReadonlyMap<string, T> | Record<string, T>): T | undefined {
  const get = (path: string) => (map instanceof Map ? map.get(path) : (map as Record<string, T>)[path]);
  const segments = parsePath(key);
  for (let length = segments.length; length > 0; length--) {
    const found = get(formatPath(segments.slice(0, length)));
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Rethrow a policy error as a config error that names where the offending key came from. */
export function configError(
  error: unknown,
  locate: (key: string) => ConfigLocation | undefined,
  fullKey: (key: string) => string = (key) => key,
): unknown {
  if (!InvalidPolicyError.isInstance(error) || InvalidConfigError.isInstance(error)) return error;
  const where = locate(error.key);
  if (where === undefined) return error;
  const reason = typeof error.details.reason === 'string' ? error.details.reason : error.message;
  return new InvalidConfigError(fullKey(error.key), reason, where, error.details);
}

/** A setting given as text (or a flag's typed value) for one ctxkit path. */
export interface TextSetting {
  path: string[];
  value: unknown;
  location: ConfigLocation;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let current = target;
  for (const [index, segment] of path.entries()) {
    if (index === path.length - 1) {
      current[segment] = value;
      return;
    }
    const next = current[segment];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const child: Record<string, unknown> = {};
      current[segment] = child;
      current = child;
    } else {
      current = next as Record<string, unknown>;
    }
  }
}

/**
 * Build and validate a layer from text settings (env variables, flags): each value is read
 * according to its field's kind, then the whole layer is checked by the schema. Errors name the
 * variable or flag.
 */
export function layerFromTextSettings(settings: readonly TextSetting[]): ConfigLayer {
  const raw: Record<string, unknown> = {};
  const locations = new Map<string, ConfigLocation>();
  for (const setting of settings) {
    const key = formatPath(setting.path);
    const schema = schemaAt(setting.path);
    if (schema === undefined) {
      throw new InvalidConfigError(key, 'unknown setting', setting.location);
    }
    let value = setting.value;
    if (typeof value === 'string') {
      const coerced = coerceTextValue(value, leafKind(schema));
      if (!coerced.ok) throw new InvalidConfigError(key, coerced.reason, setting.location);
      value = coerced.value;
    }
    setPath(raw, setting.path, value);
    locations.set(key, setting.location);
  }
  const locate = (key: string) => lookupByPath(key, locations);
  try {
    const parsed = parsePolicyWithOrigins(raw, { dialect: 'ctxkit' });
    const sources: Record<string, string> = {};
    for (const leaf of Object.keys(parsed.origins)) {
      const location = locate(leaf);
      if (location !== undefined) sources[leaf] = location.source;
    }
    return { override: parsed.override, sources, locate };
  } catch (error) {
    throw configError(error, locate);
  }
}
