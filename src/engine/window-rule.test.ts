import { describe, expect, it } from 'vitest';
import { UnknownModelError } from '../core/errors/index.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

/** The library's door to the window rule (`chooseContextWindow`): what `prepare` runs a call with. */
describe('prepare: the window rule', () => {
  const prepared = async (preset: keyof typeof PRESETS, request: Record<string, unknown>) => {
    const manager = createContextManager({ policy: PRESETS[preset] });
    await manager.append('s', [user('hello')]);
    return (await manager.prepare('s', request)).stats;
  };

  it('picoclaw, no window configured: 4 × the reply reserve, for an unknown model as for a known one', async () => {
    for (const model of ['my-local-model', 'gpt-4o']) {
      const stats = await prepared('picoclaw', { model, maxOutputTokens: 2_048 });
      expect(stats.contextWindow).toBe(8_192);
      expect(stats.maxOutputTokens).toBe(2_048);
    }
    expect((await prepared('picoclaw', { model: 'my-local-model' })).contextWindow).toBe(4 * 32_768);
  });

  it('any other preset, unknown model and no window: the same UnknownModelError, reserve or not', async () => {
    for (const preset of ['default', 'cowagent', 'deepagents'] as const) {
      for (const maxOutputTokens of [undefined, 2_048]) {
        await expect(
          prepared(preset, { model: 'my-local-model', ...(maxOutputTokens && { maxOutputTokens }) }),
        ).rejects.toBeInstanceOf(UnknownModelError);
      }
    }
  });

  it('a window the caller sets wins; the profile otherwise', async () => {
    expect(
      (await prepared('deepagents', { model: 'my-local-model', contextWindow: 20_000 })).contextWindow,
    ).toBe(20_000);
    expect((await prepared('deepagents', { model: 'gpt-4o' })).contextWindow).toBe(128_000);
  });
});
