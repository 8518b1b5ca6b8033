import { describe, expect, it } from 'vitest';
import { InvalidPolicyError, UnknownModelError } from '../core/errors/index.ts';
import { DEFAULT_MAX_OUTPUT_TOKENS, resolveContextWindow } from './resolve-context-window.ts';

describe('resolveContextWindow', () => {
  it('an explicit window wins over the profile', () => {
    const resolved = resolveContextWindow({ model: 'gpt-4o', contextWindow: 32_000 });
    expect(resolved.contextWindow).toBe(32_000);
    expect(resolved.windowSource).toBe('explicit');
    // The profile's 16384 would be half this window: capped at a quarter.
    expect(resolved.maxOutputTokens).toBe(8_000);
  });

  it('window 0 / unset means look it up from the model profile', () => {
    for (const contextWindow of [0, undefined]) {
      const resolved = resolveContextWindow({ model: 'anthropic/claude-3-5-sonnet-20241022', contextWindow });
      expect(resolved).toMatchObject({
        contextWindow: 200_000,
        maxOutputTokens: 8_192,
        windowSource: 'profile',
        maxOutputSource: 'profile',
      });
      expect(resolved.profile?.id).toBe('claude-3-5-sonnet');
    }
  });

  it('picoclaw: with only max output known, the window defaults to 4 × max output', () => {
    const resolved = resolveContextWindow({
      model: 'my-local-model',
      maxOutputTokens: 8_192,
      detectWindow: false,
    });
    expect(resolved).toMatchObject({
      contextWindow: 32_768,
      maxOutputTokens: 8_192,
      windowSource: 'max-output',
    });
  });

  it('a policy that looks windows up does not guess one from the reserve: an unknown model is an error', () => {
    expect(() => resolveContextWindow({ model: 'my-local-model', maxOutputTokens: 8_192 })).toThrow(
      UnknownModelError,
    );
  });

  it('detectWindow false (picoclaw) applies 4 × max output even for a known model', () => {
    const resolved = resolveContextWindow({ model: 'gpt-4o', maxOutputTokens: 32_768, detectWindow: false });
    expect(resolved.contextWindow).toBe(131_072);
    expect(resolved.windowSource).toBe('max-output');
  });

  it('an unknown model with no window is an UnknownModelError naming the nearest model', () => {
    let error: unknown;
    try {
      resolveContextWindow({ model: 'claude-sonet-4' });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UnknownModelError);
    expect((error as UnknownModelError).code).toBe('unknown_model');
    expect((error as UnknownModelError).message).toContain('did you mean "claude-sonnet-4"?');
  });

  it('no model and no window is an error too, never a silent default', () => {
    expect(() => resolveContextWindow({})).toThrow(UnknownModelError);
  });

  it('an unknown model with an explicit window reserves the default output (at most a quarter)', () => {
    expect(resolveContextWindow({ model: 'my-model', contextWindow: 100_000 })).toMatchObject({
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
      maxOutputSource: 'default',
    });
    expect(resolveContextWindow({ contextWindow: 8_000 }).maxOutputTokens).toBe(2_000);
  });

  it("keeps a profile's output below half its own window (gpt-4: 8192 of 8192)", () => {
    expect(resolveContextWindow({ model: 'gpt-4' }).maxOutputTokens).toBe(4_096);
  });

  it('an explicit max output must fit in the window', () => {
    expect(() =>
      resolveContextWindow({ model: 'gpt-4o', contextWindow: 8_000, maxOutputTokens: 8_000 }),
    ).toThrow(InvalidPolicyError);
  });
});
