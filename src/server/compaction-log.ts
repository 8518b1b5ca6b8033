/**
 * One log line per compaction the manager carries out: which session, which layer and why, the tokens
 * before and after, and when it started and finished (the manager's clock, ms since the epoch). What an
 * operator reads to see when and where context was compacted; in a fleet, every instance's lines
 * together show which one compacted a session when.
 */
import type { Logger } from 'pino';
import type { ContextEvent } from '../core/events.ts';

type Started = Extract<ContextEvent, { type: 'compaction-started' }>;

/** Sessions whose start is remembered while their compaction runs; more are forgotten oldest first. */
const MAX_OPEN = 10_000;

/** A listener for `manager.on` that logs each finished compaction with its start. */
export function compactionLogger(logger: Logger): (event: ContextEvent) => void {
  const open = new Map<string, Started>();
  return (event) => {
    if (event.type === 'compaction-started') {
      const key = `${event.layer}\n${event.sessionId}`;
      open.delete(key);
      open.set(key, event);
      if (open.size > MAX_OPEN) open.delete(open.keys().next().value as string);
      return;
    }
    if (event.type !== 'compaction-finished') return;
    const key = `${event.layer}\n${event.sessionId}`;
    const started = open.get(key);
    open.delete(key);
    logger.info(
      {
        session: event.sessionId,
        layer: event.layer,
        reason: event.reason,
        tokensBefore: event.tokensBefore,
        tokensAfter: event.tokensAfter,
        edits: event.editIds.length,
        startedAt: started?.at ?? event.at,
        finishedAt: event.at,
        ...(event.error !== undefined && { error: event.error }),
      },
      'compaction',
    );
  };
}
