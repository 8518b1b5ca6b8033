import { canonicalJson } from '../core/canonical-json.ts';
import { MessageIdConflictError } from '../core/errors/index.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { toolCallsOf, toolResultOf } from '../core/message.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** How far back (messages of the turn in progress) a retried append is looked for. */
export const RETRY_LOOKBACK_MESSAGES = 512;

/** What retry recognition reads of a session: its turn in progress and its messages by id. */
export interface RetryContext {
  sessionId: string;
  /**
   * The caller's history since its newest turn start, newest first (`turnNewestFirst`): read as far back
   * as a question needs, which is nearly always a message or two.
   */
  turnNewestFirst(): Iterable<Message>;
  hasId(id: string): boolean;
  /** A logged message by id, looked up beyond the turn only when `hasId` says it is there. */
  findById(id: string): Promise<Message | undefined>;
}

/**
 * The caller's history since its newest turn start, held in memory, newest first, at most
 * `RETRY_LOOKBACK_MESSAGES`.
 */
export function* turnNewestFirst(runtime: SessionRuntime): Generator<Message> {
  const seqs = runtime.branch.seqs;
  let read = 0;
  for (let at = seqs.length - 1; at >= 0 && read < RETRY_LOOKBACK_MESSAGES; at--) {
    const message = runtime.messageAt(seqs[at] as number);
    if (message === undefined) return;
    read++;
    yield message;
    if (startsTurn(message)) return;
  }
}

const contentKey = (message: Pick<Message, 'role' | 'parts'>) =>
  `${message.role}\u0000${canonicalJson(message.parts)}`;

/**
 * Which of `inputs` the log already holds (a retried append), aligned with them: the stored message, or
 * undefined for a new one. A message with a caller-given id is recognized by its id alone: same role and
 * parts → already stored; other content → `MessageIdConflictError`. Without an id, content cannot tell a
 * retry from a message meant twice (the corpus has a user sending `/undo` twice in a row; an agent that
 * polls repeats its call word for word, call id included, when its provider numbers calls per
 * response), so only messages that could never be new are recognized, looking at the turn in progress
 * (at most `RETRY_LOOKBACK_MESSAGES` back, so the cost does not grow with the session):
 * - a tool result whose call (the newest call with its callId, not one made earlier in this append)
 *   already has a result with the same content: a call has one result;
 * - an assistant message with tool calls identical to the newest assistant message while none of those
 *   calls has a result yet: two open calls with one id would make their results ambiguous.
 * Content is role and parts; meta and usage are not compared (a retry may carry a fresh timestamp).
 */
export async function recognizeRetries(
  inputs: readonly MessageInput[],
  context: RetryContext,
): Promise<(Message | undefined)[]> {
  const recognized: (Message | undefined)[] = inputs.map(() => undefined);
  if (inputs.length === 0) return recognized;
  let newestAssistant: Message | undefined;
  let answeredSince = false;
  for (const message of context.turnNewestFirst()) {
    if (message.role === 'assistant') {
      newestAssistant = message;
      break;
    }
    if (message.role === 'tool') answeredSince = true;
  }
  const newestAssistantOpen =
    newestAssistant !== undefined && toolCallsOf(newestAssistant).length > 0 && !answeredSince;
  let newestAssistantKey: string | undefined;
  const calledHere = new Set<string>();
  let newTurn = false;
  const storedCopy = async (input: MessageInput, index: number): Promise<Message | undefined> => {
    if (input.id !== undefined) {
      if (!context.hasId(input.id)) return undefined;
      const stored =
        inTurn(context, (message) => message.id === input.id) ?? (await context.findById(input.id));
      if (stored !== undefined && contentKey(stored) !== contentKey(input)) {
        throw new MessageIdConflictError(context.sessionId, input.id, index, stored.seq);
      }
      return stored;
    }
    if (newTurn) return undefined;
    if (input.role === 'assistant') {
      if (!newestAssistantOpen || calledHere.size > 0) return undefined;
      if (!input.parts.some((part) => part.type === 'tool-call')) return undefined;
      newestAssistantKey ??= contentKey(newestAssistant as Message);
      return newestAssistantKey === contentKey(input) ? newestAssistant : undefined;
    }
    const result =
      input.role === 'tool' ? input.parts.find((part) => part.type === 'tool-result') : undefined;
    if (!result || result.callId === '' || calledHere.has(result.callId)) return undefined;
    // Written only when a result to the same call is found: nearly every arriving result has none, and
    // the key serializes the whole result.
    let wanted: string | undefined;
    // Back to the newest call with this id: a result after it with the same content answered it already.
    for (const message of context.turnNewestFirst()) {
      if (message.role === 'tool' && toolResultOf(message)?.callId === result.callId) {
        wanted ??= contentKey(input);
        if (contentKey(message) === wanted) return message;
        continue;
      }
      if (
        message.role === 'assistant' &&
        message.parts.some((part) => part.type === 'tool-call' && part.callId === result.callId)
      ) {
        return undefined;
      }
    }
    return undefined;
  };
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index] as MessageInput;
    const stored = await storedCopy(input, index);
    recognized[index] = stored;
    if (stored !== undefined) continue;
    // A new message: a new turn, or new calls, make what follows it new too.
    if (startsTurn({ role: input.role, meta: input.meta ?? {} })) newTurn = true;
    for (const part of input.parts) if (part.type === 'tool-call') calledHere.add(part.callId);
  }
  return recognized;
}

function inTurn(context: RetryContext, wanted: (message: Message) => boolean): Message | undefined {
  for (const message of context.turnNewestFirst()) if (wanted(message)) return message;
  return undefined;
}
