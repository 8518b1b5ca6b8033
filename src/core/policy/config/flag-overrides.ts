import { InvalidConfigError } from '../../errors/index.ts';
import { didYouMean, nearestNames } from '../nearest-name.ts';
import { leafPaths, parsePath, schemaAt } from '../policy-paths.ts';
import { type ConfigLayer, layerFromTextSettings, type TextSetting } from './config-layer.ts';

/**
 * Command-line flags, as the CLI parsed them: keyed by policy path (`summarize.trigger`, for a
 * generic `--set summarize.trigger=0.8` or `--summarize.trigger 0.8`) or by one of the short names
 * below. Values may be text (read by the field's kind) or already typed. `undefined` means the
 * flag was not given. The CLI wiring lives elsewhere; this only reads the values.
 */

export const FLAG_ALIASES: Readonly<Record<string, string>> = {
  window: 'budget.contextWindow',
  'context-window': 'budget.contextWindow',
  'max-output': 'budget.maxOutputTokens',
  model: 'model',
};

/** Flags that select rather than set. */
export const FLAG_PRESET = 'preset';
export const FLAG_AGENT = 'agent';

export type FlagValues = Readonly<Record<string, string | number | boolean | undefined>>;

export interface FlagConfig {
  layer: ConfigLayer | undefined;
  preset: { name: string; source: string } | undefined;
  agent: { name: string; source: string } | undefined;
}

function flagCandidates(): string[] {
  return [
    ...Object.keys(FLAG_ALIASES),
    FLAG_PRESET,
    FLAG_AGENT,
    ...leafPaths().map((path) => path.join('.')),
  ];
}

export function readFlagConfig(flags: FlagValues): FlagConfig {
  const settings: TextSetting[] = [];
  let preset: FlagConfig['preset'];
  let agent: FlagConfig['agent'];
  for (const [name, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    const flag = name.replace(/^--?/, '');
    const source = `flag:--${flag}`;
    if (flag === FLAG_PRESET || flag === FLAG_AGENT) {
      const selected = { name: String(value).trim(), source };
      if (flag === FLAG_PRESET) preset = selected;
      else agent = selected;
      continue;
    }
    const target = FLAG_ALIASES[flag] ?? flag;
    const path = parsePath(target).map(String);
    if (path.length === 0 || schemaAt(path) === undefined) {
      throw new InvalidConfigError(
        flag,
        `unknown option${didYouMean(nearestNames(flag, flagCandidates()))}`,
        {
          source,
          label: `--${flag}`,
        },
      );
    }
    settings.push({ path, value, location: { source, label: `--${flag}` } });
  }
  return { layer: settings.length > 0 ? layerFromTextSettings(settings) : undefined, preset, agent };
}
