import {
  cheapLayerDue,
  clearingKeepRecentTokens,
  clearingMinFreedTokens,
} from '../core/compaction/decide-compaction.ts';
import { oversizedMessageLimit } from '../core/compaction/oversized-limit.ts';
import type { Message } from '../core/message.ts';
import type { ReadonlyView } from '../core/view/project-view.ts';
import {
  archiveEdit,
  clipModelDigest,
  extractiveToolDigest,
  planArchiveResults,
  toolDigestInput,
} from '../layers/archive-results.ts';
import { newestClearingCandidateSeq, planClearOldResults } from '../layers/clear-old-results.ts';
import { planSnipOversized } from '../layers/snip-oversized.ts';
import { planTrimTurns } from '../layers/trim-turns.ts';
import { lastOldSeq, planTruncateOldResults } from '../layers/truncate-old-results.ts';
import { scheduleTrimSummary } from './async-summary.ts';
import type { Compactor } from './compactor.ts';
import { offloadResults, offloadStaleArguments, typicalOffloadPointer } from './offload-results.ts';

/**
 * The layers that need no model: clip single oversized messages (digitorn), truncate old results (cowagent),
 * clear (deepagents), archive (tiancai), trim turns (cowagent), each when its trigger in decide-compaction.ts
 * (oversized-limit.ts) says so. `afterTurn` runs them between calls;
 * `prepare` runs them again only if something is left to do (each is guarded so a second run costs
 * nothing), for callers that never call `afterTurn`.
 */
export async function runCheapLayers(compactor: Compactor): Promise<void> {
  const { runtime, policy, budget } = compactor;
  const oversized = oversizedMessageLimit(policy, budget.window());
  if (oversized !== undefined && runtime.entryTokens.some((tokens) => tokens > oversized)) {
    const edits = planSnipOversized(budget.input(), {
      maxTokensPerMessage: oversized,
      marker: `[… message truncated: over ${Math.round(policy.toolOutput.oversizedFraction * 100)} % of the context budget …]`,
      layer: 'snip',
      reason: 'tool_output_limit',
    });
    await compactor.apply(edits, 'snip', 'tool_output_limit');
  }

  const truncated = runtime.progress.truncateOld;
  if (
    cheapLayerDue.truncateOld(policy, runtime.turnStarts.length, runtime.turnCount, truncated.checkedTurns)
  ) {
    const input = budget.input();
    const edits = planTruncateOldResults(input, {
      maxChars: policy.truncateOld.maxChars,
      headChars: Math.floor(policy.truncateOld.maxChars * policy.truncateOld.headFraction),
      ...(truncated.checkedThroughSeq !== undefined ? { afterSeq: truncated.checkedThroughSeq } : {}),
    });
    truncated.noteChecked(runtime.turnCount, lastOldSeq(input));
    await compactor.apply(edits, 'truncate-old', 'old_result_limit');
  }

  if (cheapLayerDue.clearing(policy, budget.window(), budget.pressure())) await clearOldResults(compactor);

  if (cheapLayerDue.archive(policy, runtime.visibleResults)) {
    const plan = planArchiveResults(budget.input(), { toolCallCutoff: policy.archive.toolCallCutoff });
    if (plan) {
      const digest = await archiveDigest(compactor, plan.results, plan.calls);
      await compactor.apply([archiveEdit(plan, digest, budget.input())], 'archive', 'tool_call_cutoff');
    }
  }

  if (cheapLayerDue.trim(policy, runtime.turnStarts.length)) {
    const plan = planTrimTurns(budget.input(), {
      maxTurns: policy.trim.maxTurns,
      fraction: policy.trim.fraction,
    });
    if (plan) {
      await compactor.dropThroughSeq(plan.throughSeq, plan.trimmed, {
        layer: 'trim',
        reason: 'turn_limit',
        withReminder: false,
      });
      scheduleTrimSummary(compactor, plan.trimmed, plan.throughSeq);
    }
  }
}

/**
 * Clears old results when that frees enough. A clearing that could not free enough is not planned
 * again until the history has grown by a quarter of the minimum, so a session sitting just above the
 * threshold does not pay a scan of every result on every call.
 */
async function clearOldResults(compactor: Compactor): Promise<void> {
  const { policy, runtime, budget } = compactor;
  const progress = runtime.progress.clearing;
  // "Too small to free anything" was measured with the counter of its time.
  progress.measureWith(runtime.counter);
  const offloadedSeqs = progress.readOffloaded(() =>
    runtime.edits.flatMap((edit) => (edit.type === 'evict' && edit.layer === 'clear' ? [edit.target] : [])),
  );
  const minFreedTokens = clearingMinFreedTokens(policy, budget.window());
  // Results the model has not answered yet (a parallel batch since its last message) are always kept.
  const keepRecent = Math.max(policy.clearing.keepRecent, unansweredResults(runtime.view));
  // Offloading is lossless, so it does not wait for the history to grow: the long arguments of calls older
  // than the `keepRecent` newest results go first, inside the working set too. Measured (docs/how-it-works.md, the
  // working set): keeping the working set's arguments instead leaves coverage at 0.81 / 0.96 (32k / 128k)
  // rather than 0.85 / 0.99, since what the agent wrote crowds out what it read.
  const argsEdits =
    policy.clearing.offload && policy.clearing.offloadArguments
      ? await offloadStaleArguments({ ...compactor.deps, progress }, keepRecent)
      : [];
  if (argsEdits.length > 0) await compactor.apply(argsEdits, 'clear', 'context_pressure');
  const blocked = progress.blocked;
  if (blocked && blocked.edits === runtime.editCount && runtime.historyTokens < blocked.untilHistory) return;
  const input = budget.input();
  const keepRecentTokens = clearingKeepRecentTokens(policy, budget.window());
  const edit = planClearOldResults(input, {
    keepRecent,
    keepRecentTokens,
    fromSeq: progress.settledBelowSeq,
    minFreedTokens,
    stopAtMinimum: policy.clearing.stopAtMinimum,
    excludeTools: policy.clearing.excludeTools,
    // Offloading leaves a pointer, not the placeholder: estimate savings against what will really stay.
    placeholder: policy.clearing.offload
      ? typicalOffloadPointer(policy.clearing.pointerKeysMaxChars)
      : policy.clearing.placeholder,
    clearInputs: policy.clearing.clearToolInputs,
    skip: offloadedSeqs,
  });
  // Every candidate is settled when the plan took all it could (no minimum to stop at) or found none
  // worth taking with no minimum to wait for: the next plan starts after them.
  const settled = edit ? !policy.clearing.stopAtMinimum || minFreedTokens === 0 : minFreedTokens === 0;
  const newest = settled
    ? newestClearingCandidateSeq(input, { results: keepRecent, tokens: keepRecentTokens })
    : undefined;
  if (!edit) {
    if (newest !== undefined) progress.settleBelow(newest + 1);
    progress.block(runtime.editCount, runtime.historyTokens + Math.max(1, Math.ceil(minFreedTokens / 4)));
    return;
  }
  progress.unblock();
  const edits = policy.clearing.offload
    ? await offloadResults(
        { ...compactor.deps, pointerKeysMaxChars: policy.clearing.pointerKeysMaxChars },
        edit.targets,
      )
    : [edit];
  for (const offloaded of edits) if (offloaded.type === 'evict') progress.noteOffloaded(offloaded.target);
  const applied = await compactor.apply(edits, 'clear', 'context_pressure');
  if (applied && newest !== undefined) progress.settleBelow(newest + 1);
  if (applied) {
    compactor.events.push({
      type: 'tool-results-cleared',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      count: edits.length,
      tokensFreed: edit.tokensBefore - edit.tokensAfter,
    });
  }
}

/** Tool results at the end of the view, after the assistant's last message: the model has not seen them. */
function unansweredResults(view: ReadonlyView): number {
  let count = 0;
  for (let index = view.entries.length - 1; index >= 0; index--) {
    const role = view.entries[index]?.message.role;
    if (role === 'tool') count++;
    else if (role === 'assistant') break;
  }
  return count;
}

async function archiveDigest(
  compactor: Compactor,
  results: Message[],
  calls: Parameters<typeof extractiveToolDigest>[1],
): Promise<string> {
  const { archive } = compactor.policy;
  const extractive = extractiveToolDigest(results, calls, { maxChars: archive.extractiveMaxChars });
  if (archive.strategy !== 'model' || !compactor.deps.summarizer.usesModel) return extractive;
  try {
    const last = results.at(-1);
    // tiancai: the model reads the archived results clipped to inputMaxChars; its digest is clipped to
    // outputMaxChars runes.
    const input: Message = {
      id: `archive-input-${last?.id ?? 'none'}`,
      seq: last?.seq ?? -1,
      role: 'user',
      parts: [{ type: 'text', text: toolDigestInput(results, calls, { maxChars: archive.inputMaxChars }) }],
      meta: {},
    };
    const summary = await compactor.summarize([input], last?.seq ?? -1, {
      maxTokens: Math.max(64, Math.floor(archive.outputMaxChars / 4)),
    });
    return clipModelDigest(summary.text, archive.outputMaxChars);
  } catch {
    return extractive;
  }
}
