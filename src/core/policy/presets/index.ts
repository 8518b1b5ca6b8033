import { InvalidPolicyError } from '../../errors/index.ts';
import { nearestName } from '../nearest-name.ts';
import type { Policy } from '../policy-schema.ts';
import { COWAGENT_DEVIATIONS, COWAGENT_POLICY } from './cowagent.ts';
import { DEEPAGENTS_DEVIATIONS, DEEPAGENTS_POLICY } from './deepagents.ts';
import { DEFAULT_POLICY } from './default.ts';
import type { PresetDeviation } from './define-preset.ts';
import { DIGITORN_DEVIATIONS, DIGITORN_POLICY } from './digitorn.ts';
import { PICOCLAW_DEVIATIONS, PICOCLAW_POLICY } from './picoclaw.ts';
import { TIANCAI_DEVIATIONS, TIANCAI_POLICY } from './tiancai.ts';

export * from './cowagent.ts';
export * from './deepagents.ts';
export * from './default.ts';
export type { PresetDeviation } from './define-preset.ts';
export * from './digitorn.ts';
export * from './picoclaw.ts';
export * from './tiancai.ts';

/** `default` is ctxkit's own; the others reproduce the five seed documents' policies, in order. */
export const PRESET_NAMES = ['default', 'cowagent', 'tiancai', 'deepagents', 'digitorn', 'picoclaw'] as const;
export type PresetName = (typeof PRESET_NAMES)[number];

export const PRESETS: Readonly<Record<PresetName, Policy>> = Object.freeze({
  default: DEFAULT_POLICY,
  cowagent: COWAGENT_POLICY,
  tiancai: TIANCAI_POLICY,
  deepagents: DEEPAGENTS_POLICY,
  digitorn: DIGITORN_POLICY,
  picoclaw: PICOCLAW_POLICY,
});

/**
 * Where each preset knowingly does what its seed does not, and why, for `ctxkit config` and `/context` to
 * show. `default` is ctxkit's own policy: it has no seed to differ from.
 */
export const PRESET_DEVIATIONS: Readonly<Record<PresetName, readonly PresetDeviation[]>> = Object.freeze({
  default: Object.freeze([]),
  cowagent: COWAGENT_DEVIATIONS,
  tiancai: TIANCAI_DEVIATIONS,
  deepagents: DEEPAGENTS_DEVIATIONS,
  digitorn: DIGITORN_DEVIATIONS,
  picoclaw: PICOCLAW_DEVIATIONS,
});

export function isPresetName(name: string): name is PresetName {
  return (PRESET_NAMES as readonly string[]).includes(name);
}

/** The preset by name; an unknown name is an InvalidPolicyError with the nearest valid name. */
export function getPreset(name: string, key = 'preset'): Policy {
  if (isPresetName(name)) return PRESETS[name];
  const suggestion = nearestName(name, PRESET_NAMES);
  throw new InvalidPolicyError(
    key,
    `unknown preset "${name}"${suggestion ? `; did you mean "${suggestion}"?` : ''} (presets: ${PRESET_NAMES.join(', ')})`,
    { value: name, suggestion, allowed: PRESET_NAMES },
  );
}
