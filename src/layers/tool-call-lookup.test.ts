import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { callAnsweredAt, callsByResultIndex } from './tool-call-lookup.ts';

const call = (ids: string[]): Message => ({
  id: '',
  seq: 0,
  role: 'assistant',
  parts: ids.map((callId) => ({ type: 'tool-call', callId, name: 'bash', args: '{}' })),
  meta: {},
});
const result = (callId: string): Message => ({
  id: '',
  seq: 0,
  role: 'tool',
  parts: [{ type: 'tool-result', callId, name: 'bash', content: 'ok', isError: false }],
  meta: {},
});

describe('callAnsweredAt', () => {
  it('pairs a result with its call as the whole-history pairing does, reused ids and orphans included', () => {
    // Few ids, so they are reused; results may come with no call pending (orphans) or out of order.
    const id = fc.constantFrom('a', 'b', 'c');
    const message = fc.oneof(
      fc.array(id, { minLength: 1, maxLength: 3 }).map(call),
      id.map(result),
      fc.constant<Message>({ id: '', seq: 0, role: 'user', parts: [{ type: 'text', text: 'go' }], meta: {} }),
    );
    fc.assert(
      fc.property(fc.array(message, { maxLength: 40 }), (messages) => {
        const whole = callsByResultIndex(messages);
        messages.forEach((candidate, index) => {
          if (candidate.role !== 'tool') return;
          expect(callAnsweredAt(messages, index)).toEqual(whole.get(index));
        });
      }),
      { numRuns: 300, seed: 5 },
    );
  });

  it('finds nothing for a message that is not a result', () => {
    expect(callAnsweredAt([call(['a'])], 0)).toBeUndefined();
  });
});
