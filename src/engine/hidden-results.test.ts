import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { contextEventSchema } from '../store/trace-event-schema.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};
const manager = () =>
  createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' }, clock: clock() });

describe('tool results the view leaves out are reported', () => {
  it('an orphan result (no call with its id): stored, hidden, and a tool-result-hidden event', async () => {
    const ctx = manager();
    await ctx.append('s', [user('hi')]);
    const { messages, events } = await ctx.append('s', [result('ghost', 'out')]);
    expect(events).toEqual([
      {
        type: 'tool-result-hidden',
        sessionId: 's',
        at: expect.any(Number),
        seq: 1,
        callId: 'ghost',
        reason: 'no-call',
      },
    ]);
    expect(messages[0]?.seq).toBe(1);
    expect((await ctx.history('s')).log).toHaveLength(2);
    expect((await ctx.prepare('s')).messages).toHaveLength(1);
  });

  it('a second result for an answered call, even with other content: already-answered', async () => {
    const ctx = manager();
    await ctx.append('s', [user('run'), callsTo(['c1', 'bash']), result('c1', 'first')]);
    const { events } = await ctx.append('s', [result('c1', 'second, different')]);
    expect(events).toMatchObject([
      { type: 'tool-result-hidden', seq: 3, callId: 'c1', reason: 'already-answered' },
    ]);
    // A retried identical result is recognized as stored, not hidden again.
    expect((await ctx.append('s', [result('c1', 'first')])).events).toEqual([]);
  });

  it('a result after its call was closed by another message: call-closed; every event fits the trace schema', async () => {
    const ctx = manager();
    await ctx.append('s', [user('run'), callsTo(['c1', 'bash']), assistant('moving on')]);
    const { events } = await ctx.append('s', [result('c1', 'late')]);
    expect(events).toMatchObject([
      { type: 'tool-result-hidden', seq: 3, callId: 'c1', reason: 'call-closed' },
    ]);
    for (const event of events) expect(contextEventSchema.safeParse(event).success).toBe(true);
  });
});
