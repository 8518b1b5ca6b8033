import type * as Yaml from 'yaml';
import { requireCommonJs } from './require-common-js.ts';

let loaded: typeof Yaml | undefined;

/**
 * The `yaml` package, loaded at first use rather than when ctxkit is imported: its Node build is
 * CommonJS that requires Node built-ins, which stops an ESM bundle of ctxkit (esbuild, no banner) at
 * start-up, and a program that never reads a config file or a skill never needs it.
 */
export function yamlModule(): typeof Yaml {
  loaded ??= requireCommonJs('yaml') as typeof Yaml;
  return loaded;
}
