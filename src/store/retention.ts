/**
 * Retention (cowagent: "sessions older than 30 days are automatically cleaned up"): a session nobody has
 * written to for more than `maxIdleDays` days is removed, with everything that belongs to it:
 *
 * - its blobs (offloaded tool results, its conversation_history transcript): `BlobStore.deleteSession`;
 * - its trace events, unless `keepTrace` (an audit trail kept past the session);
 * - then the session itself (log, edits, summary): `SessionStore.delete`, last, so a sweep that fails
 *   half-way leaves the session listed and idle, and the next sweep finishes the job.
 *
 * Memory files stay: they are the agent's long-term memory, written to outlive sessions.
 *
 * Idle means `updatedAt` (the last append) is strictly more than `maxIdleDays` × 24 h before `now`;
 * `maxIdleDays = 0` keeps everything (as `policy.retention.maxIdleDays` reads). Built on
 * `SessionStore.list()` and `delete()` only, so it works with every store; the `updatedBefore` filter is
 * passed for stores that can use it and applied again here for those that cannot.
 *
 * A dry run deletes nothing and reports exactly what a real run would remove, with counts.
 */
import { CtxkitError, InvalidRetentionError } from '../core/errors/index.ts';
import type { BlobStore } from './blob-store.ts';
import { validateBlobName } from './blob-store-ids.ts';
import type { SessionListing, SessionStore } from './session-store.ts';
import type { TraceStore } from './trace-store.ts';

/** cowagent: sessions idle for longer are removed. */
export const DEFAULT_RETENTION_MAX_IDLE_DAYS = 30;
export const DAY_MS = 86_400_000;

export interface RetentionOptions {
  sessions: SessionStore;
  blobs?: BlobStore;
  trace?: TraceStore;
  /** Keep removed sessions' trace events (default: they go with the session). */
  keepTrace?: boolean;
  /** Epoch ms; passed in, like every clock. */
  now: number;
  /** Default 30 (cowagent); 0 = keep every session forever. */
  maxIdleDays?: number;
  /** List what would go; delete nothing. */
  dryRun?: boolean;
}

export interface RetainedSessionReport {
  sessionId: string;
  updatedAt: number;
  /** Whole days since the last write. */
  idleDays: number;
  messages: number;
  edits: number;
  /** Blobs removed (or that would be); 0 without a blob store. */
  blobs: number;
  /** Trace events removed (or that would be); 0 when there is no trace or it is kept. */
  traceEvents: number;
}

export interface RetentionFailure {
  sessionId: string;
  code: string;
  message: string;
}

export interface RetentionReport {
  dryRun: boolean;
  now: number;
  maxIdleDays: number;
  /** Sessions last written before this time are idle; undefined when retention is off. */
  cutoff: number | undefined;
  /** Removed, or in a dry run would be, least recently updated first. */
  removed: RetainedSessionReport[];
  /** Sessions that could not be removed (a blob directory that is a symlink, a database error…). */
  failures: RetentionFailure[];
}

const hasBlobName = (sessionId: string): boolean => {
  try {
    validateBlobName('sessionId', sessionId);
    return true;
  } catch {
    // Any storable session id can have blobs; only an id too long for the blob store (never written) has none.
    return false;
  }
};

function failureOf(sessionId: string, error: unknown): RetentionFailure {
  if (CtxkitError.isInstance(error)) return { sessionId, code: error.code, message: error.message };
  const code =
    typeof error === 'object' && error !== null && 'code' in error
      ? String((error as { code: unknown }).code)
      : 'error';
  return { sessionId, code, message: error instanceof Error ? error.message : String(error) };
}

/** Removes (or, in a dry run, lists) the sessions idle for more than `maxIdleDays`, with their blobs and trace. */
export async function sweepIdleSessions(options: RetentionOptions): Promise<RetentionReport> {
  const { sessions, blobs, now } = options;
  const maxIdleDays = options.maxIdleDays ?? DEFAULT_RETENTION_MAX_IDLE_DAYS;
  const dryRun = options.dryRun ?? false;
  const trace = options.keepTrace ? undefined : options.trace;
  if (!Number.isFinite(now)) throw new InvalidRetentionError('now', 'must be an epoch-ms time');
  if (!Number.isFinite(maxIdleDays) || maxIdleDays < 0) {
    throw new InvalidRetentionError(
      'maxIdleDays',
      'must be a number of days, 0 or more (0 keeps every session)',
    );
  }

  const report: RetentionReport = { dryRun, now, maxIdleDays, cutoff: undefined, removed: [], failures: [] };
  if (maxIdleDays === 0) return report;
  const cutoff = now - maxIdleDays * DAY_MS;
  report.cutoff = cutoff;

  const idle: SessionListing[] = (await sessions.list({ updatedBefore: cutoff }))
    .filter((listing) => listing.updatedAt < cutoff)
    .sort((a, b) => a.updatedAt - b.updatedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));

  for (const listing of idle) {
    const sessionId = listing.id;
    const entry: RetainedSessionReport = {
      sessionId,
      updatedAt: listing.updatedAt,
      idleDays: Math.floor((now - listing.updatedAt) / DAY_MS),
      messages: listing.messages,
      edits: listing.edits,
      blobs: 0,
      traceEvents: 0,
    };
    try {
      const withBlobs = blobs !== undefined && hasBlobName(sessionId);
      if (dryRun) {
        if (withBlobs) entry.blobs = (await blobs.list(sessionId)).length;
        if (trace) entry.traceEvents = await trace.count(sessionId);
      } else {
        // The session's own record last: if anything before fails, it is still listed for the next sweep.
        if (withBlobs) entry.blobs = await blobs.deleteSession(sessionId);
        if (trace) entry.traceEvents = await trace.deleteSession(sessionId);
        await sessions.delete(sessionId);
      }
      report.removed.push(entry);
    } catch (error) {
      report.failures.push(failureOf(sessionId, error));
    }
  }
  return report;
}
