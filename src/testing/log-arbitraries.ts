import fc from 'fast-check';
import type { Message } from '../core/message.ts';
import { assistant, callsTo, numbered, result, user } from './build-messages.ts';

/**
 * Logs with what a projection has to repair: turns of parallel calls, calls never answered, results that
 * answer no open call (a repeated id), and messages the agent does not see.
 */
export const repairableLogs: fc.Arbitrary<Message[]> = fc
  .array(
    fc.record({
      calls: fc.array(
        fc.record({ n: fc.integer({ min: 1, max: 3 }), answered: fc.boolean(), stray: fc.boolean() }),
        { maxLength: 3 },
      ),
      reply: fc.boolean(),
      hiddenNote: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  )
  .map((turns) => {
    let id = 0;
    const drafts: Omit<Message, 'seq' | 'id'>[] = [];
    for (const [t, turn] of turns.entries()) {
      drafts.push(user(`u${t}`));
      for (const step of turn.calls) {
        const ids = Array.from({ length: step.n }, () => `k${id++}`);
        drafts.push(callsTo(...ids.map((callId): [string, string] => [callId, 'tool'])));
        if (step.answered) for (const callId of ids) drafts.push(result(callId, `out ${callId}`));
        if (step.stray) drafts.push(result(`k${Math.max(0, id - 4)}`, 'late'));
      }
      if (turn.hiddenNote) drafts.push(assistant(`note${t}`, { agentVisible: false }));
      if (turn.reply) drafts.push(assistant(`r${t}`));
    }
    return numbered(drafts);
  });
