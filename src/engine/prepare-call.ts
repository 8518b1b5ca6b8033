import { historyBudget, isOverContextBudget, oversizedFixedRegion } from '../core/budget/context-budget.ts';
import { measurePressure, reachableThreshold } from '../core/budget/pressure-measure.ts';
import { ContextBudgetError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import { isAutoCompactHook } from '../core/policy/effective-hooks.ts';
import type { Hook } from '../core/policy/policy-schema.ts';
import {
  archiveEdit,
  clipModelDigest,
  extractiveToolDigest,
  planArchiveResults,
  toolDigestInput,
} from '../layers/archive-results.ts';
import { newestClearingCandidateSeq, planClearOldResults } from '../layers/clear-old-results.ts';
import { planTokenBudgetTrim } from '../layers/compress-text.ts';
import { planFitToBudget } from '../layers/fit-to-budget.ts';
import { planSnipOversized } from '../layers/snip-oversized.ts';
import { planTrimTurns } from '../layers/trim-turns.ts';
import { lastOldSeq, planTruncateOldResults } from '../layers/truncate-old-results.ts';
import { assembleRequest, continuationNote, reminderPlacementFor } from './assemble-request.ts';
import { applyReadySummary, scheduleTrimSummary } from './async-summary.ts';
import type { PrepareRequest } from './call-context.ts';
import { type Compactor, MAX_CONSECUTIVE_COMPACTIONS } from './compactor.ts';
import { type FinalGuardReport, guardFinalRequest } from './final-guard.ts';
import { offloadResults, offloadStaleArguments, TYPICAL_OFFLOAD_POINTER } from './offload-results.ts';
import { runEmergencySequence } from './recover-from-overflow.ts';
import type { RequestPointer } from './request-ledger.ts';
import type { TokenCategories } from './session-stats.ts';

export interface PrepareStats {
  model: string | undefined;
  contextWindow: number;
  maxOutputTokens: number;
  /** The request's input by category, adding up to `input` (see `TokenCategories`). */
  tokens: TokenCategories;
  /** Pressure in the policy's measure (budget.pressureOf; by default input / (contextWindow − maxOutputTokens)). */
  pressure: number;
  messages: number;
  /** Edits committed while preparing this call. */
  edits: number;
  /** The final guard's count of the request as sent (absent when `budget.finalGuard` is off). */
  guard?: FinalGuardReport;
}

export interface PrepareResult {
  system: string;
  messages: Message[];
  stats: PrepareStats;
  /**
   * Every pointer to offloaded content the request holds, in order (a summarized transcript first):
   * `manager.readOffloaded(sessionId, pointer.ref)` reads what it stands for.
   */
  pointers: RequestPointer[];
  events: ContextEvent[];
}

/**
 * One call's preparation, cheapest layer first, each only when the ones before it were not enough:
 * a finished background summary is applied; old results truncated (cowagent); results cleared past the
 * clearing threshold (deepagents); results archived past the cutoff (tiancai); turns trimmed past the limit
 * (cowagent); hooks and automatic compaction (digitorn's auto hook; every preset's trigger); then the proactive
 * check with the full formula (picoclaw), escalating until the request fits.
 */
export async function prepareCall(compactor: Compactor, _request: PrepareRequest): Promise<PrepareResult> {
  const { runtime, policy, call } = compactor;
  const editsBefore = runtime.editCount;
  for (const unavailable of call.indexesUnavailable ?? [])
    compactor.events.push({
      type: 'index-unavailable',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      ...unavailable,
    });
  const fixed = {
    contextWindow: call.contextWindow,
    maxOutputTokens: call.maxOutputTokens,
    system: call.systemTokens,
    toolDefinitions: call.toolTokens,
    summary: 0,
  };
  const blame = oversizedFixedRegion(fixed);
  if (blame) throw new ContextBudgetError(blame, fixed);

  await applyReadySummary(compactor, compactor.overBudget());

  await runCheapLayers(compactor);

  await runHooks(compactor, runtime.lastEntryStartsTurn() ? ['before_call', 'turn_start'] : ['before_call']);
  await runMessageLimit(compactor);
  if (policy.budget.proactiveCheck) reportBudgetCheck(compactor);
  await fitProactively(compactor);

  const assemble = () =>
    assembleRequest({
      system: call.system,
      history: runtime.historyMessages().messages,
      summary: runtime.view.summary,
      placement: policy.summarize.placement,
      prefix: policy.summarize.prefix,
      reminder: runtime.view.reminder,
      reminderPlacement: reminderPlacementFor(policy.summarize.placement),
    });
  // ctxkit's last check, whatever the policy estimates with: the request as sent must fit.
  const { assembled, tally, guard } = await guardFinalRequest(compactor, assemble, fitProactively);
  const regions = compactor.regions();
  // Stats say what is sent: counted, without the scale an overflow put on the estimate for the layers.
  const counted = compactor.countedRegions();
  const input = counted.system + counted.toolDefinitions + counted.summary + counted.history;
  const memory = compactor.memoryTokens();
  runtime.notePrepared(assembled.messages, regions);
  runtime.preparedHistoryTokens = counted.history;
  return {
    system: assembled.system,
    messages: assembled.messages,
    stats: {
      model: call.model,
      contextWindow: call.contextWindow,
      maxOutputTokens: call.maxOutputTokens,
      tokens: {
        system: counted.system - call.memoryIndexTokens,
        tools: counted.toolDefinitions,
        summary: counted.summary - memory,
        memory: memory + call.memoryIndexTokens,
        history: counted.history,
        input,
      },
      pressure: measurePressure(policy.budget.pressureOf, counted),
      messages: assembled.messages.length,
      edits: runtime.editCount - editsBefore,
      ...(guard ? { guard } : {}),
    },
    pointers: tally.pointers,
    events: compactor.events,
  };
}

/**
 * The layers that need no model: truncate old results (cowagent), clear (deepagents), archive (tiancai), trim turns
 * (cowagent). `afterTurn` runs them between calls; `prepare` runs them again only if something is left to
 * do (each is guarded so a second run costs nothing), for callers that never call `afterTurn`.
 */
export async function runCheapLayers(compactor: Compactor): Promise<void> {
  const { runtime, policy } = compactor;
  // Results only become "old" when a new turn starts, and each needs looking at once.
  if (
    policy.truncateOld.enabled &&
    runtime.turnStarts.length > 1 &&
    runtime.truncateCheckedTurns !== runtime.turnCount
  ) {
    const input = compactor.input();
    const edits = planTruncateOldResults(input, {
      maxChars: policy.truncateOld.maxChars,
      headChars: Math.floor(policy.truncateOld.maxChars * policy.truncateOld.headFraction),
      ...(runtime.truncateCheckedThroughSeq !== undefined
        ? { afterSeq: runtime.truncateCheckedThroughSeq }
        : {}),
    });
    runtime.truncateCheckedThroughSeq = lastOldSeq(input) ?? runtime.truncateCheckedThroughSeq;
    runtime.truncateCheckedTurns = runtime.turnCount;
    await compactor.apply(edits, 'truncate-old', 'old_result_limit');
  }

  if (
    policy.clearing.enabled &&
    compactor.pressure() >=
      reachableThreshold(policy.clearing.trigger, policy.budget.pressureOf, compactor.call)
  )
    await clearOldResults(compactor);

  if (policy.archive.strategy !== 'off' && runtime.visibleResults > policy.archive.toolCallCutoff) {
    const plan = planArchiveResults(compactor.input(), { toolCallCutoff: policy.archive.toolCallCutoff });
    if (plan) {
      const digest = await archiveDigest(compactor, plan.results, plan.calls);
      await compactor.apply([archiveEdit(plan, digest, compactor.input())], 'archive', 'tool_call_cutoff');
    }
  }

  if (policy.trim.enabled && runtime.turnStarts.length > policy.trim.maxTurns) {
    const plan = planTrimTurns(compactor.input(), {
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
  const { policy, call, runtime } = compactor;
  const minFreedTokens = Math.max(
    policy.clearing.minFreedTokens,
    Math.ceil(policy.clearing.minFreedFraction * Math.max(0, call.contextWindow - call.maxOutputTokens)),
  );
  // Results the model has not answered yet (a parallel batch since its last message) are always kept.
  const keepRecent = Math.max(policy.clearing.keepRecent, unansweredResults(runtime));
  // Offloading is lossless, so it does not wait for the history to grow: stale arguments go first.
  const argsEdits = policy.clearing.offload ? await offloadStaleArguments(compactor, keepRecent) : [];
  if (argsEdits.length > 0) await compactor.apply(argsEdits, 'clear', 'context_pressure');
  const blocked = runtime.clearBlocked;
  if (blocked && blocked.edits === runtime.editCount && runtime.historyTokens < blocked.untilHistory) return;
  const input = compactor.input();
  const edit = planClearOldResults(input, {
    keepRecent,
    fromSeq: runtime.clearSettledBelowSeq,
    minFreedTokens,
    stopAtMinimum: policy.clearing.stopAtMinimum,
    excludeTools: policy.clearing.excludeTools,
    // Offloading leaves a pointer, not the placeholder: estimate savings against what will really stay.
    placeholder: policy.clearing.offload ? TYPICAL_OFFLOAD_POINTER : policy.clearing.placeholder,
    clearInputs: policy.clearing.clearToolInputs,
    skip: runtime.offloadedSeqs,
  });
  // Every candidate is settled when the plan took all it could (no minimum to stop at) or found none
  // worth taking with no minimum to wait for: the next plan starts after them.
  const settled = edit ? !policy.clearing.stopAtMinimum || minFreedTokens === 0 : minFreedTokens === 0;
  const newest = settled ? newestClearingCandidateSeq(input, keepRecent) : undefined;
  if (!edit) {
    if (newest !== undefined)
      runtime.clearSettledBelowSeq = Math.max(runtime.clearSettledBelowSeq, newest + 1);
    runtime.clearBlocked = {
      edits: runtime.editCount,
      untilHistory: runtime.historyTokens + Math.max(1, Math.ceil(minFreedTokens / 4)),
    };
    return;
  }
  runtime.clearBlocked = undefined;
  const edits = policy.clearing.offload ? await offloadResults(compactor, edit.targets) : [edit];
  for (const offloaded of edits) if (offloaded.type === 'evict') runtime.offloadedSeqs.add(offloaded.target);
  const count = edits.length;
  const applied = await compactor.apply(edits, 'clear', 'context_pressure');
  if (applied && newest !== undefined) {
    runtime.clearSettledBelowSeq = Math.max(runtime.clearSettledBelowSeq, newest + 1);
  }
  if (applied) {
    compactor.events.push({
      type: 'tool-results-cleared',
      sessionId: runtime.id,
      at: compactor.deps.clock(),
      count,
      tokensFreed: edit.tokensBefore - edit.tokensAfter,
    });
  }
}

/** Tool results at the end of the view, after the assistant's last message: the model has not seen them. */
function unansweredResults(runtime: Compactor['runtime']): number {
  let count = 0;
  for (let index = runtime.view.entries.length - 1; index >= 0; index--) {
    const role = runtime.view.entries[index]?.message.role;
    if (role === 'tool') count++;
    else if (role === 'assistant') break;
  }
  return count;
}

/** Hooks for these moments, the auto-compact hook included (digitorn), each at most once per call. */
export async function runHooks(compactor: Compactor, moments: Hook['on'][]): Promise<void> {
  const { policy, runtime } = compactor;
  for (const hook of compactor.hooks()) {
    if (!moments.includes(hook.on)) continue;
    const now = compactor.deps.clock();
    if (!compactor.hookDue(hook, now)) continue;
    runtime.hookFiredAt.set(hook.id, now);
    await compactor.compactPrefix({
      strategy: hook.action.strategy ?? policy.summarize.strategy,
      reason: isAutoCompactHook(hook) ? 'context_pressure' : 'hook',
      layer: (hook.action.strategy ?? policy.summarize.strategy) === 'drop' ? 'drop' : 'summarize',
      ...(hook.action.keepRecent !== undefined ? { keepRecentMessages: hook.action.keepRecent } : {}),
      ...(hook.action.summaryMaxTokens !== undefined
        ? { summaryMaxTokens: hook.action.summaryMaxTokens }
        : {}),
    });
  }
}

/** tiancai / picoclaw: a message-count trigger beside (or instead of) the token one. */
async function runMessageLimit(compactor: Compactor): Promise<void> {
  const { summarize } = compactor.policy;
  if (!summarize.auto || summarize.maxMessages <= 0 || summarize.runOn === 'turn_end') return;
  if (compactor.runtime.messagesSinceCut() <= summarize.maxMessages) return;
  if (summarize.maxMessagesWhen === 'no-token-limit' && compactor.call.windowSource !== 'unbounded') return;
  await compactor.compactPrefix({
    strategy: summarize.strategy,
    reason: 'message_limit',
    layer: 'summarize',
  });
}

/**
 * The proactive path (picoclaw's isOverContextBudget before every call): while the full formula says
 * the request cannot fit, escalate: summarize (or drop) the older part; compress turns to text (cowagent);
 * keep only the newest turns that fit; snip oversized messages. Each step must shrink the history, and
 * the loop is capped, so it can never spin.
 */
export async function fitProactively(compactor: Compactor): Promise<void> {
  const { policy, runtime } = compactor;
  const steps: (() => Promise<boolean>)[] = [
    async () => {
      // Products without the check (cowagent, tiancai, deepagents, digitorn) go straight to the steps that need no model.
      if (!policy.budget.proactiveCheck) return false;
      if (policy.budget.proactiveAction === 'emergency')
        return runEmergencySequence(compactor, policy.emergency, 'token_budget');
      return compactor.compactPrefix({
        strategy: policy.summarize.strategy,
        reason: 'token_budget',
        layer: policy.summarize.strategy === 'drop' ? 'drop' : 'summarize',
      });
    },
    async () => {
      if (!policy.compressText.enabled) return false;
      const plan = planTokenBudgetTrim(compactor.input(), {
        belowTurns: policy.compressText.belowTurns,
        includeCurrentTurn: false,
      });
      if (!plan) return false;
      if (plan.kind === 'compress') return compactor.apply([plan.edit], 'compress-text', 'token_budget');
      // cowagent: "with discarded content written to memory and a context summary injected", as turn trimming.
      const shrunk = await compactor.dropThroughSeq(plan.throughSeq, plan.trimmed, {
        layer: 'trim',
        reason: 'token_budget',
        withReminder: false,
      });
      scheduleTrimSummary(compactor, plan.trimmed, plan.throughSeq);
      return shrunk;
    },
    async () => {
      const plan = planFitToBudget(compactor.input(), { budget: entryBudget(compactor) });
      if (!plan) return false;
      return compactor.dropThroughSeq(plan.throughSeq, plan.dropped, {
        layer: 'drop',
        reason: 'token_budget',
        withReminder: true,
      });
    },
    async () => {
      const budget = historyBudget({ ...compactor.regions() });
      // digitorn's oversized messages: first clip anything over its share of the budget (25 %), then halve.
      const fraction = policy.toolOutput.oversizedFraction > 0 ? policy.toolOutput.oversizedFraction : 0.5;
      let limit = Math.max(64, Math.floor(budget * fraction));
      let shrunk = false;
      while (compactor.overBudget() && limit >= 64) {
        const edits = planSnipOversized(compactor.input(), {
          maxTokensPerMessage: limit,
          marker: '[… snipped to fit the context window …]',
          layer: 'snip',
          reason: 'token_budget',
        });
        if (await compactor.apply(edits, 'snip', 'token_budget')) shrunk = true;
        limit = Math.floor(limit / 2);
      }
      return shrunk;
    },
    async () => {
      // Even snipped, the newest turn alone is over (one request, many tool calls): keep the newest of
      // its messages that fit, cutting where no call/result pair is split.
      const plan = planFitToBudget(compactor.input(), { budget: entryBudget(compactor), cutAt: 'message' });
      if (!plan) return false;
      return compactor.dropThroughSeq(plan.throughSeq, plan.dropped, {
        layer: 'drop',
        reason: 'token_budget',
        withReminder: true,
      });
    },
  ];
  let rounds = 0;
  for (const step of steps) {
    if (!compactor.overBudget()) return;
    if (rounds++ >= MAX_CONSECUTIVE_COMPACTIONS) break;
    await step();
  }
  if (compactor.overBudget() && (runtime.view.summary || runtime.view.reminder !== undefined)) {
    await compactor.resetTo(runtime.view.cut?.throughSeq ?? -1, false, 'token_budget');
  }
  // The policy's own token budget (cowagent) is a target; only a request over the window cannot be sent.
  const regions = compactor.regions();
  if (isOverContextBudget(regions)) throw new ContextBudgetError('history', regions);
}

/** The proactive check, observable on every call (picoclaw): the regions it adds up and whether they are over. */
function reportBudgetCheck(compactor: Compactor): void {
  const { contextWindow, maxOutputTokens, system, toolDefinitions, summary, history } = compactor.regions();
  compactor.events.push({
    type: 'budget-checked',
    sessionId: compactor.runtime.id,
    at: compactor.deps.clock(),
    contextWindow,
    maxOutputTokens,
    system,
    toolDefinitions,
    summary,
    history,
    over: compactor.overBudget(),
  });
}

/**
 * Tokens the view's entries may take: the history budget less what the history estimate adds to them
 * (stand-ins for calls still open, a continuation note, what reported usage says our count misses),
 * divided by the scale a reported overflow left.
 */
export function entryBudget(compactor: Compactor): number {
  const { runtime, policy } = compactor;
  // A cut may leave the history starting with the assistant: room for the continuation note is kept.
  const note = runtime.tokensOf(continuationNote(0));
  // Usage anchoring the estimate above our own count is honoured: planners count entries our way.
  const added =
    Math.max(
      runtime.estimatedHistoryTokens(false),
      runtime.estimatedHistoryTokens(policy.tokens.anchorOnUsage),
    ) - runtime.historyTokens;
  const regions = compactor.regions();
  // An absolute budget below the window (cowagent's agent_max_context_tokens) caps the history as well.
  const underCap = compactor.tokenBudget() - regions.system - regions.toolDefinitions - regions.summary;
  const available = Math.min(historyBudget(regions), underCap) - note;
  return Math.max(0, Math.floor(available / runtime.overflowScale) - added);
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
