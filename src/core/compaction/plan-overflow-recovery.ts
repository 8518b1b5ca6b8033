import type { EmergencyPolicy } from '../policy/policy-schema.ts';

/**
 * What to do about an overflow the provider reported anyway, at the n-th in a row: the reactive half of
 * ctxkit's compaction decisions (decide-compaction.ts holds the rest). Pure: it reads the policy's
 * emergency settings and a few figures of the overflow, and returns a plan the engine carries out.
 */

/** Windows adopted from overflow errors in a row (a provider naming ever smaller limits is not followed forever). */
export const MAX_WINDOW_ADOPTIONS = 2;

/** What an overflow the provider reported tells, for the plan of what to do about it. */
export interface OverflowSituation {
  /**
   * Overflows reported in a row since the last reported usage, this one included, not counting those
   * answered by adopting the window the error named.
   */
  attempt: number;
  /** The limit the error named ("maximum context length is 8192 tokens"), when it named one. */
  namedLimit: number | undefined;
  /** The window the request that overflowed was prepared for. */
  preparedWindow: number;
  /** Windows already adopted from errors since the last reported usage. */
  windowsAdopted: number;
}

/** What to do about an overflow the provider reported. */
export type OverflowPlan =
  | {
      /**
       * The error named a limit below the window the request was prepared for (a server loaded with less
       * than its profile says): that limit is the session's window for this model from now on, and the
       * retry is prepared for it as any request is, without the emergency path.
       */
      kind: 'adopt-window';
      contextWindow: number;
    }
  | {
      kind: 'recover';
      /** Run the policy's emergency sequence. */
      runSequence: boolean;
      /** Reset the context: not at all, only when the sequence changed nothing, or now. */
      reset: 'never' | 'if-unchanged' | 'now';
      /** What a reset leaves: the last turn and the summary, or nothing (cowagent). */
      resetScope: EmergencyPolicy['resetScope'];
      /** Whether a retry may be asked for (only when the retried request would differ, the caller checks). */
      mayRetry: boolean;
    };

/**
 * The one overflow protocol, for every way ctxkit is used (library, chat, serve, the middlewares): a
 * named limit below the prepared window is adopted (at most MAX_WINDOW_ADOPTIONS in a row); otherwise
 * the first overflows (emergency.maxRetries) run the emergency sequence and are retried, the next one
 * resets when the policy allows and is retried (unless the reset cleared everything: then nothing is
 * left to resend), and after that the provider's error stands.
 */
export function planOverflowRecovery(emergency: EmergencyPolicy, situation: OverflowSituation): OverflowPlan {
  const { attempt, namedLimit, preparedWindow, windowsAdopted } = situation;
  if (
    namedLimit !== undefined &&
    namedLimit > 0 &&
    namedLimit < preparedWindow &&
    windowsAdopted < MAX_WINDOW_ADOPTIONS
  )
    return { kind: 'adopt-window', contextWindow: namedLimit };
  const retries = emergency.enabled ? emergency.maxRetries : 0;
  const mayReset = emergency.enabled && emergency.resetWhenStillOver && attempt <= retries + 1;
  return {
    kind: 'recover',
    runSequence: attempt <= retries,
    reset: !mayReset ? 'never' : attempt > retries ? 'now' : 'if-unchanged',
    resetScope: emergency.resetScope,
    mayRetry: attempt <= retries || mayReset,
  };
}
