/**
 * The lines the dashboard's chart draws across a session's calls: where clearing and summarization fire
 * and where the display turns warn and danger, each as input tokens in ctxkit's own count (what the bars
 * are), from the statistics of the session's next request (`manager.stats`, deepagents's /context).
 */
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { thresholdInputTokens } from '../../core/budget/pressure-measure.ts';
import { CtxkitError } from '../../core/errors/index.ts';
import { UNBOUNDED_WINDOW } from '../../engine/call-context.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import type { SessionStats } from '../../engine/session-stats.ts';

export interface ThresholdLine {
  /** In the policy's measure (a fraction). */
  pressure: number;
  /** The input tokens at which it is reached. */
  tokens: number;
}

export interface SessionThresholds {
  contextWindow: number;
  maxOutputTokens: number;
  /** The next request's pressure; null when it is not a finite number (no room at all). */
  pressure: number | null;
  clearing: ThresholdLine | null;
  summarize: ThresholdLine | null;
  warn: ThresholdLine;
  danger: ThresholdLine;
}

/**
 * The session's thresholds, or null when nothing says its window (or it is unbounded). The session's last request says it;
 * a session reloaded since knows no request yet, so the window of its last recorded call is given then
 * (`fallbackWindow`), as the proxy would give it.
 */
export async function sessionThresholds(
  manager: ContextManager,
  sessionId: string,
  display: ContextLevelThresholds,
  fallbackWindow: number | undefined,
): Promise<SessionThresholds | null> {
  let stats: SessionStats;
  try {
    stats = await manager.stats(sessionId);
  } catch (error) {
    if (!CtxkitError.isInstance(error) || error.code !== 'unknown_model' || fallbackWindow === undefined)
      return null;
    stats = await manager.stats(sessionId, { contextWindow: fallbackWindow });
  }
  // A request with no known window goes unmanaged: no threshold applies to it.
  if (stats.contextWindow >= UNBOUNDED_WINDOW) return null;
  // The session's own measure: its policy override may set one.
  const measure = (await manager.budgetOf(sessionId)).pressureOf;
  // The fixed regions beside the history (system, tools, summary, memory), as the measures count them.
  const regions = {
    contextWindow: stats.contextWindow,
    maxOutputTokens: stats.maxOutputTokens,
    system: stats.tokens.input - stats.tokens.history,
    toolDefinitions: 0,
    summary: 0,
  };
  const line = (pressure: number): ThresholdLine => ({
    pressure,
    tokens: thresholdInputTokens(pressure, measure, regions),
  });
  return {
    contextWindow: stats.contextWindow,
    maxOutputTokens: stats.maxOutputTokens,
    pressure: Number.isFinite(stats.pressure) ? stats.pressure : null,
    clearing: stats.thresholds.clearing ?? null,
    summarize: stats.thresholds.summarize ?? null,
    warn: line(display.warnAt),
    danger: line(display.dangerAt),
  };
}
