/**
 * The trace: an append-only record of everything the manager did (model usage, compactions, spills,
 * overflows, restores: the `ContextEvent` union), for people and scorers. It lives in its own table
 * (`ctxkit_trace_events`), apart from sessions, and nothing reads it back into a session: it is never
 * fed to the model (deepagents). Backends: memory, SQLite (`sqlite-trace-store.ts`), PostgreSQL
 * (`postgres-trace-store.ts`); they share everything above the rows (`createTraceStore`).
 *
 * Export is JSONL: one event per line, exactly the JSON object that was appended (its own `sessionId`,
 * `at` and `type` included), in append order; the same lines a `ContextEventListener` saw.
 */

import { z } from 'zod';
import {
  InvalidTraceEventError,
  StoredDataInvalidError,
  TraceStoreClosedError,
} from '../core/errors/index.ts';
import type { ContextEvent, ContextEventListener, ContextEventType } from '../core/events.ts';
import { contextEventSchema } from './trace-event-schema.ts';

export interface TraceQuery {
  /** Only these event types. */
  types?: readonly ContextEventType[];
  /** Only events at or after this epoch-ms time. */
  since?: number;
  /** Only events before this epoch-ms time. */
  until?: number;
  /** At most this many (the first, in append order). */
  limit?: number;
}

export interface TraceStore {
  append(event: ContextEvent): Promise<void>;
  /** Several events in one transaction, in order. */
  appendMany(events: readonly ContextEvent[]): Promise<void>;
  /** A session's events in append order. */
  list(sessionId: string, query?: TraceQuery): Promise<ContextEvent[]>;
  /** JSONL of one session's events, or every session's (undefined), in append order; `''` when none. */
  exportJsonl(sessionId?: string, query?: TraceQuery): Promise<string>;
  /** The same lines (each ending in `\n`), read page by page: for traces too large for one string. */
  streamJsonl(sessionId?: string, query?: TraceQuery): AsyncIterable<string>;
  count(sessionId: string): Promise<number>;
  /** Removes a session's events; returns how many there were. */
  deleteSession(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

/** Rows read per page when listing or exporting. */
export const TRACE_PAGE_SIZE = 1_000;

/** What a backend stores per event: the indexed columns and the event's JSON text. */
export interface TraceRow {
  sessionId: string;
  at: number;
  type: string;
  json: string;
}

export interface TracePageRequest {
  /** Rows with a greater seq only. */
  afterSeq: number;
  sessionId: string | undefined;
  types: readonly string[] | undefined;
  since: number | undefined;
  until: number | undefined;
  limit: number;
}

/** The rows of a trace: a table in a database, or an array. */
export interface TraceBackend {
  readonly location: string;
  insert(rows: readonly TraceRow[]): Promise<void>;
  /** Rows matching the request, by ascending seq. */
  page(request: TracePageRequest): Promise<Array<{ seq: number; json: string }>>;
  count(sessionId: string): Promise<number>;
  deleteSession(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

const sessionIdSchema = z
  .string()
  .min(1)
  .refine((id) => !id.includes('\u0000'), 'must not contain NUL');

function encode(event: ContextEvent): TraceRow {
  const parsed = contextEventSchema.safeParse(event);
  if (!parsed.success) throw new InvalidTraceEventError(z.prettifyError(parsed.error));
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    throw new InvalidTraceEventError((error as Error).message);
  }
  // Only what survives JSON is kept: refuse an event that would come back different (a Date, undefined in arrays…).
  const reparsed = contextEventSchema.safeParse(JSON.parse(json));
  if (!reparsed.success) throw new InvalidTraceEventError(z.prettifyError(reparsed.error));
  return { sessionId: event.sessionId, at: event.at, type: event.type, json };
}

function decode(location: string, seq: number, json: string): ContextEvent {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new StoredDataInvalidError(`${location}, trace event ${seq}`, (error as Error).message);
  }
  const parsed = contextEventSchema.safeParse(value);
  if (!parsed.success) {
    throw new StoredDataInvalidError(`${location}, trace event ${seq}`, z.prettifyError(parsed.error));
  }
  return parsed.data as ContextEvent;
}

function checkSessionId(sessionId: string): void {
  const parsed = sessionIdSchema.safeParse(sessionId);
  if (!parsed.success) throw new InvalidTraceEventError(`sessionId: ${z.prettifyError(parsed.error)}`);
}

/** The TraceStore over any backend: validation, filtering, paging and JSONL are the same for all. */
export function createTraceStore(backend: TraceBackend): TraceStore {
  let closed = false;
  const open = (): void => {
    if (closed) throw new TraceStoreClosedError(backend.location);
  };

  async function* rows(
    sessionId: string | undefined,
    query: TraceQuery = {},
  ): AsyncGenerator<{ seq: number; json: string }> {
    open();
    if (sessionId !== undefined) checkSessionId(sessionId);
    let remaining = query.limit ?? Number.POSITIVE_INFINITY;
    let afterSeq = 0;
    while (remaining > 0) {
      const page = await backend.page({
        afterSeq,
        sessionId,
        types: query.types,
        since: query.since,
        until: query.until,
        limit: Math.min(TRACE_PAGE_SIZE, remaining),
      });
      for (const row of page) yield row;
      const last = page.at(-1);
      if (!last || page.length < Math.min(TRACE_PAGE_SIZE, remaining)) return;
      afterSeq = last.seq;
      remaining -= page.length;
    }
  }

  async function* lines(sessionId: string | undefined, query?: TraceQuery): AsyncGenerator<string> {
    // Each line is checked before it leaves: an export never carries a row that is not an event.
    for await (const row of rows(sessionId, query)) {
      decode(backend.location, row.seq, row.json);
      yield `${row.json}\n`;
    }
  }

  const store: TraceStore = {
    async append(event) {
      await store.appendMany([event]);
    },

    async appendMany(events) {
      open();
      const encoded = events.map(encode);
      if (encoded.length > 0) await backend.insert(encoded);
    },

    async list(sessionId, query) {
      const events: ContextEvent[] = [];
      for await (const row of rows(sessionId, query))
        events.push(decode(backend.location, row.seq, row.json));
      return events;
    },

    async exportJsonl(sessionId, query) {
      let out = '';
      for await (const line of lines(sessionId, query)) out += line;
      return out;
    },

    streamJsonl(sessionId, query) {
      return lines(sessionId, query);
    },

    async count(sessionId) {
      open();
      checkSessionId(sessionId);
      return backend.count(sessionId);
    },

    async deleteSession(sessionId) {
      open();
      checkSessionId(sessionId);
      return backend.deleteSession(sessionId);
    },

    async close() {
      if (closed) return;
      closed = true;
      await backend.close();
    },
  };
  return store;
}

/** A trace in memory: for tests, and for the library when nothing durable is configured. */
export function createMemoryTraceStore(): TraceStore {
  const rows: Array<TraceRow & { seq: number }> = [];
  let seq = 0;
  return createTraceStore({
    location: 'memory',
    async insert(inserted) {
      for (const row of inserted) rows.push({ ...row, seq: ++seq });
    },
    async page({ afterSeq, sessionId, types, since, until, limit }) {
      return rows
        .filter(
          (row) =>
            row.seq > afterSeq &&
            (sessionId === undefined || row.sessionId === sessionId) &&
            (types === undefined || types.includes(row.type)) &&
            (since === undefined || row.at >= since) &&
            (until === undefined || row.at < until),
        )
        .slice(0, limit)
        .map(({ seq, json }) => ({ seq, json }));
    },
    async count(sessionId) {
      return rows.filter((row) => row.sessionId === sessionId).length;
    },
    async deleteSession(sessionId) {
      let removed = 0;
      for (let i = rows.length - 1; i >= 0; i--) {
        if (rows[i]?.sessionId === sessionId) {
          rows.splice(i, 1);
          removed++;
        }
      }
      return removed;
    },
    async close() {},
  });
}

export interface TraceRecorder {
  /** Subscribe it: `manager.on(recorder.listener)`. */
  listener: ContextEventListener;
  /** Resolves when every event received so far is in the trace. */
  flush(): Promise<void>;
}

/**
 * Records the manager's events into a trace, in the order they were emitted. Listeners are synchronous,
 * so appends are queued: the events that arrive while a write is under way (one call's several) go in
 * the next write together, one transaction for all of them (and each on its own if the store refuses
 * them together). A failed append goes to `onError` (default: rethrown from the next `flush()`), once for
 * each event it could not write, and never into the agent's turn.
 */
export function createTraceRecorder(
  trace: TraceStore,
  options: { onError?: (error: unknown, event: ContextEvent) => void } = {},
): TraceRecorder {
  let queue: Promise<void> = Promise.resolve();
  let pending: ContextEvent[] = [];
  let failure: unknown;
  const write = async (): Promise<void> => {
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    const report = (error: unknown, event: ContextEvent): void => {
      if (options.onError) options.onError(error, event);
      else failure ??= error;
    };
    try {
      await trace.appendMany(batch);
    } catch (error) {
      if (batch.length === 1) return report(error, batch[0] as ContextEvent);
      // One event the store refuses must not take the others down with it: each is tried on its own.
      for (const event of batch) await trace.append(event).catch((each: unknown) => report(each, event));
    }
  };
  return {
    listener(event) {
      pending.push(event);
      // The first event of a batch queues its write; those after it join the batch until it starts.
      if (pending.length === 1) queue = queue.then(write);
    },
    async flush() {
      await queue;
      if (failure !== undefined) {
        const error = failure;
        failure = undefined;
        throw error;
      }
    },
  };
}
