import { describe, expect, it } from 'vitest';
import {
  deviationLines,
  deviationsInForce,
  loweredThresholds,
  windowRuleDeviations,
} from './describe-deviations.ts';
import { mergePolicy } from './merge-policy.ts';
import { PRESET_DEVIATIONS, PRESETS } from './presets/index.ts';

describe('deviations in words', () => {
  it('a deepagents trigger past the largest request that fits: the seed’s figure beside the one used', () => {
    // A 200k profile reserving 64k: (200k − 64k) ÷ 200k = 68 % is the largest request that fits.
    const lowered = loweredThresholds(PRESETS.deepagents, {
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(lowered).toEqual([{ setting: 'summarize.trigger', set: 0.85, used: 0.68 }]);
    const lines = deviationLines(PRESET_DEVIATIONS.deepagents, lowered);
    expect(lines.find((line) => line.startsWith('summarize.trigger'))).toMatch(
      /^summarize\.trigger — the seed: .*; ctxkit: .*\. With this window: 85% as set, 68% used \(the largest request that fits\)\.$/,
    );
    // 128k reserving 16k: 87 % fits, so 85 % applies as the seed says.
    expect(
      loweredThresholds(PRESETS.deepagents, { contextWindow: 128_000, maxOutputTokens: 16_384 }),
    ).toEqual([]);
  });

  it('without a window, a trigger some window would bring down is named, with no figure', () => {
    const lowered = loweredThresholds(PRESETS.deepagents, undefined);
    expect(lowered.map((threshold) => threshold.setting)).toEqual(['clearing.trigger', 'summarize.trigger']);
    expect(deviationLines(PRESET_DEVIATIONS.deepagents, lowered).join('\n')).toMatch(
      /No window here: 85% as set, or \(window − reserve\) ÷ window when that is lower/,
    );
    // Under input/usable a trigger up to 100 % always fits; history/window has no ceiling.
    expect(loweredThresholds(PRESETS.default, undefined)).toEqual([]);
    expect(loweredThresholds(PRESETS.picoclaw, undefined)).toEqual([]);
  });

  it('every seed preset lists the final guard; why is shown when asked', () => {
    for (const preset of ['cowagent', 'tiancai', 'deepagents', 'digitorn', 'picoclaw'] as const) {
      const lines = deviationLines(PRESET_DEVIATIONS[preset], [], { why: true });
      expect(lines[0]).toMatch(/^budget\.finalGuard — the seed: /);
      expect(lines[1]).toMatch(/^ {2}why: /);
    }
    expect(deviationLines(PRESET_DEVIATIONS.default)).toEqual([]);
  });

  it('a threshold set past the ceiling by hand, that no deviation names, gets a line of its own', () => {
    const policy = {
      ...PRESETS.default,
      budget: { ...PRESETS.default.budget, pressureOf: 'input/window' as const },
    };
    const lowered = loweredThresholds(policy, { contextWindow: 100_000, maxOutputTokens: 50_000 });
    expect(deviationLines([], lowered)).toEqual([
      'clearing.trigger — 60% as set is past the largest request that fits, so it fires there, at 50%.',
      'summarize.trigger — 85% as set is past the largest request that fits, so it fires there, at 50%.',
    ]);
  });

  it('picoclaw’s window: the served cap chat and serve add is a deviation of its own', () => {
    expect(windowRuleDeviations(PRESETS.picoclaw).map((deviation) => deviation.setting)).toEqual([
      'budget.detectWindow',
    ]);
    expect(windowRuleDeviations(PRESETS.deepagents)).toEqual([]);
  });
});

describe('deviations in force', () => {
  it("drops a deviation whose setting the effective policy changed back: that is the caller's choice", () => {
    const declared = PRESET_DEVIATIONS.tiancai;
    expect(declared.map(({ setting }) => setting)).toContain('budget.finalGuard');
    expect(deviationsInForce(declared, PRESETS.tiancai, PRESETS.tiancai)).toEqual(declared);
    const seedLike = mergePolicy(PRESETS.tiancai, { budget: { finalGuard: false } });
    const inForce = deviationsInForce(declared, PRESETS.tiancai, seedLike).map(({ setting }) => setting);
    expect(inForce).not.toContain('budget.finalGuard');
    expect(inForce).toHaveLength(declared.length - 1);
  });
});
