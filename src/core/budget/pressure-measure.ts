import type { BudgetRegions } from './context-budget.ts';

/**
 * What context pressure divides by what. The seeds measure it differently, and each preset's
 * thresholds (clearing, summarize, `context_pressure` hooks, what `/context` shows) are fractions of
 * its own measure, so the same 0.85 means what the seed meant by it:
 * - `input/usable`: everything sent (system + tools + summary + history) over the window less the
 *   output reserve. docs/ARCHITECTURE.md's formula and ctxkit's default: the reserve is never input's to use, so
 *   100 % is exactly the largest request that fits. digitorn's `used / (max_tokens − output_reserved)`.
 * - `input/window`: everything sent over the model's whole window. deepagents: "passes ~60 % of the
 *   model's window", "reaches ~85 % of the window".
 * - `history/window`: the session history alone over the whole window. picoclaw's maybeSummarize:
 *   "estimated history tokens exceed a percentage of ContextWindow", whatever MaxTokens is.
 */
export const PRESSURE_MEASURES = ['input/usable', 'input/window', 'history/window'] as const;
export type PressureMeasure = (typeof PRESSURE_MEASURES)[number];

export const DEFAULT_PRESSURE_MEASURE: PressureMeasure = 'input/usable';

type Window = Pick<BudgetRegions, 'contextWindow' | 'maxOutputTokens'>;
type Fixed = Pick<BudgetRegions, 'system' | 'toolDefinitions' | 'summary'>;

/** The tokens the measure counts: all of the input, or the history alone. */
export function pressureNumerator(measure: PressureMeasure, regions: BudgetRegions): number {
  if (measure === 'history/window') return regions.history;
  return regions.system + regions.toolDefinitions + regions.summary + regions.history;
}

/** The tokens the measure divides by: the window less the output reserve, or the whole window. */
export function pressureDenominator(measure: PressureMeasure, window: Window): number {
  return measure === 'input/usable' ? window.contextWindow - window.maxOutputTokens : window.contextWindow;
}

/** The pressure of these regions under the measure; infinite when there is input but no room at all. */
export function measurePressure(measure: PressureMeasure, regions: BudgetRegions): number {
  const numerator = pressureNumerator(measure, regions);
  const denominator = pressureDenominator(measure, regions);
  if (denominator <= 0) return numerator > 0 ? Number.POSITIVE_INFINITY : 0;
  return numerator / denominator;
}

/**
 * The pressure of the largest request that still fits (input = window − reserve), for the measures that
 * count all of the input: 1 for `input/usable`, (window − reserve) / window for `input/window`. A
 * threshold above it can never be reached: the request stops fitting first, and the steps that make it
 * fit then are the ones without a model (dropping turns), not the summary the threshold asked for.
 * `history/window` has no ceiling: it leaves the other regions out by design (picoclaw), and its seed's
 * proactive check with the full formula is what keeps the request inside the window.
 */
export function pressureCeiling(measure: PressureMeasure, window: Window): number {
  if (measure === 'history/window') return Number.POSITIVE_INFINITY;
  const denominator = pressureDenominator(measure, window);
  if (denominator <= 0) return 0;
  return Math.max(0, window.contextWindow - window.maxOutputTokens) / denominator;
}

/** A policy threshold as it applies: never past the point where the request stops fitting. */
export function reachableThreshold(threshold: number, measure: PressureMeasure, window: Window): number {
  return Math.min(threshold, pressureCeiling(measure, window));
}

/**
 * The input tokens at which `threshold` is reached, for `/context`: threshold × the denominator, plus,
 * for a measure that counts the history alone, the fixed regions the request carries beside it now.
 */
export function thresholdInputTokens(
  threshold: number,
  measure: PressureMeasure,
  regions: Window & Fixed,
): number {
  const denominator = Math.max(0, pressureDenominator(measure, regions));
  const fixed = measure === 'history/window' ? regions.system + regions.toolDefinitions + regions.summary : 0;
  return Math.floor(threshold * denominator) + fixed;
}
