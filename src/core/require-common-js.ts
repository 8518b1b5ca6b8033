import { createRequire } from 'node:module';

/**
 * Loads a CommonJS package synchronously: from ESM as compiled or bundled, resolved from this module's
 * own location; from a CommonJS bundle of ctxkit (where bundlers leave `import.meta.url` empty) with the
 * bundle's own `require`.
 */
export function requireCommonJs(name: string): unknown {
  const here: string | undefined = import.meta.url;
  const load = here ? createRequire(here) : require;
  return load(name);
}
