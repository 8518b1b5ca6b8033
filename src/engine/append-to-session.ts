import type { ContextEvent } from '../core/events.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { appendMessages } from './append-messages.ts';
import type { CallSetup } from './call-setup.ts';
import { recognizeRetries, turnNewestFirst } from './recognize-retries.ts';
import type { SessionResidency } from './session-residency.ts';
import type { SessionRuntime } from './session-runtime.ts';

/**
 * `append`'s path: messages already in the log (a retried append) are recognized and returned as stored
 * (see `recognizeRetries`), the rest appended. The result has one message per input, in order.
 */
export async function appendToSession(
  setup: CallSetup,
  residency: SessionResidency,
  runtime: SessionRuntime,
  messages: readonly MessageInput[],
  events: ContextEvent[],
): Promise<Message[]> {
  const recognized = await recognizeRetries(messages, {
    sessionId: runtime.id,
    turnNewestFirst: () => turnNewestFirst(runtime),
    hasId: (id) => runtime.hasId(id),
    findById: async (id) => (await residency.whole(runtime)).log.find((message) => message.id === id),
  });
  const fresh = messages.filter((_message, index) => recognized[index] === undefined);
  const appended = await appendMessages(setup.appendContext(runtime), fresh, { events });
  let next = 0;
  return messages.map((_message, index) => recognized[index] ?? (appended[next++] as Message));
}
