import { describe, expect, it } from 'vitest';
import { AUTO_COMPACT_HOOK_ID, autoCompactThreshold, effectiveHooks } from './effective-hooks.ts';
import { mergePolicy } from './merge-policy.ts';
import type { Hook } from './policy-schema.ts';
import {
  DEEPAGENTS_POLICY,
  DEFAULT_POLICY,
  DIGITORN_POLICY,
  PICOCLAW_POLICY,
  TIANCAI_POLICY,
} from './presets/index.ts';

const everyTenTurns: Hook = {
  id: 'every-10',
  on: 'turn_end',
  condition: { type: 'turn_count', every: 10 },
  action: { type: 'compact_context', strategy: 'drop' },
};

describe('effectiveHooks', () => {
  it('injects _auto_compact built from the summarize settings when summarize.auto is on', () => {
    const policy = mergePolicy(DIGITORN_POLICY, {
      summarize: { trigger: 0.6, keepRecentMessages: 12, maxSummaryTokens: 2_048, strategy: 'drop' },
    });
    expect(effectiveHooks(policy)).toEqual([
      {
        id: AUTO_COMPACT_HOOK_ID,
        on: 'turn_start',
        condition: { type: 'context_pressure', threshold: 0.6 },
        action: { type: 'compact_context', strategy: 'drop', keepRecent: 12, summaryMaxTokens: 2_048 },
        cooldownSeconds: 30,
      },
    ]);
  });

  it('"The injection is skipped when an explicit compact_context hook already exists"', () => {
    const policy = mergePolicy(DIGITORN_POLICY, { hooks: [everyTenTurns] });
    expect(effectiveHooks(policy)).toEqual([everyTenTurns]);
  });

  it('injects nothing when summarize.auto is off ("declare your own hook")', () => {
    expect(effectiveHooks(mergePolicy(DIGITORN_POLICY, { summarize: { auto: false } }))).toEqual([]);
    expect(
      effectiveHooks(mergePolicy(DIGITORN_POLICY, { summarize: { auto: false }, hooks: [everyTenTurns] })),
    ).toEqual([everyTenTurns]);
  });

  it("leaves keepRecent to the summarize layer when it keeps by tokens, and runs on the preset's moment", () => {
    const [hook] = effectiveHooks(DEFAULT_POLICY);
    expect(hook?.on).toBe('turn_end');
    expect(hook?.condition).toEqual({ type: 'context_pressure', threshold: 0.85 });
    expect(hook?.action.keepRecent).toBeUndefined();
    expect(hook?.cooldownSeconds).toBeUndefined();
  });

  it('returns copies: editing them does not edit the policy', () => {
    const policy = mergePolicy(DEFAULT_POLICY, { hooks: [everyTenTurns] });
    const [hook] = effectiveHooks(policy);
    if (hook === undefined) throw new Error('expected a hook');
    hook.id = 'changed';
    expect(policy.hooks[0]?.id).toBe('every-10');
  });
});

describe('autoCompactThreshold', () => {
  it('is summarize.trigger when set', () => {
    expect(autoCompactThreshold(DEFAULT_POLICY)).toBe(0.85);
  });

  it("turns tiancai's window − ReserveTokens limit into a pressure once the window is known", () => {
    // limit 128000 − 16384 = 111616 of usable 128000 − 8192 = 119808.
    expect(
      autoCompactThreshold(TIANCAI_POLICY, { contextWindow: 128_000, maxOutputTokens: 8_192 }),
    ).toBeCloseTo(111_616 / 119_808);
    expect(autoCompactThreshold(TIANCAI_POLICY)).toBe(1);
  });

  it("is a fraction of the policy's own measure, brought down only where a request past it could not fit", () => {
    // deepagents measures input against the whole window: 0.85 holds while the reserve leaves 85 % to input…
    expect(autoCompactThreshold(DEEPAGENTS_POLICY, { contextWindow: 32_768, maxOutputTokens: 4_096 })).toBe(
      0.85,
    );
    // … and with 8,192 reserved only 75 % can be input: it fires there rather than never.
    expect(autoCompactThreshold(DEEPAGENTS_POLICY, { contextWindow: 32_768, maxOutputTokens: 8_192 })).toBe(
      0.75,
    );
    // picoclaw measures the history alone against ContextWindow: MaxTokens never moves it.
    for (const maxOutputTokens of [4_096, 8_192, 16_384]) {
      expect(autoCompactThreshold(PICOCLAW_POLICY, { contextWindow: 32_768, maxOutputTokens })).toBe(0.75);
    }
  });

  it("expresses tiancai's token limit in the policy's measure", () => {
    const window = { contextWindow: 128_000, maxOutputTokens: 8_192 };
    const overWindow = mergePolicy(TIANCAI_POLICY, { budget: { pressureOf: 'input/window' } });
    expect(autoCompactThreshold(overWindow, window)).toBeCloseTo(111_616 / 128_000);
  });
});
