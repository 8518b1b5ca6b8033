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

/**
 * A CommonJS package loaded at its first use rather than when ctxkit is imported. For packages that
 * require Node built-ins at load (a native addon, `process`): in an ESM bundle of ctxkit (esbuild, no
 * banner) they would stop the program at start-up, and a program that never uses them never loads them.
 */
export function requireAtFirstUse<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= requireCommonJs(name) as T;
    return loaded;
  };
}
