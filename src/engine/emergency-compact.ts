import type { EditReason } from '../core/edit.ts';
import type { EmergencyStep } from '../core/policy/policy-schema.ts';
import type { Compactor } from './compactor.ts';
import { runEmergencySequence } from './recover-from-overflow.ts';

/**
 * What an on-demand emergency compaction records as the reason of its edits: it was asked for, not forced
 * by the provider. Its layer is `emergency`, as the overflow path's; the `emergency-compacted` event tells
 * the two apart in the trace.
 */
export const EMERGENCY_ON_DEMAND_REASON: EditReason = 'manual';

/**
 * When the policy's own steps free nothing (no steps, as deepagents has; or `drop-to-fit` on a request that
 * fits), digitorn's: halve keep_recent (minimum `emergency.minKeepRecent`) and drop the rest with a
 * reminder. The caller asked for context to be freed; this frees it whenever there is more than that.
 */
export const EMERGENCY_ON_DEMAND_FALLBACK: EmergencyStep = 'truncate';

/**
 * Emergency compaction now, from outside the agent loop (digitorn: "the daemon's session-compact endpoint
 * triggers emergency_compact from outside the runtime … when a user clicks a 'Free up context' button").
 * Runs the policy's emergency sequence, as the reactive path does, without counting an overflow or
 * touching the retry state. No model is called: the compactor must come with a summarizer that uses none
 * (the steps that summarize, cowagent's memory note and tiancai's compact, then summarize extractively). Ends with
 * an `emergency-compacted` event; answers whether the history shrank.
 */
export async function emergencyCompact(compactor: Compactor): Promise<boolean> {
  const { runtime, policy } = compactor;
  const tokensBefore = runtime.historyTokens;
  const messagesBefore = runtime.view.entries.length;
  const steps: EmergencyStep[] = [...policy.emergency.sequence];
  let compacted =
    steps.length > 0 && (await runEmergencySequence(compactor, policy.emergency, EMERGENCY_ON_DEMAND_REASON));
  if (!compacted && !steps.includes(EMERGENCY_ON_DEMAND_FALLBACK)) {
    steps.push(EMERGENCY_ON_DEMAND_FALLBACK);
    compacted = await runEmergencySequence(
      compactor,
      { ...policy.emergency, sequence: [EMERGENCY_ON_DEMAND_FALLBACK] },
      EMERGENCY_ON_DEMAND_REASON,
    );
  }
  compactor.events.push({
    type: 'emergency-compacted',
    sessionId: runtime.id,
    at: compactor.deps.clock(),
    steps,
    compacted,
    tokensBefore,
    tokensAfter: runtime.historyTokens,
    messagesBefore,
    messagesAfter: runtime.view.entries.length,
  });
  return compacted;
}
