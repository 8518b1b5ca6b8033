/** The rows both SQL stores read back (`ctxkit_sessions` and a resume's), validated before use. */

import { z } from 'zod';
import { type Edit, editReach } from '../core/edit.ts';
import { CorruptSessionError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { mapInSlices, WorkSlices } from '../core/work-slices.ts';
import {
  contentIdAt,
  type PositionedWrite,
  type RecentSession,
  type SessionListing,
  type StoredSession,
  type StoredTokenCount,
} from './session-store.ts';
import {
  assertNumbered,
  decodeEdit,
  decodeMessage,
  encodeEdit,
  encodeMessage,
} from './session-store-codec.ts';
import { parseStoredTokenCount } from './stored-token-count.ts';

export const sessionRowSchema = z.object({
  id: z.string(),
  created_at: z.number(),
  updated_at: z.number(),
  message_count: z.int().nonnegative(),
  edit_count: z.int().nonnegative(),
});

export type SessionRow = z.output<typeof sessionRowSchema>;

export function parseSessionRow(row: unknown): SessionRow {
  const parsed = sessionRowSchema.safeParse(row);
  if (parsed.success) return parsed.data;
  const id = typeof row === 'object' && row !== null && 'id' in row ? String(row.id) : '(unknown)';
  throw new CorruptSessionError(id, { table: 'sessions' }, parsed.error.issues[0]?.message ?? 'invalid row');
}

export function toListing(row: unknown): SessionListing {
  const session = parseSessionRow(row);
  return {
    id: session.id,
    messages: session.message_count,
    edits: session.edit_count,
    createdAt: session.created_at,
    updatedAt: session.updated_at,
  };
}

/** The column values a write inserts, both SQL stores alike: checked and serialized before any lock is taken. */
export interface WriteRows {
  messages: string[];
  messageIds: string[];
  contentIds: (string | null)[];
  tokens: (string | null)[];
  edits: string[];
  editReach: (number | null)[];
}

/** The token count a write gives its message at `offset`, as stored (JSON text), or null. */
const tokensTextAt = (write: PositionedWrite, offset: number): string | null => {
  const count = write.tokens?.[offset];
  return count ? JSON.stringify(count) : null;
};

export function encodeWriteRows(sessionId: string, change: PositionedWrite): WriteRows {
  return {
    messages: change.messages.map((message) => encodeMessage(sessionId, message)),
    messageIds: change.messages.map((message) => message.id),
    contentIds: change.messages.map((_, offset) => contentIdAt(change, offset)),
    tokens: change.messages.map((_, offset) => tokensTextAt(change, offset)),
    edits: change.edits.map((edit, offset) =>
      encodeEdit(sessionId, edit, (change.expectedEditCount ?? 0) + offset),
    ),
    editReach: change.edits.map((edit) => editReach(edit)),
  };
}

/** A whole stored session from the rows both SQL stores read in one snapshot, checked against its counts. */
export function assembleStoredSession(
  sessionId: string,
  read: { row: unknown; messages: readonly (readonly unknown[])[]; edits: readonly (readonly unknown[])[] },
): StoredSession {
  const session = parseSessionRow(read.row);
  const log = read.messages.map((entry, index) => {
    assertNumbered(sessionId, 'messages', entry[0], index);
    return decodeMessage(sessionId, index, entry[1]);
  });
  const edits = decodeEdits(sessionId, read.edits);
  if (log.length !== session.message_count || edits.length !== session.edit_count) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'sessions' },
      `it counts ${session.message_count} messages and ${session.edit_count} edits, the tables hold ${log.length} and ${edits.length}`,
    );
  }
  return { id: session.id, log, edits, createdAt: session.created_at, updatedAt: session.updated_at };
}

/** (position, body) edit rows, numbered from 0, as edits. */
export function decodeEdits(sessionId: string, rows: readonly (readonly unknown[])[]): Edit[] {
  return rows.map((entry, index) => {
    assertNumbered(sessionId, 'edits', entry[0], index);
    return decodeEdit(sessionId, index, entry[1]);
  });
}

/** Some of a session's edits: (position, body) rows in position order, decoded, with their positions. */
export interface EditRows {
  positions: number[];
  edits: Edit[];
}

export function decodeEditRows(sessionId: string, rows: readonly (readonly unknown[])[]): EditRows {
  const positions: number[] = [];
  const edits = rows.map(([position, body]) => {
    const at = Number(position);
    if (!Number.isInteger(at) || at < 0 || (positions.length > 0 && at <= (positions.at(-1) ?? -1))) {
      throw new CorruptSessionError(sessionId, { table: 'edits' }, `row ${String(position)} is out of order`);
    }
    positions.push(at);
    return decodeEdit(sessionId, at, body);
  });
  return { positions, edits };
}

/** Two disjoint sets of edit rows as one, in position order. */
export function mergeEditRows(a: EditRows, b: EditRows): EditRows {
  const positions: number[] = [];
  const edits: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.positions.length || j < b.positions.length) {
    const fromA = j >= b.positions.length || (a.positions[i] ?? Infinity) < (b.positions[j] ?? Infinity);
    positions.push((fromA ? a.positions[i] : b.positions[j]) as number);
    edits.push((fromA ? a.edits[i++] : b.edits[j++]) as Edit);
  }
  return { positions, edits };
}

/** The ids of every message, read as one aggregate row: (count, min seq, max seq, ids as JSON, content ids as JSON). */
export function decodeMessageKeys(
  sessionId: string,
  aggregate: readonly unknown[] | undefined,
): { messageIds: string[]; contentIds: (string | null)[] } {
  return decodeMessageKeyRange(sessionId, aggregate, 0, Number(aggregate?.[0] ?? 0));
}

/** The ids of the messages `[from, to)`, read as one aggregate row as `decodeMessageKeys` reads them. */
export function decodeMessageKeyRange(
  sessionId: string,
  aggregate: readonly unknown[] | undefined,
  from: number,
  to: number,
): { messageIds: string[]; contentIds: (string | null)[] } {
  const [count, first, last, ids, contentIds] = aggregate ?? [];
  const total = Number(count ?? 0);
  if (total === 0 && to <= from) return { messageIds: [], contentIds: [] };
  const asArray = (value: unknown): unknown => (typeof value === 'string' ? JSON.parse(value) : value);
  const messageIds = asArray(ids);
  const content = asArray(contentIds);
  if (total !== to - from || Number(first) !== from || Number(last) !== to - 1) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'messages' },
      from === 0 && to === total
        ? `its ${total} rows are numbered ${String(first)} to ${String(last)}`
        : `its rows ${from} to ${to - 1} are ${total} rows numbered ${String(first)} to ${String(last)}`,
    );
  }
  if (
    !Array.isArray(messageIds) ||
    !Array.isArray(content) ||
    messageIds.length !== total ||
    content.length !== total ||
    messageIds.some((id) => typeof id !== 'string') ||
    content.some((id) => id !== null && typeof id !== 'string')
  ) {
    throw new CorruptSessionError(sessionId, { table: 'messages' }, 'message_id or content_id is not text');
  }
  return { messageIds: messageIds as string[], contentIds: content as (string | null)[] };
}

/** What a resume reads, as both SQL stores read it (see `assembleRecentSession`). */
export interface RecentRead {
  row: unknown;
  /** The edits the resume needs, decoded already (the start depends on them). */
  edits: EditRows;
  keys: { messageIds: string[]; contentIds: (string | null)[] };
  logStart: number;
  recent: readonly (readonly unknown[])[];
}

/**
 * A `RecentSession` from what both SQL stores read in one snapshot: the session row, every edit,
 * every message's ids and the (seq, body, tokens) rows from `logStart` on. Checks them against each
 * other and the session's counts, so a damaged table is reported, not resumed from.
 */
export function assembleRecentSession(sessionId: string, read: RecentRead): RecentSession {
  const session = checkRecentEdits(sessionId, read);
  const recentTokens: (StoredTokenCount | null)[] = [];
  const recent = read.recent.map((entry, offset) =>
    decodeRecentRow(sessionId, read, entry, offset, recentTokens),
  );
  return recentSessionOf(sessionId, session, read, recent, recentTokens);
}

/** `assembleRecentSession` in slices: the bodies of hundreds of thousands of messages are decoded. */
export async function assembleRecentSessionInSlices(
  sessionId: string,
  read: RecentRead,
  slices: WorkSlices = new WorkSlices(),
): Promise<RecentSession> {
  const session = checkRecentEdits(sessionId, read);
  const recentTokens: (StoredTokenCount | null)[] = [];
  const recent = await mapInSlices(
    read.recent,
    (entry, offset) => decodeRecentRow(sessionId, read, entry, offset, recentTokens),
    slices,
  );
  return recentSessionOf(sessionId, session, read, recent, recentTokens);
}

function checkRecentEdits(sessionId: string, read: RecentRead): SessionRow {
  const session = parseSessionRow(read.row);
  const { positions } = read.edits;
  if ((positions.at(-1) ?? -1) >= session.edit_count) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'sessions' },
      `it counts ${session.edit_count} edits, the table has one at position ${positions.at(-1)}`,
    );
  }
  return session;
}

function decodeRecentRow(
  sessionId: string,
  read: RecentRead,
  entry: readonly unknown[],
  offset: number,
  recentTokens: (StoredTokenCount | null)[],
): Message {
  const { messageIds } = read.keys;
  const seq = read.logStart + offset;
  assertNumbered(sessionId, 'messages', entry[0], seq);
  const message = decodeMessage(sessionId, seq, entry[1]);
  recentTokens.push(decodeTokens(sessionId, seq, entry[2]));
  if (message.id !== messageIds[seq]) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'messages', position: seq },
      `message_id ${String(messageIds[seq])} does not match the body's id ${message.id}`,
    );
  }
  return message;
}

function recentSessionOf(
  sessionId: string,
  session: SessionRow,
  read: RecentRead,
  recent: Message[],
  recentTokens: (StoredTokenCount | null)[],
): RecentSession {
  const { messageIds, contentIds } = read.keys;
  const heldThrough = read.logStart + recent.length;
  if (messageIds.length !== session.message_count || heldThrough !== session.message_count) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'sessions' },
      `it counts ${session.message_count} messages, the table holds ${messageIds.length}`,
    );
  }
  return {
    id: session.id,
    edits: read.edits.edits,
    editCount: session.edit_count,
    messageIds,
    contentIds,
    logStart: read.logStart,
    recent,
    recentTokens,
    createdAt: session.created_at,
    updatedAt: session.updated_at,
  };
}

function decodeTokens(sessionId: string, seq: number, text: unknown): StoredTokenCount | null {
  if (text === null || text === undefined) return null;
  const count = typeof text === 'string' ? parseStoredTokenCount(text) : undefined;
  if (!count) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'messages', position: seq },
      'tokens is not a token count',
    );
  }
  return count;
}
