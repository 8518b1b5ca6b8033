import type { Message } from '../../src/core/message.ts';

/**
 * For each call of a recorded session, the tokens every working system must re-send on it: the user's
 * requests logged before the previous call, and the assistant message whose tool calls this call's
 * results answer (absent when the call follows a user message).
 */
export function workingCarry(messages: readonly Message[], count: (text: string) => number): number[] {
  const tokensOf = (message: Message): number =>
    message.parts.reduce(
      (sum, part) =>
        sum + (part.type === 'text' ? count(part.text) : part.type === 'tool-call' ? count(part.args) : 0),
      0,
    );
  const carry: number[] = [];
  let requestsBeforePrevious = 0;
  let requestsSoFar = 0;
  let previousCall: Message | undefined;
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && index > 0) {
      const answersPrevious = messages[index - 1]?.role === 'tool' && previousCall !== undefined;
      carry.push(requestsBeforePrevious + (answersPrevious && previousCall ? tokensOf(previousCall) : 0));
      requestsBeforePrevious = requestsSoFar;
    }
    if (message.role === 'user') requestsSoFar += tokensOf(message);
    if (message.role === 'assistant') previousCall = message;
  });
  return carry;
}
