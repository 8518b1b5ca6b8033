import type { ToolResultHiddenReason } from '../core/events.ts';
import type { Message } from '../core/message.ts';

/**
 * Why the view left out `message`, a tool result the pairing found no open call for: looking back
 * through what the runtime holds of the log for its call.
 */
export function hiddenResultOf(
  log: readonly Message[],
  message: Message,
): { callId: string; reason: ToolResultHiddenReason } | undefined {
  const result = message.parts.find((part) => part.type === 'tool-result');
  if (result?.type !== 'tool-result') return undefined;
  const { callId } = result;
  let answered = false;
  for (let index = log.length - 1; index >= 0; index--) {
    const earlier = log[index];
    if (!earlier || earlier.seq >= message.seq) continue;
    for (const part of earlier.parts) {
      if (part.type === 'tool-result' && part.callId === callId) answered = true;
      if (part.type === 'tool-call' && part.callId === callId)
        return { callId, reason: answered ? 'already-answered' : 'call-closed' };
    }
  }
  return { callId, reason: 'no-call' };
}
