/**
 * The trace's edge: every event is checked as it is appended and as it is read back. Objects are loose
 * (an extra field a newer ctxkit adds is kept, not dropped), layer and reason names are any string (a
 * trace written by another version stays readable), and the assertion at the bottom keeps the schema in
 * step with `engine/events.ts`: a new event type or field fails to compile here.
 */
import { z } from 'zod';
import type { EditReason, LayerName } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { EmergencyStep } from '../core/policy/policy-schema.ts';

const count = z.number();
const reason = z.custom<EditReason>((value) => typeof value === 'string');
const layer = z.custom<LayerName>((value) => typeof value === 'string');
const emergencyStep = z.custom<EmergencyStep>((value) => typeof value === 'string');
const base = {
  sessionId: z
    .string()
    .min(1)
    .refine((id) => !id.includes('\u0000'), 'must not contain NUL'),
  at: z.number(),
};

const usage = z.looseObject({
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count.optional(),
  cacheWriteTokens: count.optional(),
  reasoningTokens: count.optional(),
});

export const contextEventSchema = z.discriminatedUnion('type', [
  z.looseObject({
    type: z.literal('compaction-started'),
    ...base,
    reason,
    layer,
    tokensBefore: count,
    messagesBefore: count,
  }),
  z.looseObject({
    type: z.literal('compaction-finished'),
    ...base,
    reason,
    layer,
    tokensBefore: count,
    tokensAfter: count,
    messagesBefore: count,
    messagesAfter: count,
    editIds: z.array(z.string()),
    error: z.string().optional(),
  }),
  z.looseObject({
    type: z.literal('tool-output-normalized'),
    ...base,
    seq: count,
    charsBefore: count,
    charsAfter: count,
  }),
  z.looseObject({
    type: z.literal('tool-output-spilled'),
    ...base,
    seq: count,
    blobRef: z.string(),
    sha256: z.string(),
    bytes: count,
  }),
  z.looseObject({ type: z.literal('tool-results-cleared'), ...base, count, tokensFreed: count }),
  z.looseObject({
    type: z.literal('index-unavailable'),
    ...base,
    index: z.enum(['skills', 'memory']),
    code: z.string(),
    message: z.string(),
  }),
  z.looseObject({
    type: z.literal('budget-checked'),
    ...base,
    contextWindow: count,
    maxOutputTokens: count,
    system: count,
    toolDefinitions: count,
    summary: count,
    history: count,
    over: z.boolean(),
  }),
  z.looseObject({ type: z.literal('model-usage'), ...base, usage, model: z.string().optional() }),
  z.looseObject({
    type: z.literal('context-overflowed'),
    ...base,
    attempt: count,
    error: z.string(),
    retry: z.boolean(),
    adoptedWindow: count.optional(),
  }),
  z.looseObject({
    type: z.literal('emergency-compacted'),
    ...base,
    steps: z.array(emergencyStep),
    compacted: z.boolean(),
    tokensBefore: count,
    tokensAfter: count,
    messagesBefore: count,
    messagesAfter: count,
  }),
  z.looseObject({
    type: z.literal('tool-result-hidden'),
    ...base,
    seq: count,
    callId: z.string(),
    reason: z.enum(['no-call', 'already-answered', 'call-closed']),
  }),
  z.looseObject({
    type: z.literal('history-diverged'),
    ...base,
    keptThroughSeq: count,
    hidden: count,
    added: count,
  }),
  z.looseObject({ type: z.literal('summary-scheduled'), ...base, throughSeq: count }),
  z.looseObject({ type: z.literal('summary-applied'), ...base, throughSeq: count, tokens: count }),
  z.looseObject({
    type: z.literal('summary-generated'),
    ...base,
    reason,
    layer,
    summarizer: z.string(),
    model: z.string().optional(),
    inputTokens: count,
    outputTokens: count,
    tokenSource: z.enum(['provider', 'counted']),
    usage: usage.optional(),
    durationMs: count,
    throughSeq: count,
    error: z.string().optional(),
  }),
  z.looseObject({ type: z.literal('session-restored'), ...base, messages: count, edits: count }),
]);

/** The event types the trace knows, in the order `events.ts` declares them. */
export const TRACE_EVENT_TYPES = contextEventSchema.options.map((option) => option.shape.type.value);

type Parsed = z.infer<typeof contextEventSchema>;
/** T without the index signatures loose objects add, at every depth. */
type Known<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: Known<T[K]> }
    : T;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

type SameKeys = {
  [T in ContextEvent['type']]: Same<
    keyof Extract<Known<Parsed>, { type: T }>,
    keyof Extract<ContextEvent, { type: T }>
  >;
}[ContextEvent['type']];

/**
 * Compile-time: the schema describes exactly the ContextEvent union (index signatures aside), optional
 * fields included.
 */
export const TRACE_SCHEMA_MATCHES_EVENTS: Same<Known<Parsed>, ContextEvent> & Same<SameKeys, true> = true;
