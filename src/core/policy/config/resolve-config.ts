import { InvalidConfigError } from '../../errors/index.ts';
import { mergePolicy } from '../merge-policy.ts';
import { didYouMean, nearestNames } from '../nearest-name.ts';
import type { PolicyDialect } from '../policy-aliases.ts';
import { leafPaths } from '../policy-paths.ts';
import type { Policy } from '../policy-schema.ts';
import { getPreset, type PresetName } from '../presets/index.ts';
import { type ConfigFile, readConfigFile } from './config-file.ts';
import { type ConfigLayer, configError } from './config-layer.ts';
import { readEnvConfig } from './env-overrides.ts';
import { type FlagValues, readFlagConfig } from './flag-overrides.ts';

/**
 * The effective policy from every source, and where each value came from. Pure: the caller reads
 * the file and passes its text (src/cli/load-config.ts does that). Layering, lowest first:
 *
 *   preset  <  file  <  file's agent block  <  environment  <  flags
 *
 * The preset itself is chosen by the highest layer that names one (flag --preset, CTXKIT_PRESET,
 * the file's `preset:`, options.preset), else `default`.
 */

export interface ResolveConfigOptions {
  /** The preset when no source names one. Default `default`. */
  preset?: string;
  /** The config file's text and name (the name is used in messages and provenance). */
  fileText?: string;
  fileName?: string;
  env?: Readonly<Record<string, string | undefined>>;
  flags?: FlagValues;
  /** Which agent block of the file applies (also CTXKIT_AGENT / --agent). */
  agent?: string;
  /** How to read seed names in the file, unless the file says (`dialect:`). Default `auto`. */
  dialect?: PolicyDialect;
}

export interface ResolvedConfig {
  policy: Policy;
  /** Every leaf path (`summarize.trigger`, `hooks`) → `preset:NAME` / `file:PATH#key` / `env:CTXKIT_…` / `flag:--x`. */
  sources: Record<string, string>;
  preset: PresetName;
  presetSource: string;
  agent: string | undefined;
  /** Agent blocks declared in the file. */
  agents: string[];
}

export const DEFAULT_CONFIG_FILE_NAME = 'ctxkit.yaml';

export function resolveConfig(options: ResolveConfigOptions = {}): ResolvedConfig {
  const fileName = options.fileName ?? DEFAULT_CONFIG_FILE_NAME;
  const file: ConfigFile | undefined =
    options.fileText === undefined
      ? undefined
      : readConfigFile(
          options.fileText,
          fileName,
          options.dialect !== undefined ? { dialect: options.dialect } : {},
        );
  const env = readEnvConfig(options.env ?? {});
  const flags = readFlagConfig(options.flags ?? {});

  const presetChoice = flags.preset ??
    env.preset ??
    file?.preset ?? {
      name: options.preset ?? 'default',
      source: options.preset ? 'option:preset' : 'default',
    };
  let basePolicy: Policy;
  try {
    basePolicy = getPreset(presetChoice.name);
  } catch (error) {
    throw configError(error, () => ({ source: presetChoice.source, label: presetChoice.source }));
  }
  // getPreset accepted the name, so it is one of the presets.
  const preset = presetChoice.name as PresetName;

  const agentChoice =
    flags.agent ??
    env.agent ??
    (options.agent !== undefined ? { name: options.agent, source: 'option:agent' } : undefined);
  let agentLayer: ConfigLayer | undefined;
  if (agentChoice !== undefined) {
    if (file === undefined) {
      throw new InvalidConfigError(
        'agent',
        `agent "${agentChoice.name}" selected but no config file was given`,
        {
          source: agentChoice.source,
          label: agentChoice.source,
        },
      );
    }
    if (!file.agents.has(agentChoice.name)) {
      // Named where it was chosen (--agent, CTXKIT_AGENT), with the agents there are to choose from.
      const known = [...file.agents.keys()];
      throw new InvalidConfigError(
        'agent',
        `no agent "${agentChoice.name}" in ${fileName}${didYouMean(nearestNames(agentChoice.name, known))} (${known.length > 0 ? `agents: ${known.join(', ')}` : 'it declares no agents'})`,
        { source: agentChoice.source, label: agentChoice.source },
        { value: agentChoice.name },
      );
    }
    agentLayer = file.agentLayer(agentChoice.name);
  }

  const sources: Record<string, string> = {};
  const presetLabel = `preset:${preset}`;
  for (const path of leafPaths()) sources[path.join('.')] = presetLabel;

  let policy = basePolicy;
  for (const layer of [file?.layer, agentLayer, env.layer, flags.layer]) {
    if (layer === undefined) continue;
    try {
      policy = mergePolicy(policy, layer.override);
    } catch (error) {
      // A cross-field rule broken by this layer: name the key where this layer set it, else the
      // key's own source together with the layer that made it invalid.
      const layerSources = [...new Set(Object.values(layer.sources))].join(', ');
      throw configError(error, (key) => {
        const own = layer.locate(key);
        if (own !== undefined && layer.sources[key] !== undefined) return own;
        const source = sources[key] ?? 'config';
        return { source, label: `${source}, with ${layerSources}` };
      });
    }
    Object.assign(sources, layer.sources);
  }

  return {
    policy,
    sources,
    preset,
    presetSource: presetChoice.source,
    agent: agentChoice?.name,
    agents: file === undefined ? [] : [...file.agents.keys()],
  };
}
