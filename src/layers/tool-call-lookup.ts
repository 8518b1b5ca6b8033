import type { Message, ToolCallPart, ToolResultPart } from '../core/message.ts';

export interface LocatedCall {
  part: ToolCallPart;
  /** Index of the message holding the call. */
  messageIndex: number;
}

/**
 * For each message index holding a tool result, the call it answers: the nearest earlier call with its
 * id still unanswered (ids are reused in real sessions, so a plain id map would pair wrongly).
 */
export function callsByResultIndex(messages: readonly Message[]): Map<number, LocatedCall> {
  const pending = new Map<string, LocatedCall[]>();
  const calls = new Map<number, LocatedCall>();
  messages.forEach((message, messageIndex) => {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        const located = { part, messageIndex };
        const stack = pending.get(part.callId);
        if (stack) stack.push(located);
        else pending.set(part.callId, [located]);
      } else if (part.type === 'tool-result') {
        const call = pending.get(part.callId)?.pop();
        if (call) calls.set(messageIndex, call);
      }
    }
  });
  return calls;
}

/**
 * The call the result at `resultIndex` answers, found by walking back from it: the pairing
 * `callsByResultIndex` makes (newest unanswered call with the id), without scanning the whole history.
 * For a layer that looks up only a few results of a long session.
 */
export function callAnsweredAt(messages: readonly Message[], resultIndex: number): LocatedCall | undefined {
  const result = messages[resultIndex]?.parts.find((part) => part.type === 'tool-result');
  if (result?.type !== 'tool-result') return undefined;
  // Results met on the way back with the same id each took one of the calls before them.
  let answered = 0;
  for (let messageIndex = resultIndex - 1; messageIndex >= 0; messageIndex--) {
    const parts = messages[messageIndex]?.parts ?? [];
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const part = parts[partIndex];
      if (part?.type === 'tool-result' && part.callId === result.callId) answered++;
      else if (part?.type === 'tool-call' && part.callId === result.callId) {
        if (answered === 0) return { part, messageIndex };
        answered--;
      }
    }
  }
  return undefined;
}

/** The tool's name: the result's own, else its call's (some formats leave the result's empty). */
export function toolNameOf(result: ToolResultPart, call: ToolCallPart | undefined): string {
  return result.name || call?.name || '';
}
