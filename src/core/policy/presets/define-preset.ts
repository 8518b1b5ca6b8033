import { deepMerge } from '../merge-policy.ts';
import type { Policy } from '../policy-schema.ts';
import { deepFreeze } from './freeze.ts';

/** Section-wise partial of a policy: what a preset states about each layer. */
export type PresetSections = {
  [Section in keyof Policy]?: Policy[Section] extends readonly unknown[]
    ? Policy[Section]
    : Policy[Section] extends object | undefined
      ? Partial<NonNullable<Policy[Section]>>
      : Policy[Section];
};

/**
 * A seed preset: ctxkit's default with what the seed documents laid over it, frozen. Settings a
 * seed leaves undocumented keep ctxkit's default; layers the seed's product does not have are
 * switched off explicitly in the preset itself. Validity is checked by the presets' tests.
 */
export function definePreset(base: Policy, sections: PresetSections): Policy {
  return deepFreeze(deepMerge(base, sections));
}

/**
 * Where a preset knowingly does what its seed document does not: the policy key that carries it, what
 * the seed does, what ctxkit does instead, and why. Each seed preset lists its own (`PRESET_DEVIATIONS`),
 * so `ctxkit config` and the chat's `/context` can show them beside the values; the preset file's
 * comments say the same beside the setting.
 */
export interface PresetDeviation {
  /** The policy key (`budget.finalGuard`, `indexes.memory.maxTokens`). */
  setting: string;
  /** What the seed does. */
  seed: string;
  /** What the preset does instead. */
  ctxkit: string;
  why: string;
}

/** A preset's deviations, frozen like the preset. */
export function defineDeviations(deviations: readonly PresetDeviation[]): readonly PresetDeviation[] {
  return deepFreeze(deviations.map((deviation) => ({ ...deviation })));
}

/** The one every seed preset shares: ctxkit counts the request as sent and fits it before it leaves. */
export const FINAL_GUARD_DEVIATION: PresetDeviation = Object.freeze({
  setting: 'budget.finalGuard',
  seed: 'a request its own estimate undercounts is sent as it is, and fails at the provider',
  ctxkit:
    'the request as sent is counted as the provider counts it and, when it does not fit, fitted before it leaves prepare()',
  why: 'a request known not to fit can only fail; `finalGuard: false` restores the seed’s behaviour',
});
