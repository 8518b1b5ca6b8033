/**
 * Which ctxkit session a LangChain run belongs to. The middleware and the read-back tool resolve it the
 * same way, so the tool reads the session the middleware wrote.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { InvalidSessionIdError } from '../../core/errors/index.ts';
import { contentId } from '../../core/stable-id.ts';
import { fromLangChainMessage } from './langchain-messages.ts';

/** What a session id can be computed from: the graph state, LangGraph's `configurable` and the run's context. */
export interface LangChainSessionScope {
  state?: { messages?: readonly BaseMessage[] } | undefined;
  configurable?: Record<string, unknown> | undefined;
  context?: unknown;
}

/**
 * A fixed id, or a function of the run (return `undefined` to fall back to the default). The default is
 * the run's `thread_id` (what a checkpointer keys the conversation by), else an id derived from the
 * conversation's first message (`langchain-<hash>`), so runs without a thread that start differently
 * keep apart.
 */
export type LangChainSessionId = string | ((scope: LangChainSessionScope) => string | undefined);

/** Prefix of the session id derived from a conversation's first message (runs without a `thread_id`). */
export const DERIVED_SESSION_PREFIX = 'langchain-';
/** The session of a run that has neither a `thread_id` nor any message. */
export const FALLBACK_SESSION_ID = 'langchain';

export function resolveSessionId(
  option: LangChainSessionId | undefined,
  scope: LangChainSessionScope,
): string {
  const chosen = typeof option === 'function' ? option(scope) : option;
  if (chosen !== undefined) {
    if (typeof chosen !== 'string' || chosen === '')
      throw new InvalidSessionIdError(chosen, 'the sessionId option must give a non-empty string');
    return chosen;
  }
  const thread = scope.configurable?.thread_id;
  if ((typeof thread === 'string' && thread !== '') || typeof thread === 'number') return String(thread);
  const first = scope.state?.messages?.[0];
  if (!first) return FALLBACK_SESSION_ID;
  return `${DERIVED_SESSION_PREFIX}${contentId(fromLangChainMessage(first)).slice(2)}`;
}
