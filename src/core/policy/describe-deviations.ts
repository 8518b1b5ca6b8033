import { pressureCeiling, reachableThreshold } from '../budget/pressure-measure.ts';
import { canonicalJson } from '../canonical-json.ts';
import { valueAtPath } from '../value-at-path.ts';
import type { Policy } from './policy-schema.ts';
import type { PresetDeviation } from './presets/define-preset.ts';

/**
 * A preset's deviations from its seed, in words, for `ctxkit config` and the chat's `/context`: the list
 * each preset declares (`PRESET_DEVIATIONS`), with the figures a window gives where a threshold is past the
 * largest request that fits (docs/ARCHITECTURE.md: "A threshold past the largest request that fits fires
 * there instead"): the seed's figure beside the one ctxkit uses.
 */

/** One deviation as a preset declares it. */
export type DeviationEntry = PresetDeviation;

/**
 * The declared deviations still in force: where the effective policy changed a setting from the
 * preset's value (`budget.finalGuard: false`), that setting is the caller's own choice, not the preset's
 * departure from its seed, and is not listed.
 */
export function deviationsInForce(
  declared: readonly DeviationEntry[],
  preset: Policy,
  effective: Policy,
): DeviationEntry[] {
  return declared.filter(
    ({ setting }) =>
      canonicalJson(valueAtPath(preset, setting.split('.'))) ===
      canonicalJson(valueAtPath(effective, setting.split('.'))),
  );
}

/**
 * Where the window rule (`chooseContextWindow`) departs from a policy that does not look windows up
 * (picoclaw: "ContextWindow = MaxTokens * 4"): chat and serve still cap the window at what a local server
 * says it serves.
 */
export function windowRuleDeviations(policy: Pick<Policy, 'budget'>): DeviationEntry[] {
  if (policy.budget.detectWindow !== false) return [];
  return [
    {
      setting: 'budget.detectWindow',
      seed: 'the window is 4 × MaxTokens unless one is configured, and no server is asked',
      ctxkit:
        'the same, except that chat and serve never go past what a local server says it serves the model with',
      why: 'a window larger than the model is loaded with can only overflow',
    },
  ];
}

/**
 * A pressure threshold the window brings down to the largest request that fits: the figure set, and the
 * one used (undefined when no window is known yet, so the figure cannot be told).
 */
export interface LoweredThreshold {
  setting: 'clearing.trigger' | 'summarize.trigger';
  set: number;
  used: number | undefined;
}

/** The window the figures are worked out for. */
export interface DeviationWindow {
  contextWindow: number;
  maxOutputTokens: number;
}

/**
 * The policy's clearing and summarize thresholds that this window brings down (`reachableThreshold`):
 * under `input/window` (deepagents), a trigger above (window − reserve) ÷ window. Without a window, the
 * thresholds some window would bring down (any reserve does, under `input/window`), with no figure.
 */
export function loweredThresholds(
  policy: Pick<Policy, 'budget' | 'clearing' | 'summarize'>,
  window: DeviationWindow | undefined,
): LoweredThreshold[] {
  const measure = policy.budget.pressureOf;
  const steps: [LoweredThreshold['setting'], boolean, number][] = [
    ['clearing.trigger', policy.clearing.enabled, policy.clearing.trigger],
    ['summarize.trigger', policy.summarize.auto, policy.summarize.trigger],
  ];
  return steps.flatMap(([setting, on, set]): LoweredThreshold[] => {
    if (!on || set <= 0) return [];
    if (window === undefined) {
      // The ceiling with any reserve at all: below 1 under input/window, 1 under input/usable.
      const ceiling = pressureCeiling(measure, { contextWindow: 2, maxOutputTokens: 1 });
      return measure !== 'history/window' && (measure === 'input/window' || set > ceiling)
        ? [{ setting, set, used: undefined }]
        : [];
    }
    const used = reachableThreshold(set, measure, window);
    return used < set ? [{ setting, set, used }] : [];
  });
}

const percent = (fraction: number): string => `${Math.round(fraction * 100)}%`;

function figures(lowered: LoweredThreshold | undefined): string {
  if (lowered === undefined) return '';
  if (lowered.used === undefined)
    return ` No window here: ${percent(lowered.set)} as set, or (window − reserve) ÷ window when that is lower (--model or --window gives the figure).`;
  return ` With this window: ${percent(lowered.set)} as set, ${percent(lowered.used)} used (the largest request that fits).`;
}

/**
 * The deviations as lines of text: per deviation its setting and what ctxkit does instead of the seed,
 * the figures where this window lowers its threshold, and `why` when asked. A threshold the window lowers
 * that no deviation names (one set past the ceiling by hand) gets a line of its own.
 */
export function deviationLines(
  deviations: readonly DeviationEntry[],
  lowered: readonly LoweredThreshold[] = [],
  options: { why?: boolean } = {},
): string[] {
  const lines = deviations.flatMap((deviation) => {
    const own = lowered.find((threshold) => threshold.setting === deviation.setting);
    const main = `${deviation.setting} — the seed: ${deviation.seed}; ctxkit: ${deviation.ctxkit}.${figures(own)}`;
    return options.why ? [main, `  why: ${deviation.why}`] : [main];
  });
  for (const threshold of lowered) {
    if (threshold.used === undefined) continue;
    if (deviations.some((deviation) => deviation.setting === threshold.setting)) continue;
    lines.push(
      `${threshold.setting} — ${percent(threshold.set)} as set is past the largest request that fits, so it fires there, at ${percent(threshold.used)}.`,
    );
  }
  return lines;
}
