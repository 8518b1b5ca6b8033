/**
 * How messages and edits become rows and come back: JSON text, validated with zod both ways. Writing
 * refuses what could not be read back (an `InvalidAppendError` before anything is stored); reading turns
 * a damaged row into a `CorruptSessionError` naming the session and the position, never a crash later.
 *
 * The schemas accept unknown extra keys (a newer ctxkit may add optional fields) and the decoded value is
 * the parsed JSON itself, so nothing is dropped. The type assertions at the bottom keep them in step
 * with `core/message.ts` and `core/edit.ts`: a new part or edit type fails to compile here.
 */

import { z } from 'zod';
import type { Edit } from '../core/edit.ts';
import { CorruptSessionError, InvalidAppendError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';

const mediaPart = z.object({
  type: z.literal('media'),
  mediaType: z.string(),
  ref: z.string(),
  tokens: z.number().optional(),
  detail: z.string().optional(),
  name: z.string().optional(),
});

/** A message part as ctxkit stores it (and as its REST API takes it). */
export const messagePartSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({
    type: z.literal('reasoning'),
    text: z.string(),
    signature: z.string().optional(),
    redactedData: z.string().optional(),
  }),
  mediaPart,
  z.object({ type: z.literal('tool-call'), callId: z.string(), name: z.string(), args: z.string() }),
  z.object({
    type: z.literal('tool-result'),
    callId: z.string(),
    name: z.string(),
    content: z.string(),
    isError: z.boolean(),
    media: z.array(mediaPart).optional(),
  }),
]);

export const messageMetaSchema = z.object({
  agentVisible: z.boolean().optional(),
  userVisible: z.boolean().optional(),
  kind: z.string().optional(),
  createdAt: z.number().optional(),
  model: z.string().optional(),
});

export const usageSchema = z.object({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadTokens: z.number().optional(),
  cacheWriteTokens: z.number().optional(),
  reasoningTokens: z.number().optional(),
});

export const storedMessageSchema = z.object({
  id: z.string(),
  seq: z.int().nonnegative(),
  role: z.enum(['user', 'assistant', 'tool']),
  parts: z.array(messagePartSchema),
  meta: messageMetaSchema,
  usage: usageSchema.optional(),
});

// Layer and reason names stay open strings: a name added later must not make old rows unreadable.
const compactionSnapshot = z.object({
  tools: z.array(z.object({ name: z.string(), description: z.string() })),
  memory: z.array(z.string()),
  toolExamples: z.array(z.object({ name: z.string(), args: z.string() })),
});

const editBase = {
  id: z.string(),
  at: z.number(),
  layer: z.string(),
  reason: z.string(),
  tokensBefore: z.number(),
  tokensAfter: z.number(),
};

export const storedEditSchema = z.discriminatedUnion('type', [
  z.object({ ...editBase, type: z.literal('branch'), hiddenSeqs: z.array(z.number()) }),
  z.object({
    ...editBase,
    type: z.literal('truncate-result'),
    target: z.number(),
    content: z.string(),
    originalChars: z.number(),
  }),
  z.object({
    ...editBase,
    type: z.literal('truncate-text'),
    target: z.number(),
    text: z.string(),
    originalChars: z.number(),
  }),
  z.object({
    ...editBase,
    type: z.literal('truncate-args'),
    target: z.number(),
    callId: z.string(),
    args: z.string(),
    originalChars: z.number(),
  }),
  z.object({
    ...editBase,
    type: z.literal('evict'),
    target: z.number(),
    blobRef: z.string(),
    sha256: z.string(),
    bytes: z.number(),
    content: z.string(),
  }),
  z.object({
    ...editBase,
    type: z.literal('clear'),
    targets: z.array(z.number()),
    placeholder: z.string(),
    clearInputs: z.boolean(),
  }),
  z.object({
    ...editBase,
    type: z.literal('archive'),
    targets: z.array(z.number()),
    digest: z.string(),
    digestAfterSeq: z.number(),
  }),
  z.object({ ...editBase, type: z.literal('compress-text'), fromSeq: z.number(), throughSeq: z.number() }),
  z.object({ ...editBase, type: z.literal('hide'), targets: z.array(z.number()) }),
  z.object({
    ...editBase,
    type: z.literal('summarize'),
    throughSeq: z.number(),
    summary: z.object({
      text: z.string(),
      sections: z.record(z.string(), z.array(z.string())),
      throughSeq: z.number(),
      tokens: z.number(),
      historyRef: z.string().optional(),
      producer: z.string(),
    }),
    placement: z.enum([
      'own-message',
      'user-message',
      'first-user-message',
      'system-message',
      'system-prompt',
    ]),
    snapshot: compactionSnapshot.optional(),
  }),
  z.object({
    ...editBase,
    type: z.literal('drop'),
    throughSeq: z.number(),
    reminder: z.string().optional(),
    snapshot: compactionSnapshot.optional(),
  }),
  z.object({ ...editBase, type: z.literal('reset'), throughSeq: z.number(), keepSummary: z.boolean() }),
]);

const describeIssue = (error: z.ZodError): string => {
  const [issue] = error.issues;
  if (!issue) return 'invalid';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
};

/** JSON text for one message, after checking it can be read back as one. */
export function encodeMessage(sessionId: string, message: Message): string {
  const checked = storedMessageSchema.safeParse(message);
  if (!checked.success) {
    throw new InvalidAppendError(
      sessionId,
      `message seq ${message.seq} is malformed: ${describeIssue(checked.error)}`,
    );
  }
  return stringify(sessionId, `message seq ${message.seq}`, message);
}

export function encodeEdit(sessionId: string, edit: Edit, position: number): string {
  const checked = storedEditSchema.safeParse(edit);
  if (!checked.success) {
    throw new InvalidAppendError(sessionId, `edit ${position} is malformed: ${describeIssue(checked.error)}`);
  }
  return stringify(sessionId, `edit ${position}`, edit);
}

/** Checks a message without serializing it (the memory store keeps objects, not text). */
export function checkMessage(sessionId: string, message: Message): void {
  const checked = storedMessageSchema.safeParse(message);
  if (!checked.success) {
    throw new InvalidAppendError(
      sessionId,
      `message seq ${message.seq} is malformed: ${describeIssue(checked.error)}`,
    );
  }
}

export function checkEdit(sessionId: string, edit: Edit, position: number): void {
  const checked = storedEditSchema.safeParse(edit);
  if (!checked.success) {
    throw new InvalidAppendError(sessionId, `edit ${position} is malformed: ${describeIssue(checked.error)}`);
  }
}

function stringify(sessionId: string, what: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    throw new InvalidAppendError(sessionId, `${what} cannot be stored as JSON: ${(error as Error).message}`);
  }
}

/** One message row back: JSON, the shape of a Message, and the seq its row says it has. */
export function decodeMessage(sessionId: string, seq: number, body: unknown): Message {
  const value = parseBody(sessionId, { table: 'messages', position: seq }, body);
  const checked = storedMessageSchema.safeParse(value);
  if (!checked.success) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'messages', position: seq },
      describeIssue(checked.error),
    );
  }
  if (checked.data.seq !== seq) {
    throw new CorruptSessionError(
      sessionId,
      { table: 'messages', position: seq },
      `its body says seq ${checked.data.seq}`,
    );
  }
  return value as Message;
}

export function decodeEdit(sessionId: string, position: number, body: unknown): Edit {
  const value = parseBody(sessionId, { table: 'edits', position }, body);
  const checked = storedEditSchema.safeParse(value);
  if (!checked.success) {
    throw new CorruptSessionError(sessionId, { table: 'edits', position }, describeIssue(checked.error));
  }
  return value as Edit;
}

function parseBody(
  sessionId: string,
  where: { table: 'messages' | 'edits'; position: number },
  body: unknown,
): unknown {
  if (typeof body !== 'string')
    throw new CorruptSessionError(sessionId, where, `body is ${typeof body}, not text`);
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new CorruptSessionError(sessionId, where, `body is not JSON (${(error as Error).message})`);
  }
}

/**
 * Rows listing a log or an edit list must number 0, 1, 2, … with no gap: the stores' own counters and the
 * UNIQUE (session, position) keys make that so, and a gap means someone edited the database by hand.
 */
export function assertNumbered(
  sessionId: string,
  table: 'messages' | 'edits',
  position: unknown,
  expected: number,
): void {
  if (position !== expected) {
    throw new CorruptSessionError(
      sessionId,
      { table, position: expected },
      `row ${String(position)} found where ${expected} belongs`,
    );
  }
}

// Compile-time: the schemas accept every Message/Edit, and what they accept is a Message/Edit (with
// layer and reason names left open, as above).
type Accepts<Schema extends z.ZodType, T> = [T] extends [z.input<Schema>] ? true : false;
type Yields<Schema extends z.ZodType, T> = [z.output<Schema>] extends [T] ? true : false;
type OpenNames<E> = E extends Edit ? Omit<E, 'layer' | 'reason'> & { layer: string; reason: string } : never;
const schemasMatchTypes: [
  Accepts<typeof storedMessageSchema, Message>,
  Yields<typeof storedMessageSchema, Message>,
  Accepts<typeof storedEditSchema, Edit>,
  Yields<typeof storedEditSchema, OpenNames<Edit>>,
] = [true, true, true, true];
void schemasMatchTypes;
