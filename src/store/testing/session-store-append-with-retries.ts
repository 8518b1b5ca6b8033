import { SequenceConflictError } from '../../core/errors/index.ts';
import { user } from '../../testing/build-messages.ts';
import type { SessionStore } from '../session-store.ts';

export interface WriterOutcome {
  /** Each append the store acknowledged: where it landed and the ids it carried, in order. */
  acknowledged: { seq: number; ids: string[] }[];
  conflicts: number;
}

/**
 * A writer appending `appends` batches of 1–3 messages (ids `w<writer>-<n>`) to one session: it reads the
 * log's length, appends there, and on a conflict reads again and retries — what the engine does after a
 * SequenceConflictError. Used by the conformance suite and by the cross-process test's child processes.
 */
export async function appendWithRetries(
  store: SessionStore,
  sessionId: string,
  writer: number,
  appends: number,
): Promise<WriterOutcome> {
  const outcome: WriterOutcome = { acknowledged: [], conflicts: 0 };
  let made = 0;
  for (let append = 0; append < appends; append++) {
    const size = (append % 3) + 1;
    const ids = Array.from({ length: size }, (_, index) => `w${writer}-${made + index}`);
    for (;;) {
      const seq = (await store.load(sessionId))?.log.length ?? 0;
      const messages = ids.map((id, index) => ({ ...user(`writer ${writer}, ${id}`), id, seq: seq + index }));
      try {
        await store.appendMessages(sessionId, messages, seq, append + 1);
        outcome.acknowledged.push({ seq, ids });
        break;
      } catch (error) {
        if (!SequenceConflictError.isInstance(error)) throw error;
        outcome.conflicts++;
      }
    }
    made += size;
  }
  return outcome;
}

/**
 * Checks what concurrent writers left behind: exactly one append won each position (the acknowledged
 * ranges tile the log), and the log holds every acknowledged message once, where it was acknowledged, in
 * each writer's order. Returns the problems found (empty when all is well), for any test runner.
 */
export function checkConcurrentLog(
  logIds: readonly string[],
  logSeqs: readonly number[],
  outcomes: readonly WriterOutcome[],
): string[] {
  const problems: string[] = [];
  const acknowledged = outcomes.flatMap((outcome) => outcome.acknowledged);
  const ranges = acknowledged
    .map((entry) => [entry.seq, entry.ids.length] as const)
    .sort((a, b) => a[0] - b[0]);
  let next = 0;
  for (const [seq, length] of ranges) {
    if (seq !== next) problems.push(`an acknowledged append starts at ${seq}, expected ${next}`);
    next = seq + length;
  }
  if (logIds.length !== next)
    problems.push(`the log holds ${logIds.length} messages, ${next} were acknowledged`);
  logSeqs.forEach((seq, index) => {
    if (seq !== index) problems.push(`log position ${index} has seq ${seq}`);
  });
  if (new Set(logIds).size !== logIds.length) problems.push('the log holds a message twice');
  for (const entry of acknowledged) {
    const stored = logIds.slice(entry.seq, entry.seq + entry.ids.length);
    if (stored.join() !== entry.ids.join()) {
      problems.push(
        `append acknowledged at ${entry.seq} (${entry.ids.join()}) is stored as ${stored.join()}`,
      );
    }
  }
  outcomes.forEach((outcome, writer) => {
    const own = logIds.filter((id) => id.startsWith(`w${writer}-`));
    const expected = outcome.acknowledged.flatMap((entry) => entry.ids);
    if (own.join() !== expected.join())
      problems.push(`writer ${writer}'s messages are out of order or missing`);
  });
  return problems;
}
