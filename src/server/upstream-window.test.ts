import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { SERVED_WINDOW_TTL_MS, UpstreamWindows } from './upstream-window.ts';

const question = {
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'in-house-model',
  headers: {},
  maxOutputTokens: 1_000,
};

describe('UpstreamWindows: a window an overflow named', () => {
  it('is the window of a model nobody knows, for as long as a served size is trusted', async () => {
    let now = 0;
    const windows = new UpstreamWindows({ detect: false, clock: () => now });
    expect((await windows.windowFor(question, PRESETS.default)).unknown).toBe(true);
    windows.learn(question.baseUrl, question.model, 8_192);
    expect(await windows.windowFor(question, PRESETS.default)).toMatchObject({
      contextWindow: 8_192,
      unknown: false,
      source: 'learned',
    });
    // A server reloaded with a larger window is not held to the old one for ever.
    now += SERVED_WINDOW_TTL_MS;
    expect((await windows.windowFor(question, PRESETS.default)).unknown).toBe(true);
  });

  it('caps a larger window the rule gives, for that upstream and model only', async () => {
    const windows = new UpstreamWindows({ detect: false, fallback: 32_000 });
    windows.learn(question.baseUrl, question.model, 8_192);
    expect((await windows.windowFor(question, PRESETS.default)).contextWindow).toBe(8_192);
    const other = { ...question, model: 'another-model' };
    expect((await windows.windowFor(other, PRESETS.default)).contextWindow).toBe(32_000);
  });
});
