import type { ContextEvent } from '../core/events.ts';
import type { Usage } from '../core/message.ts';
import type { PrepareStats } from '../engine/prepare-call.ts';

/**
 * Why a turn ended. `answered`: the model replied without asking for a tool. `step_limit`: `maxSteps`
 * model calls were made (seed 000: "the turn ends with a step-limit reason"); the tool results of the
 * last step are in the session, so the next turn carries on from them. `aborted`: the person cancelled
 * the call in flight. `window_full`: the model stopped because input and answer filled the window
 * (Anthropic's `model_context_window_exceeded`); its partial answer is kept and ctxkit compacted, so the
 * next turn ("continue") has room.
 */
export type TurnStopReason = 'answered' | 'step_limit' | 'aborted' | 'window_full';

/** What the agent reports while a turn runs, in order; the chat prints them, tests read them. */
export type AgentEvent =
  | { type: 'step-start'; step: number; stats: PrepareStats }
  | { type: 'text-delta'; text: string }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'tool-call'; callId: string; name: string; args: string }
  | { type: 'tool-result'; callId: string; name: string; content: string; isError: boolean }
  /** The provider said the request did not fit: ctxkit did what the policy says and sends the call again. */
  | { type: 'overflow-recovered'; step: number; error: string }
  /** The provider's overflow named a window smaller than the one prepared for: it is used from now on. */
  | { type: 'window-learned'; contextWindow: number }
  | { type: 'step-end'; step: number; usage: Usage; stopReason: string }
  /** ctxkit's own events (compactions, offloads, summaries) raised during the turn. */
  | { type: 'context'; event: ContextEvent };

export interface TurnResult {
  stopReason: TurnStopReason;
  /** Model calls made (overflow retries not counted). */
  steps: number;
  /** The text of the last assistant message of the turn ('' when it had none). */
  text: string;
  /** Usage summed over the turn's calls. */
  usage: Usage;
}
