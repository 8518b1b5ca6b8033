import { describe, expect, it } from 'vitest';
import { InvalidPolicyError, UnknownModelError } from '../core/errors/index.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { chooseContextWindow, UNBOUNDED_WINDOW } from './resolve-context-window.ts';

const withWindow = (preset: keyof typeof PRESETS, contextWindow: number) => ({
  ...PRESETS[preset],
  budget: { ...PRESETS[preset].budget, contextWindow },
});

describe('chooseContextWindow: the one window rule, step by step', () => {
  it('1. a configured window wins: the call’s, else the policy’s', () => {
    expect(chooseContextWindow(withWindow('default', 50_000), { model: 'gpt-4o' })).toMatchObject({
      contextWindow: 50_000,
      windowSource: 'explicit',
    });
    expect(
      chooseContextWindow(withWindow('default', 50_000), { model: 'gpt-4o', contextWindow: 20_000 }),
    ).toMatchObject({ contextWindow: 20_000, windowSource: 'explicit' });
    // Under picoclaw too: "when not explicitly configured" does not apply.
    expect(
      chooseContextWindow(PRESETS.picoclaw, { model: 'x', contextWindow: 20_000, maxOutputTokens: 2_048 }),
    ).toMatchObject({ contextWindow: 20_000, windowSource: 'explicit' });
  });

  it('2. a policy that looks windows up: what the server serves, else the profile', () => {
    expect(chooseContextWindow(PRESETS.deepagents, { model: 'gpt-4o', served: 32_768 })).toMatchObject({
      contextWindow: 32_768,
      windowSource: 'served',
    });
    expect(chooseContextWindow(PRESETS.deepagents, { model: 'gpt-4o' })).toMatchObject({
      contextWindow: 128_000,
      windowSource: 'profile',
    });
  });

  it('3. the window for models nobody knows (serve’s --window) comes after the profile', () => {
    const call = { unknownModelWindow: 16_000 };
    expect(chooseContextWindow(PRESETS.default, { ...call, model: 'gpt-4o' }).contextWindow).toBe(128_000);
    expect(chooseContextWindow(PRESETS.default, { ...call, model: 'my-local-model' })).toMatchObject({
      contextWindow: 16_000,
      windowSource: 'unknown-model-window',
    });
  });

  it('4. picoclaw: no window configured, 4 × the reply reserve (the call’s, else MaxTokens), known model or not', () => {
    for (const model of ['gpt-4o', 'my-local-model', undefined]) {
      expect(chooseContextWindow(PRESETS.picoclaw, { model, maxOutputTokens: 2_048 })).toMatchObject({
        contextWindow: 8_192,
        maxOutputTokens: 2_048,
        windowSource: 'max-output',
      });
      expect(chooseContextWindow(PRESETS.picoclaw, { model }).contextWindow).toBe(4 * 32_768);
    }
  });

  it('5. tiancai without a window: compaction at MaxTokens, else by message count', () => {
    expect(chooseContextWindow(PRESETS.tiancai, { model: 'my-local-model' })).toMatchObject({
      contextWindow: UNBOUNDED_WINDOW,
      windowSource: 'max-context-tokens',
    });
    const noMaxTokens = {
      ...PRESETS.tiancai,
      budget: { ...PRESETS.tiancai.budget, maxContextTokens: 0 },
    };
    expect(chooseContextWindow(noMaxTokens, { model: 'my-local-model' }).windowSource).toBe('unbounded');
    // A window configured as UNBOUNDED_WINDOW binds nothing (serve's last step): the fallbacks apply to it.
    expect(
      chooseContextWindow(PRESETS.tiancai, { model: 'my-local-model', contextWindow: UNBOUNDED_WINDOW })
        .windowSource,
    ).toBe('max-context-tokens');
    expect(
      chooseContextWindow(PRESETS.default, { model: 'my-local-model', contextWindow: UNBOUNDED_WINDOW })
        .windowSource,
    ).toBe('explicit');
  });

  it('6. nothing known: the same UnknownModelError under every preset that looks windows up, reserve or not', () => {
    for (const preset of ['default', 'cowagent', 'deepagents'] as const) {
      for (const maxOutputTokens of [undefined, 2_048]) {
        let error: unknown;
        try {
          chooseContextWindow(PRESETS[preset], { model: 'claude-sonet-4', maxOutputTokens });
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(UnknownModelError);
        expect((error as Error).message).toContain('did you mean "claude-sonnet-4"?');
      }
    }
    // digitorn's output_reserved is a reserve, not a window: "override only when the provider doesn't report one".
    const digitorn = { ...PRESETS.digitorn, budget: { ...PRESETS.digitorn.budget, contextWindow: 0 } };
    expect(() => chooseContextWindow(digitorn, { model: 'my-niche-local-model' })).toThrow(UnknownModelError);
  });

  it('never more than the server serves or an overflow named, whatever the step', () => {
    expect(
      chooseContextWindow(withWindow('default', 50_000), { model: 'gpt-4o', served: 32_000 }),
    ).toMatchObject({ contextWindow: 32_000, windowSource: 'served' });
    expect(chooseContextWindow(PRESETS.picoclaw, { maxOutputTokens: 4_096, served: 8_192 })).toMatchObject({
      contextWindow: 8_192,
      windowSource: 'served',
    });
    expect(chooseContextWindow(PRESETS.default, { model: 'gpt-4o', learned: 16_000 })).toMatchObject({
      contextWindow: 16_000,
      windowSource: 'learned',
    });
    // Nothing else known: what an overflow named is the window.
    expect(chooseContextWindow(PRESETS.default, { model: 'my-local-model', learned: 3_000 })).toMatchObject({
      contextWindow: 3_000,
      windowSource: 'learned',
    });
    expect(chooseContextWindow(PRESETS.tiancai, { model: 'my-local-model', learned: 16_000 })).toMatchObject({
      contextWindow: 16_000,
      windowSource: 'learned',
    });
  });

  it('the reserve: the call’s, the policy’s, the profile’s (half a profile window), else 4096 (a quarter at most)', () => {
    expect(chooseContextWindow(PRESETS.default, { model: 'gpt-4' }).maxOutputTokens).toBe(4_096);
    expect(chooseContextWindow(PRESETS.default, { model: 'gpt-4', served: 8_192 }).maxOutputTokens).toBe(
      2_048,
    );
    expect(chooseContextWindow(withWindow('default', 100_000), { model: 'my-model' })).toMatchObject({
      maxOutputTokens: 4_096,
      maxOutputSource: 'default',
    });
    expect(() =>
      chooseContextWindow(PRESETS.default, { model: 'gpt-4o', served: 8_000, maxOutputTokens: 8_000 }),
    ).toThrow(InvalidPolicyError);
  });
});
