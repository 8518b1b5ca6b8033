import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TokenTallyRangeError } from '../errors/index.ts';
import type { Message } from '../message.ts';
import { CalibratedTokenCounter } from './calibrated-counter.ts';
import { ContextTokenTally } from './context-token-tally.ts';
import { estimateContextTokens } from './estimate-context-tokens.ts';
import { createExactCounter } from './exact-counter.ts';
import { measureRequest } from './measure-request.ts';
import { MessageTokenCache } from './message-token-cache.ts';
import { assistant, countingCounter, message, toolResult, user } from './messages.test-support.ts';

const o200k = createExactCounter('o200k');

const arbitraryMessage: fc.Arbitrary<Message> = fc
  .record({
    kind: fc.constantFrom('user', 'assistant', 'assistant-usage', 'assistant-bad-usage', 'tool'),
    text: fc.string({ maxLength: 60 }),
    hidden: fc.boolean(),
    input: fc.integer({ min: 1, max: 50_000 }),
  })
  .map(({ kind, text, hidden, input }) => {
    const meta = hidden ? { agentVisible: false } : {};
    if (kind === 'user') return user(text, { meta });
    if (kind === 'tool') return toolResult('call', text, { meta });
    if (kind === 'assistant') return assistant(text, { meta });
    const usage =
      kind === 'assistant-usage'
        ? { inputTokens: input, outputTokens: 7 }
        : { inputTokens: 0, outputTokens: 0 };
    return assistant(text, { meta, usage });
  });

type Operation =
  | { op: 'append'; message: Message }
  | { op: 'replace'; at: number; message: Message }
  | { op: 'truncate'; at: number }
  | { op: 'observe'; units: number; tokens: number }
  | { op: 'total' };

const arbitraryOperation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: arbitraryMessage.map((m) => ({ op: 'append' as const, message: m })) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), message: arbitraryMessage }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant('observe' as const),
      units: fc.integer({ min: 1_000, max: 100_000 }),
      tokens: fc.integer({ min: 300, max: 300_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ op: 'total' as const }) },
);

describe('ContextTokenTally', () => {
  it('always agrees with estimateContextTokens over the same messages', () => {
    fc.assert(
      fc.property(fc.array(arbitraryOperation, { maxLength: 40 }), fc.boolean(), (operations, refuse) => {
        // A calibrated counter, so the multiplier moves between appends, replaces and totals.
        const counter = new CalibratedTokenCounter();
        const tally = new ContextTokenTally(counter);
        for (const operation of operations) {
          if (operation.op === 'append') tally.append(operation.message);
          else if (operation.op === 'observe') counter.observe(operation);
          else if (operation.op === 'total') tally.total();
          else if (tally.length === 0) continue;
          else if (operation.op === 'replace') tally.replace(operation.at % tally.length, operation.message);
          else tally.truncate(operation.at % (tally.length + 1));
        }
        const options = refuse ? { anchorUsable: false } : {};
        expect(tally.estimate(options)).toEqual(
          estimateContextTokens(tally.messages, tally.counter, options),
        );
        expect(tally.measure()).toEqual(measureRequest({ messages: tally.messages }));
      }),
    );
  });

  it('costs one message’s tokenization per append and none for the total', () => {
    const counter = countingCounter(o200k);
    const tally = new ContextTokenTally(counter);
    for (let i = 0; i < 200; i++) tally.append(user(`message number ${i} with some words in it`));
    counter.calls.length = 0;
    tally.append(toolResult('c', 'one more'));
    const total = tally.total();
    expect(counter.calls).toEqual(['c', 'one more']);
    expect(total).toBe(estimateContextTokens(tally.messages, o200k).tokens);
  });

  it('estimates only the messages after the last usage on the anchored path', () => {
    const counter = countingCounter(o200k);
    const tally = new ContextTokenTally(counter);
    for (let i = 0; i < 100; i++) tally.append(user(`turn ${i}`));
    tally.append(assistant('reply', { usage: { inputTokens: 40_000, outputTokens: 200 } }));
    tally.append(toolResult('c', 'tail'));
    const estimate = tally.estimate();
    expect(estimate.path).toBe('anchored');
    expect(estimate.tokens).toBe(40_200 + o200k.count('c') + o200k.count('tail') + 4);
  });

  it('follows a hidden or cleared message in O(1) and re-derives when a calibrated multiplier moves', () => {
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    const cache = new MessageTokenCache();
    const tally = new ContextTokenTally(counter, { cache }, [
      user(' the'.repeat(100)), // 100 units
      toolResult('c', ' the'.repeat(1_000)), // 1,000 units, plus 1 for the call id
    ]);
    const fullBefore = tally.total();
    expect(fullBefore).toBe(100 + 4 + 1_001 + 4);
    tally.replace(1, { ...(tally.messages[1] as Message), meta: { agentVisible: false } });
    expect(tally.total()).toBe(fullBefore - 1_001 - 4);
    counter.observe({ units: 10_000, tokens: 15_000 });
    // Appended after the move, before any total: must not be added at the old multiplier.
    tally.append(user(' the'.repeat(10)));
    expect(tally.total()).toBe(estimateContextTokens(tally.messages, counter).tokens);
    expect(tally.total()).toBe(150 + 4 + 15 + 4);
    expect(tally.measure()).toEqual(measureRequest({ messages: tally.messages }));
  });

  it('rebuilds a compacted view from the cache without tokenizing kept messages', () => {
    const counter = countingCounter(o200k);
    const cache = new MessageTokenCache();
    const kept = [user('keep me'), assistant('kept reply')];
    const tally = new ContextTokenTally(counter, { cache }, [user('old'), assistant('old reply'), ...kept]);
    counter.calls.length = 0;
    const summary = message('user', [{ type: 'text', text: 'Summary: earlier work' }], {
      meta: { kind: 'summary' },
    });
    tally.reset([summary, ...kept]);
    expect(counter.calls).toEqual(['Summary: earlier work']);
    expect(tally.length).toBe(3);
  });

  it('refuses positions outside the tally', () => {
    const tally = new ContextTokenTally(o200k, {}, [user('a')]);
    expect(() => tally.replace(1, user('b'))).toThrow(TokenTallyRangeError);
    expect(() => tally.truncate(2)).toThrow(TokenTallyRangeError);
    expect(() => tally.truncate(-1)).toThrow(/outside the tally/);
  });
});
