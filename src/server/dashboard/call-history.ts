/**
 * The proxy's recent model calls per session, in memory, for the dashboard: what each call sent, what
 * ctxkit saved, the window, the time and the edits. Bounded: the last calls of each session, for at most
 * as many sessions as the proxy keeps loaded (the least recently called is forgotten first).
 */
import type { ContextEvent } from '../../core/events.ts';
import type { TokenCategories } from '../../engine/session-stats.ts';
import { BoundedMap } from '../bounded-map.ts';

/** Calls kept per session. */
export const MAX_CALLS_PER_SESSION = 1_000;

/** Compaction events kept per call: a call that fired more has its first ones kept. */
export const MAX_EVENTS_PER_CALL = 50;

/** The events that changed what the model sees: each is a marker on the dashboard's chart. */
const COMPACTION_EVENTS: ReadonlySet<ContextEvent['type']> = new Set([
  'compaction-finished',
  'tool-results-cleared',
  'tool-output-spilled',
  'emergency-compacted',
  'summary-applied',
]);

/** The events of a call the dashboard marks, in order, bounded. */
export function compactionEventsOf(events: readonly ContextEvent[]): ContextEvent[] {
  return events.filter((event) => COMPACTION_EVENTS.has(event.type)).slice(0, MAX_EVENTS_PER_CALL);
}

export interface CallRecord {
  /** Milliseconds since the epoch, when the call was logged. */
  at: number;
  /** Input tokens sent upstream. */
  sent: number;
  /** Tokens the client's request held beyond what was sent. */
  saved: number;
  /** The window of the call; null when unbounded (unknown). */
  window: number | null;
  /** The pressure stats reported (the policy's measure: a fraction). */
  pressure: number;
  /** The session's edit count after the call was prepared. */
  edits: number;
  /** ctxkit's count of the prepared request by category (they add up to `input`). */
  tokens: TokenCategories;
  /** What compacted the context while this call was prepared (at most `MAX_EVENTS_PER_CALL`). */
  compactions: ContextEvent[];
  status: number;
  model: string;
}

/** A recorded call with the session it belongs to (its store id and the id its client sees). */
export interface CallEvent {
  sessionId: string;
  publicId: string;
  call: CallRecord;
}

export type CallListener = (event: CallEvent) => void;

export class CallHistory {
  readonly #sessions: BoundedMap<string, CallRecord[]>;
  readonly #listeners = new Set<CallListener>();

  constructor(
    maxSessions: number,
    private readonly maxCalls: number = MAX_CALLS_PER_SESSION,
  ) {
    this.#sessions = new BoundedMap(Math.max(1, maxSessions));
  }

  record(sessionId: string, publicId: string, call: CallRecord): void {
    const calls = this.#sessions.get(sessionId) ?? [];
    calls.push(call);
    if (calls.length > this.maxCalls) calls.splice(0, calls.length - this.maxCalls);
    // Set again: the session becomes the most recent, the last a full map forgets.
    this.#sessions.set(sessionId, calls);
    for (const listener of this.#listeners) {
      try {
        listener({ sessionId, publicId, call });
      } catch {
        // A listener's failure (a closed stream) is its own; the call is recorded.
      }
    }
  }

  /** The session's recorded calls, oldest first (undefined: none recorded, or forgotten). */
  calls(sessionId: string): readonly CallRecord[] | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Calls `listener` with every call recorded from now on; returns the function that stops it. */
  subscribe(listener: CallListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  get listeners(): number {
    return this.#listeners.size;
  }
}
