import type { BudgetRegions } from '../core/budget/context-budget.ts';
import {
  measurePressure,
  reachableThreshold,
  thresholdInputTokens,
} from '../core/budget/pressure-measure.ts';
import type { Role } from '../core/message.ts';
import { autoCompactThreshold } from '../core/policy/effective-hooks.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { CallContext } from './call-context.ts';
import type { SessionRuntime } from './session-runtime.ts';

/**
 * The request's input tokens by category; `system + tools + summary + memory + history = input`.
 * `memory` is what memory and snapshot notes take as messages or blocks of the request (digitorn's resume
 * note, with the memory snapshot and the tool inventory), 0 when there are none; the summary region
 * without them is `summary`; the memory index (MEMORY.md, deepagents) is `memory` too, not `system`, though
 * it is sent inside the system prompt.
 */
export interface TokenCategories {
  system: number;
  tools: number;
  summary: number;
  memory: number;
  history: number;
  input: number;
}

/** What `/context` shows (cowagent and deepagents): counts, characters, tokens by category, and what fires when. */
export interface SessionStats {
  sessionId: string;
  /** Messages in the log (the record) and in the view (what the model sees). */
  messages: { log: number; view: number };
  /** Role distribution of the view. */
  roles: Record<Role, number>;
  /** Characters of text, reasoning, tool arguments and results in the view. */
  chars: number;
  turns: number;
  edits: number;
  /** See {@link TokenCategories}: the categories add up to `input`. */
  tokens: TokenCategories;
  contextWindow: number;
  maxOutputTokens: number;
  /** In the policy's measure (budget.pressureOf): what its thresholds are fractions of. */
  pressure: number;
  /** Where clearing and summarization fire, as pressure and as input tokens (deepagents's /context). */
  thresholds: {
    clearing: { pressure: number; tokens: number } | undefined;
    summarize: { pressure: number; tokens: number } | undefined;
  };
  summary: { throughSeq: number; tokens: number; producer: string } | undefined;
}

/**
 * `regions` are the budget regions as prepare counts them, without the scale a reported overflow puts on
 * the history estimate (SessionBudget.countedRegions, as `prepare`'s stats): the summary with its prefix
 * and framing and any reminder, the history with stand-ins, the continuation note and what reported
 * usage says our count misses. `/context` shows what the next request costs. `regions.memory` is the part of the summary region
 * that memory and snapshot notes take (Compactor.memoryTokens).
 */
export function sessionStats(
  runtime: SessionRuntime,
  call: CallContext,
  policy: Policy,
  regions: Pick<BudgetRegions, 'summary' | 'history'> & { memory: number },
): SessionStats {
  const roles: Record<Role, number> = { user: 0, assistant: 0, tool: 0 };
  let chars = 0;
  for (const { message } of runtime.view.entries) {
    roles[message.role]++;
    for (const part of message.parts) {
      if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
      else if (part.type === 'tool-call') chars += part.args.length;
      else if (part.type === 'tool-result') chars += part.content.length;
    }
  }
  const summary = runtime.view.summary;
  const { summary: summaryTokens } = regions;
  const { history } = regions;
  const input = call.systemTokens + call.toolTokens + summaryTokens + history;
  const counted: BudgetRegions = {
    contextWindow: call.contextWindow,
    maxOutputTokens: call.maxOutputTokens,
    system: call.systemTokens,
    toolDefinitions: call.toolTokens,
    summary: summaryTokens,
    history,
  };
  const measure = policy.budget.pressureOf;
  // Where each fires in the policy's own measure, and the input that takes with today's fixed regions.
  const threshold = (pressure: number) => ({
    pressure,
    tokens: thresholdInputTokens(pressure, measure, counted),
  });
  return {
    sessionId: runtime.id,
    messages: { log: runtime.nextSeq, view: runtime.view.entries.length },
    roles,
    chars,
    turns: runtime.turnStarts.length,
    edits: runtime.editCount,
    tokens: {
      system: call.systemTokens - call.memoryIndexTokens,
      tools: call.toolTokens,
      summary: summaryTokens - regions.memory,
      memory: regions.memory + call.memoryIndexTokens,
      history,
      input,
    },
    contextWindow: call.contextWindow,
    maxOutputTokens: call.maxOutputTokens,
    pressure: measurePressure(measure, counted),
    thresholds: {
      clearing: policy.clearing.enabled
        ? threshold(reachableThreshold(policy.clearing.trigger, measure, counted))
        : undefined,
      summarize: policy.summarize.auto
        ? threshold(
            autoCompactThreshold(policy, {
              contextWindow: call.contextWindow,
              maxOutputTokens: call.maxOutputTokens,
              known: call.windowSource !== 'max-context-tokens' && call.windowSource !== 'unbounded',
            }),
          )
        : undefined,
    },
    summary: summary
      ? { throughSeq: summary.throughSeq, tokens: summary.tokens, producer: summary.producer }
      : undefined,
  };
}
