import { InvalidConfigError } from '../../errors/index.ts';
import { didYouMean, nearestNames } from '../nearest-name.ts';
import { keysAt, leafPaths, schemaAt } from '../policy-paths.ts';
import { type ConfigLayer, layerFromTextSettings, type TextSetting } from './config-layer.ts';

/**
 * Environment variables. A policy field is `CTXKIT_` + its path, each segment in SCREAMING_SNAKE,
 * segments joined by a double underscore:
 *
 *   CTXKIT_MODEL=gpt-4o
 *   CTXKIT_BUDGET__CONTEXT_WINDOW=65536
 *   CTXKIT_SUMMARIZE__TRIGGER=0.8
 *   CTXKIT_SUMMARIZE__KEEP_RECENT_TOKENS=20_000
 *   CTXKIT_CLEARING__EXCLUDE_TOOLS=read_file,grep          (or a JSON array)
 *   CTXKIT_HOOKS='[{"id":"every10","on":"turn_end",…}]'    (JSON)
 *
 * plus CTXKIT_PRESET and CTXKIT_AGENT (which agent block of the file applies). A variable with a
 * double underscore must name a field (a typo is an error with a suggestion); other CTXKIT_
 * variables without one (CTXKIT_CONFIG, a server's CTXKIT_DATABASE_URL, …) belong to other parts of
 * ctxkit and are left alone.
 */

export const ENV_PREFIX = 'CTXKIT_';
export const ENV_PRESET = `${ENV_PREFIX}PRESET`;
export const ENV_AGENT = `${ENV_PREFIX}AGENT`;
/** Read by the file loader (src/cli/load-config.ts), not here. */
export const ENV_CONFIG = `${ENV_PREFIX}CONFIG`;

function screaming(segment: string): string {
  return segment.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

function folded(segment: string): string {
  return segment.toLowerCase().replace(/_/g, '');
}

/** `['summarize', 'keepRecentTokens']` → `CTXKIT_SUMMARIZE__KEEP_RECENT_TOKENS`. */
export function envNameFor(path: readonly string[]): string {
  return ENV_PREFIX + path.map(screaming).join('__');
}

/** Every policy variable name, for documentation and suggestions. */
export function policyEnvNames(): string[] {
  return leafPaths().map(envNameFor);
}

/** Top-level fields settable without a double underscore. */
const TOP_LEVEL_FIELDS = new Map([
  ['MODEL', ['model']],
  ['HOOKS', ['hooks']],
]);

function resolveEnvPath(name: string, rest: string): string[] {
  const top = TOP_LEVEL_FIELDS.get(rest);
  if (top !== undefined) return top;
  const path: string[] = [];
  for (const segment of rest.split('__')) {
    const key = keysAt(path).find((candidate) => folded(candidate) === folded(segment));
    if (key === undefined) {
      const suggestions = nearestNames(name, policyEnvNames());
      throw new InvalidConfigError(
        [...path, segment.toLowerCase()].join('.'),
        `not a policy setting${didYouMean(suggestions)}`,
        { source: `env:${name}`, label: name },
      );
    }
    path.push(key);
  }
  if (schemaAt(path) === undefined) {
    throw new InvalidConfigError(path.join('.'), 'not a policy setting', {
      source: `env:${name}`,
      label: name,
    });
  }
  return path;
}

export interface EnvConfig {
  layer: ConfigLayer | undefined;
  preset: { name: string; source: string } | undefined;
  agent: { name: string; source: string } | undefined;
}

export function readEnvConfig(env: Readonly<Record<string, string | undefined>>): EnvConfig {
  const settings: TextSetting[] = [];
  let preset: EnvConfig['preset'];
  let agent: EnvConfig['agent'];
  // Sorted: the same environment always yields the same first error.
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (value === undefined || !name.startsWith(ENV_PREFIX)) continue;
    const rest = name.slice(ENV_PREFIX.length);
    if (name === ENV_PRESET) {
      if (value.trim() !== '') preset = { name: value.trim(), source: `env:${name}` };
      continue;
    }
    if (name === ENV_AGENT) {
      if (value.trim() !== '') agent = { name: value.trim(), source: `env:${name}` };
      continue;
    }
    if (!rest.includes('__') && !TOP_LEVEL_FIELDS.has(rest)) continue;
    settings.push({
      path: resolveEnvPath(name, rest),
      value,
      location: { source: `env:${name}`, label: name },
    });
  }
  return { layer: settings.length > 0 ? layerFromTextSettings(settings) : undefined, preset, agent };
}
