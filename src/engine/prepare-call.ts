import { oversizedFixedRegion } from '../core/budget/context-budget.ts';
import { measurePressure } from '../core/budget/pressure-measure.ts';
import { ContextBudgetError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import { assembleRequest, reminderPlacementFor } from './assemble-request.ts';
import { applyReadySummary } from './async-summary.ts';
import type { PrepareRequest } from './call-context.ts';
import { runCheapLayers } from './cheap-layers.ts';
import type { Compactor } from './compactor.ts';
import { type FinalGuardReport, guardFinalRequest } from './final-guard.ts';
import { fitProactively, runTriggeredCompactions } from './fit-proactively.ts';
import { guardRetry } from './guard-retry.ts';
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
 * check with the full formula (picoclaw), escalating until the request fits. Whether each runs, and how much
 * it keeps, is decided in core/compaction/decide-compaction.ts.
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

  await applyReadySummary(compactor, compactor.budget.overBudget());

  await runCheapLayers(compactor);

  await runTriggeredCompactions(
    compactor,
    runtime.lastEntryStartsTurn() ? ['before_call', 'turn_start'] : ['before_call'],
  );
  if (policy.budget.proactiveCheck) reportBudgetCheck(compactor);
  await fitProactively(compactor);
  if (compactor.deps.sharedStore && runtime.progress.summaries.pending) {
    // A process sharing the store may not hold the session at its next call: what this call started in
    // the background (a trim's summary) is finished and applied now, not left in this process's memory
    // (so in a fleet a trim's summary shows inside the turn that trimmed, not only from the next one).
    await applyReadySummary(compactor, true, 'now');
    await fitProactively(compactor);
  }

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
  // ctxkit's last check, whatever the policy estimates with: the request as sent must fit, and a retry
  // after an overflow must be smaller than what overflowed.
  const { assembled, tally, guard } = await guardRetry(
    compactor,
    assemble,
    fitProactively,
    await guardFinalRequest(compactor, assemble, fitProactively),
  );
  const regions = compactor.budget.regions();
  // Stats say what is sent: counted, without the scale an overflow put on the estimate for the layers.
  const counted = compactor.budget.countedRegions();
  const input = counted.system + counted.toolDefinitions + counted.summary + counted.history;
  const memory = compactor.budget.memoryTokens();
  runtime.notePrepared(assembled.messages, regions);
  runtime.progress.overflow.notePrepared(
    { request: assembled, tools: call.tools, nextSeq: runtime.nextSeq },
    counted.history,
  );
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

/** The proactive check, observable on every call (picoclaw): the regions it adds up and whether they are over. */
function reportBudgetCheck(compactor: Compactor): void {
  const { contextWindow, maxOutputTokens, system, toolDefinitions, summary, history } =
    compactor.budget.regions();
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
    over: compactor.budget.overBudget(),
  });
}
