import type * as Yaml from 'yaml';
import { requireAtFirstUse } from './require-common-js.ts';

/** The `yaml` package, needed only to read a config file or a skill's front matter. */
export const yamlModule: () => typeof Yaml = requireAtFirstUse('yaml');
