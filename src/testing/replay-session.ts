import type { Message } from '../core/message.ts';
import type { ContextManager, PrepareRequest, PrepareResult } from '../engine/context-manager.ts';
import { appendThenAfterTurn } from '../replay/append-then-after-turn.ts';

/** Tests import `asInput` from here, beside `replaySession`. */
export { asInput } from '../replay/append-then-after-turn.ts';

export interface ReplayStep {
  /** Index of the recorded assistant message this call produced. */
  index: number;
  result: PrepareResult;
}

/**
 * Replays a recorded session as the agent lived it: before every assistant message, append what came
 * since and prepare the call that would have produced it; `afterTurn` once each reply and its tool
 * results are appended (see `appendThenAfterTurn` in src/replay/), the last reply included.
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
