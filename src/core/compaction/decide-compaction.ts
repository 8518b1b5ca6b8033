import { clampKeepRecentTokens, effectiveTokenLimit } from '../budget/effective-token-limit.ts';
import { reachableThreshold } from '../budget/pressure-measure.ts';
import type { EditReason, LayerName } from '../edit.ts';
import { effectiveHooks, isAutoCompactHook } from '../policy/effective-hooks.ts';
import type { CUT_AT, EmergencyStep, Hook, Policy } from '../policy/policy-schema.ts';

/**
 * Every "should the history shrink now, and how much of it stays?" ctxkit answers, in one place. Pure:
 * each function reads the policy, the call's window and a few figures of the session (never the session)
 * and returns a plan or a yes/no. The engine's three paths (async after a turn, proactive before a call,
 * reactive after an overflow) and the manual `compact()` only carry plans out.
 */

/** Where a cut may fall: `turn` (whole turns go) or `message` (never between a call and its result). */
export type CutAt = (typeof CUT_AT)[number];

/** How much of the newest history stays verbatim when the older part is compacted; first set rule wins. */
export interface KeepRule {
  keepRecentTokens?: number;
  keepRecentTurns?: number;
  keepRecentMessages?: number;
  /** Where the cut may fall (default `turn`). */
  cutAt?: CutAt;
}

/** When a trigger is looked at: a hook's `on`. `prepare` is `before_call` (and `turn_start` on a new turn). */
export type CompactionMoment = Hook['on'];

/** The call's window, as the decisions need it. */
export interface DecisionWindow {
  contextWindow: number;
  maxOutputTokens: number;
  /** False when the window stands in for an unknown one (tiancai's MaxTokens fallback). */
  known: boolean;
  /** True when no window and no token limit apply: message counts decide (tiancai's maxMessagesWhen). */
  unbounded: boolean;
}

/** What the triggers read of a session. */
export interface TriggerState {
  /** Epoch ms. */
  now: number;
  /** Pressure in the policy's own measure (`budget.pressureOf`). */
  pressure: number;
  turnsSinceCompaction: number;
  toolCallsSinceCompaction: number;
  /** Log messages after the newest cut, hidden ones included (what message-count triggers count). */
  messagesSinceCut: number;
  /** When each hook last fired (epoch ms), for cooldowns. */
  hookFiredAt: ReadonlyMap<string, number>;
}

/** A compaction of the older history, decided: the engine's Compactor carries it out. */
export interface CompactionPlan {
  /**
   * What decided it: `hook:<id>`, `message_limit`, `token_budget`, `manual` or `emergency:<step>`. One
   * call carries a trigger out at most once (see `nextTriggeredCompaction`).
   */
  trigger: string;
  strategy: 'summarize' | 'drop';
  layer: LayerName;
  reason: EditReason;
  keep: KeepRule;
  /** The rule to compact with instead when `keep` leaves nothing older to compact. */
  fallbackKeep?: KeepRule;
  summaryMaxTokens?: number;
  instructions?: string;
  /** The hook that fired: its time is recorded when the plan is carried out (cooldowns). */
  hookId?: string;
}

/**
 * The summarize layer's keep rule, first one set wins: tokens (tiancai: clamped to a fraction of the
 * effective token limit), a fraction of the window, turns, messages. A hook's `keep_recent` (a message
 * count) overrides them all.
 */
export function keepRule(policy: Policy, window: DecisionWindow, keepRecentMessages?: number): KeepRule {
  const { summarize, budget } = policy;
  const cutAt = summarize.cutAt;
  if (keepRecentMessages !== undefined && keepRecentMessages > 0) return { keepRecentMessages, cutAt };
  if (summarize.keepRecentTokens > 0) {
    // tiancai's EffectiveTokenLimit: window − reserve, else MaxTokens, else none.
    const limit = effectiveTokenLimit({
      contextWindow: window.known ? window.contextWindow : 0,
      reserveTokens: budget.reserveTokens > 0 ? budget.reserveTokens : window.maxOutputTokens,
      maxContextTokens: budget.maxContextTokens,
    });
    const tokens =
      summarize.keepRecentTokensMaxFraction > 0 && limit !== undefined
        ? Math.min(summarize.keepRecentTokens, Math.floor(limit * summarize.keepRecentTokensMaxFraction))
        : clampKeepRecentTokens(summarize.keepRecentTokens, undefined);
    return { keepRecentTokens: tokens, cutAt };
  }
  if (summarize.keepRecentFraction > 0)
    return { keepRecentTokens: Math.floor(window.contextWindow * summarize.keepRecentFraction), cutAt };
  if (summarize.keepRecentTurns > 0) return { keepRecentTurns: summarize.keepRecentTurns, cutAt };
  return { keepRecentMessages: Math.max(1, summarize.keepRecentMessages), cutAt };
}

/**
 * The hooks that can compact in this window: the declared ones plus the automatic one (digitorn). Built
 * once per policy and window (a session looks at them on every call), so the list is shared: read it only.
 */
export function compactionHooks(policy: Policy, window: DecisionWindow): readonly Readonly<Hook>[] {
  const key = `${window.contextWindow}:${window.maxOutputTokens}:${window.known}`;
  let byWindow = hooksMemo.get(policy);
  if (!byWindow) {
    byWindow = new Map();
    hooksMemo.set(policy, byWindow);
  }
  let hooks = byWindow.get(key);
  if (!hooks) {
    hooks = effectiveHooks(policy, {
      contextWindow: window.contextWindow,
      maxOutputTokens: window.maxOutputTokens,
      known: window.known,
    });
    // A service sees a handful of windows per policy; the bound keeps a hostile stream of them cheap.
    if (byWindow.size >= 64) byWindow.clear();
    byWindow.set(key, hooks);
  }
  return hooks;
}

const hooksMemo = new WeakMap<Policy, Map<string, readonly Readonly<Hook>[]>>();

/** Whether a hook's condition holds now, its cooldown past. */
export function hookDue(hook: Readonly<Hook>, state: TriggerState): boolean {
  const last = state.hookFiredAt.get(hook.id);
  if (
    last !== undefined &&
    hook.cooldownSeconds !== undefined &&
    state.now - last < hook.cooldownSeconds * 1000
  )
    return false;
  const condition = hook.condition;
  switch (condition.type) {
    case 'context_pressure':
      return state.pressure >= condition.threshold;
    case 'turn_count':
      return state.turnsSinceCompaction >= condition.every;
    case 'tool_calls':
      return state.toolCallsSinceCompaction >= condition.threshold;
  }
}

/**
 * tiancai / picoclaw: the message-count trigger beside (or instead of) the token one. It is looked at when
 * the automatic compaction runs (`summarize.runOn`): before a call, or after a turn for the async presets;
 * with `maxMessagesWhen: 'no-token-limit'` only when no token limit applies.
 */
export function messageLimitDue(
  policy: Policy,
  window: DecisionWindow,
  state: Pick<TriggerState, 'messagesSinceCut'>,
  moments: readonly CompactionMoment[],
): boolean {
  const { summarize } = policy;
  if (!summarize.auto || summarize.maxMessages <= 0) return false;
  const atThisMoment =
    summarize.runOn === 'turn_end' ? moments.includes('turn_end') : !moments.includes('turn_end');
  if (!atThisMoment || state.messagesSinceCut <= summarize.maxMessages) return false;
  return summarize.maxMessagesWhen === 'always' || window.unbounded;
}

/**
 * The next compaction a trigger calls for at these moments, or undefined: the hooks in order (the
 * automatic one included), then the message count. `tried` holds the triggers already carried out in this
 * call, so each fires at most once per call and a loop over this function ends; the state is read afresh
 * each time, so a compaction that relieved the pressure stops the hooks after it.
 */
export function nextTriggeredCompaction(
  policy: Policy,
  window: DecisionWindow,
  state: TriggerState,
  moments: readonly CompactionMoment[],
  tried: ReadonlySet<string> = new Set(),
): CompactionPlan | undefined {
  for (const hook of compactionHooks(policy, window)) {
    const trigger = `hook:${hook.id}`;
    if (!moments.includes(hook.on) || tried.has(trigger) || !hookDue(hook, state)) continue;
    const strategy = hook.action.strategy ?? policy.summarize.strategy;
    return {
      trigger,
      strategy,
      layer: strategy === 'drop' ? 'drop' : 'summarize',
      reason: isAutoCompactHook(hook) ? 'context_pressure' : 'hook',
      keep: keepRule(policy, window, hook.action.keepRecent),
      ...(hook.action.summaryMaxTokens !== undefined
        ? { summaryMaxTokens: hook.action.summaryMaxTokens }
        : {}),
      hookId: hook.id,
    };
  }
  if (!tried.has('message_limit') && messageLimitDue(policy, window, state, moments)) {
    const { summarize } = policy;
    return {
      trigger: 'message_limit',
      strategy: summarize.strategy,
      layer: summarize.strategy === 'drop' ? 'drop' : 'summarize',
      reason: 'message_limit',
      keep: keepRule(policy, window),
      // Over the count with everything inside the token keep rule: keep by count instead (tiancai's KeepRecent).
      fallbackKeep: { keepRecentMessages: Math.max(1, summarize.keepRecentMessages), cutAt: summarize.cutAt },
    };
  }
  return undefined;
}

/** A `/compact` the user asked for: the usual keep rule, else just the current turn kept. */
export function manualCompaction(
  policy: Policy,
  window: DecisionWindow,
  asked: { strategy?: 'summarize' | 'drop'; reason?: EditReason; instructions?: string } = {},
): CompactionPlan {
  return {
    trigger: 'manual',
    strategy: asked.strategy ?? policy.summarize.strategy,
    layer: 'manual',
    reason: asked.reason ?? 'manual',
    keep: keepRule(policy, window),
    fallbackKeep: { keepRecentTurns: 1, cutAt: 'turn' },
    ...(asked.instructions !== undefined ? { instructions: asked.instructions } : {}),
  };
}

/**
 * One step of the proactive path, taken while the full formula says the request cannot fit, in order:
 * compact the older part (or the emergency sequence: picoclaw), compress turns to text (cowagent), keep
 * the newest turns that fit, snip oversized messages, keep the newest messages that fit.
 */
export type EscalationStep =
  | { kind: 'compact'; plan: CompactionPlan }
  | { kind: 'emergency' }
  | { kind: 'compress-text' }
  | { kind: 'fit-turns' }
  | { kind: 'snip'; fraction: number }
  | { kind: 'fit-messages' };

/** The proactive path's steps for this policy, cheapest that can work first. */
export function escalationSteps(policy: Policy, window: DecisionWindow): EscalationStep[] {
  const { budget, summarize, compressText, toolOutput, emergency } = policy;
  const steps: EscalationStep[] = [];
  const compact: EscalationStep = {
    kind: 'compact',
    plan: {
      trigger: 'token_budget',
      strategy: summarize.strategy,
      layer: summarize.strategy === 'drop' ? 'drop' : 'summarize',
      reason: 'token_budget',
      keep: keepRule(policy, window),
    },
  };
  if (budget.proactiveCheck) {
    steps.push(budget.proactiveAction === 'emergency' ? { kind: 'emergency' } : compact);
  } else if (emergency.enabled && emergency.sequence[0] === 'compact') {
    // A product without the check sends the request and meets the overflow; when its answer to that is a
    // compaction (tiancai: "On IsContextLengthExceeded error, compacts and retries once"), ctxkit, which
    // does not send a request it knows cannot fit, gives the same answer before sending. Dropping turns
    // first would put the last resort before the summary the seed runs.
    steps.push(compact);
  }
  // The other products without the check (cowagent, deepagents, digitorn) go straight to the steps that
  // need no model, as their own overflow answers do.
  if (compressText.enabled) steps.push({ kind: 'compress-text' });
  steps.push({ kind: 'fit-turns' });
  // digitorn's oversized messages: first clip anything over its share of the budget (25 %), then halve.
  steps.push({
    kind: 'snip',
    fraction: toolOutput.oversizedFraction > 0 ? toolOutput.oversizedFraction : 0.5,
  });
  // Even snipped, the newest turn alone is over (one request, many tool calls).
  steps.push({ kind: 'fit-messages' });
  return steps;
}

/**
 * The prefix compaction an emergency step makes, for the steps that make one: cowagent's limit-sizes
 * keeps the newest `maxTurns` turns; tiancai's compact summarizes with the usual keep rule; digitorn's
 * truncate keeps half of keep_recent (at least `minKeepRecent`) and drops the rest.
 */
export function emergencyCompaction(
  policy: Policy,
  window: DecisionWindow,
  step: Extract<EmergencyStep, 'limit-sizes' | 'compact' | 'truncate'>,
  reason: EditReason,
): CompactionPlan {
  const { emergency, summarize } = policy;
  const base = { trigger: `emergency:${step}`, layer: 'emergency' as const, reason };
  switch (step) {
    case 'limit-sizes':
      return { ...base, strategy: 'drop', keep: { keepRecentTurns: emergency.maxTurns } };
    case 'compact':
      return { ...base, strategy: 'summarize', keep: keepRule(policy, window) };
    case 'truncate':
      return {
        ...base,
        strategy: 'drop',
        keep: {
          keepRecentMessages: Math.max(emergency.minKeepRecent, Math.floor(summarize.keepRecentMessages / 2)),
          cutAt: 'message',
        },
      };
  }
}

/** The cheap layers' own triggers, looked at in order by the engine, each against the state as it is then. */
export const cheapLayerDue = {
  /** cowagent: results only become "old" when a new turn starts, and each needs looking at once. */
  truncateOld(policy: Policy, turnsInView: number, turnCount: number, lastCheckedTurnCount: number): boolean {
    return policy.truncateOld.enabled && turnsInView > 1 && lastCheckedTurnCount !== turnCount;
  },
  /** deepagents: clearing past its trigger (brought down to the largest request that fits). */
  clearing(policy: Policy, window: DecisionWindow, pressure: number): boolean {
    return (
      policy.clearing.enabled &&
      pressure >= reachableThreshold(policy.clearing.trigger, policy.budget.pressureOf, window)
    );
  },
  /** tiancai: more results visible than the cutoff. */
  archive(policy: Policy, visibleResults: number): boolean {
    return policy.archive.strategy !== 'off' && visibleResults > policy.archive.toolCallCutoff;
  },
  /** cowagent: more turns in view than the limit. */
  trim(policy: Policy, turnsInView: number): boolean {
    return policy.trim.enabled && turnsInView > policy.trim.maxTurns;
  },
};

/**
 * deepagents / Anthropic's `clear_at_least`: a clearing is only worth its cache rebuild when it frees at
 * least this many tokens (the larger of the absolute and the fraction of the usable window).
 */
export function clearingMinFreedTokens(policy: Policy, window: DecisionWindow): number {
  const { clearing } = policy;
  return Math.max(
    clearing.minFreedTokens,
    Math.ceil(clearing.minFreedFraction * Math.max(0, window.contextWindow - window.maxOutputTokens)),
  );
}

/**
 * The working set's budget (clearing.keepRecentTokens / keepRecentFraction): how many tokens of the newest
 * tool output clearing keeps verbatim in this window. A fraction of the usable window, capped by the
 * absolute figure when both are set; the absolute figure alone otherwise.
 */
export function clearingKeepRecentTokens(policy: Policy, window: DecisionWindow): number {
  const { keepRecentTokens, keepRecentFraction } = policy.clearing;
  if (keepRecentFraction <= 0) return keepRecentTokens;
  const scaled = Math.floor(keepRecentFraction * Math.max(0, window.contextWindow - window.maxOutputTokens));
  return keepRecentTokens > 0 ? Math.min(scaled, keepRecentTokens) : scaled;
}
