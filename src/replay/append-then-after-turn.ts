import type { Message, MessageInput } from '../core/message.ts';
import type { ContextManager } from '../engine/context-manager.ts';

/**
 * Appends what came between two model calls, calling `afterTurn` where an agent calls it: after the
 * previous call's reply and its tool results (the messages before the first user message), before the
 * user's next words. Not right after `prepare`: there the reply is not in the log yet, so afterTurn's
 * cheap layers find only what `prepare` just settled, and its triggers (pressure, turn and tool-call
 * counts, `turn_end` hooks) judge the request just sent instead of the turn that ended; it lags a reply
 * behind, and the session's last reply is never judged. The seeds run their after-turn work on the same
 * side of the reply (tiancai's tryAutoCompact after each TurnEnd, picoclaw's maybeSummarize after each
 * Turn completes). `hadCall`: false before the first call, when there is no reply yet.
 */
export async function appendThenAfterTurn(
  manager: ContextManager,
  sessionId: string,
  appended: readonly Message[],
  hadCall: boolean,
): Promise<void> {
  const userAt = appended.findIndex((message) => message.role === 'user');
  const replyEnd = !hadCall ? 0 : userAt === -1 ? appended.length : userAt;
  if (replyEnd > 0) {
    await manager.append(sessionId, appended.slice(0, replyEnd).map(asInput));
  }
  if (hadCall) {
    const after = await manager.afterTurn(sessionId);
    await after.done;
  }
  if (replyEnd < appended.length) {
    await manager.append(sessionId, appended.slice(replyEnd).map(asInput));
  }
}

/** A recorded message as it is appended again: without the id and seq the log gave it. */
export function asInput(message: Message): MessageInput {
  const { id: _id, seq: _seq, ...rest } = message;
  return rest;
}
