import { effectiveHooks, type HookWindow, isAutoCompactHook } from '../effective-hooks.ts';
import type { Hook, HookCondition, Policy } from '../policy-schema.ts';

/**
 * The hooks the engine runs for a policy, one line each: the declared ones plus the automatic
 * `_auto_compact` that `summarize.auto` stands for. The `hooks` setting alone shows only the declared
 * ones, so a preset whose compaction is the automatic hook (digitorn) would read as having none.
 *
 *   _auto_compact  on turn_start  when context_pressure ≥ 0.75  compact_context keep_recent=8 summary_max_tokens=1024  cooldown 30s  (summarize.auto)
 */

function conditionText(condition: HookCondition): string {
  switch (condition.type) {
    case 'context_pressure':
      return `context_pressure ≥ ${Number(condition.threshold.toFixed(4))}`;
    case 'turn_count':
      return `turn_count every ${condition.every}`;
    case 'tool_calls':
      return `tool_calls ≥ ${condition.threshold}`;
  }
}

export function formatHook(hook: Readonly<Hook>): string {
  const { action } = hook;
  const options = [
    action.strategy === undefined ? '' : ` strategy=${action.strategy}`,
    action.keepRecent === undefined ? '' : ` keep_recent=${action.keepRecent}`,
    action.summaryMaxTokens === undefined ? '' : ` summary_max_tokens=${action.summaryMaxTokens}`,
  ].join('');
  const cooldown = hook.cooldownSeconds === undefined ? '' : `  cooldown ${hook.cooldownSeconds}s`;
  const origin = isAutoCompactHook(hook) ? 'summarize.auto' : 'hooks';
  return `${hook.id}  on ${hook.on}  when ${conditionText(hook.condition)}  ${action.type}${options}${cooldown}  (${origin})`;
}

/** One line per hook as the engine runs them in this window (without one, thresholds are the settings'). */
export function effectiveHookLines(policy: Policy, window?: HookWindow): string[] {
  return effectiveHooks(policy, window).map(formatHook);
}
