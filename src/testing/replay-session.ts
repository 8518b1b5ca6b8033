import type { Message, MessageInput } from '../core/message.ts';
import type { ContextManager, PrepareRequest, PrepareResult } from '../engine/context-manager.ts';

export interface ReplayStep {
  /** Index of the recorded assistant message this call produced. */
  index: number;
  result: PrepareResult;
}

/**
 * Replays a recorded session as the agent lived it: before every assistant message, append what came
 * since and prepare the call that would have produced it; `afterTurn` once each reply and its tool
 * results are appended (see `appendThenAfterTurn`), the last reply included.
 */
export async function replaySession(
  manager: ContextManager,
  sessionId: string,
  messages: readonly Message[],
  request: PrepareRequest,
  onStep?: (step: ReplayStep) => void | Promise<void>,
): Promise<ReplayStep[]> {
  const steps: ReplayStep[] = [];
  let from = 0;
  for (let index = 0; index < messages.length; index++) {
    if (messages[index]?.role !== 'assistant' || index === 0) continue;
    await appendThenAfterTurn(manager, sessionId, messages.slice(from, index), steps.length > 0);
    from = index;
    const result = await manager.prepare(sessionId, request);
    const step = { index, result };
    steps.push(step);
    await onStep?.(step);
  }
  await appendThenAfterTurn(manager, sessionId, messages.slice(from), steps.length > 0);
  return steps;
}

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

export function asInput(message: Message): MessageInput {
  const { id: _id, seq: _seq, ...rest } = message;
  return rest;
}
