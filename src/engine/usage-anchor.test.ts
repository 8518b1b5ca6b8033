import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const REQUEST = { system: 'You are a coding agent.', model: 'gpt-4o' };
const HUGE = Array.from({ length: 3_000 }, (_, i) => `log line ${i}: worker ok latency=${i % 97}ms`).join(
  '\n',
);

async function session() {
  const manager = createContextManager({ policy: PRESETS.default, contextWindow: 128_000 });
  await manager.append('s', [user('run the build')]);
  await manager.prepare('s', REQUEST);
  // The provider counted far more than ctxkit would (a different tokenizer, hidden framing).
  await manager.append('s', [
    { ...callsTo(['c1', 'bash', '{"cmd":"make"}']), usage: { inputTokens: 20_000, outputTokens: 10 } },
  ]);
  return manager;
}

describe('the usage anchor', () => {
  it('survives a result normalized as it arrives after the reply: the estimate keeps the provider’s count', async () => {
    const manager = await session();
    const anchored = (await manager.stats('s', REQUEST)).tokens.input;
    expect(anchored).toBeGreaterThanOrEqual(20_000);
    await manager.append('s', [result('c1', HUGE, { name: 'bash' })]);
    const { edits } = await manager.history('s');
    // The result was normalized (spilled) on arrival: an edit, of a message the reported request did not hold.
    expect(edits.some((edit) => edit.layer === 'normalize')).toBe(true);
    const after = await manager.stats('s', REQUEST);
    expect(after.tokens.input).toBeGreaterThan(anchored);
  });

  it('ends when an edit reaches into the request the usage was reported for', async () => {
    const manager = await session();
    await manager.append('s', [result('c1', 'ok', { name: 'bash' })]);
    expect((await manager.stats('s', REQUEST)).tokens.input).toBeGreaterThanOrEqual(20_000);
    await manager.clear('s');
    expect((await manager.stats('s', REQUEST)).tokens.input).toBeLessThan(20_000);
  });
});
