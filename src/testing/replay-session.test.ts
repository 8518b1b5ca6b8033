import { describe, expect, it } from 'vitest';
import { createContextManager, type Message, PRESETS } from '../index.ts';
import { assistant, callsTo, numbered, result, user } from './build-messages.ts';
import { replaySession } from './replay-session.ts';

/** A real manager whose afterTurn records what the log ended with when it was called. */
function watchedManager() {
  const manager = createContextManager({ policy: PRESETS.default });
  const seen: { lastRole: string; lastSeq: number }[] = [];
  const afterTurn = manager.afterTurn.bind(manager);
  manager.afterTurn = async (sessionId: string) => {
    const { log } = await manager.history(sessionId);
    const last = log.at(-1) as Message;
    seen.push({ lastRole: last.role, lastSeq: last.seq });
    return afterTurn(sessionId);
  };
  return { manager, seen };
}

describe('replaySession calls afterTurn where the library guide says', () => {
  it('after each reply and its tool results are appended, before the next user message', async () => {
    const messages = numbered([
      user('fix the test'),
      callsTo(['c1', 'bash', '{"command":"npm test"}']),
      result('c1', 'FAIL a.test.ts', { name: 'bash' }),
      callsTo(['c2', 'read', '{"path":"a.ts"}']),
      result('c2', 'export const a = 1;', { name: 'read' }),
      assistant('Fixed: a was wrong.'),
      user('thanks, now commit'),
      assistant('Committed.'),
    ]);
    const { manager, seen } = watchedManager();
    const steps = await replaySession(manager, 's', messages, {
      contextWindow: 16_000,
      maxOutputTokens: 1_000,
    });
    expect(steps.map((step) => step.index)).toEqual([1, 3, 5, 7]);
    // One afterTurn per model call: after the results of calls 1 and 3, after reply 5 (before the
    // user's next words, seq 6), and after the last reply.
    expect(seen).toEqual([
      { lastRole: 'tool', lastSeq: 2 },
      { lastRole: 'tool', lastSeq: 4 },
      { lastRole: 'assistant', lastSeq: 5 },
      { lastRole: 'assistant', lastSeq: 7 },
    ]);
    expect((await manager.history('s')).log).toHaveLength(messages.length);
  });
});
