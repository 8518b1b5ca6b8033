/**
 * The context window divided into regions (picoclaw):
 *   historyBudget = contextWindow − system − summary − toolDefinitions − maxOutputTokens
 * All figures are tokens. Pure arithmetic: callers supply the counts.
 */
export interface BudgetRegions {
  contextWindow: number;
  maxOutputTokens: number;
  system: number;
  toolDefinitions: number;
  summary: number;
  /** Tokens of the history messages the model would see. */
  history: number;
}

export interface BudgetReport extends BudgetRegions {
  /** Room left for history once the fixed regions and the output reserve are taken. */
  historyBudget: number;
  /** Everything sent as input: system + tools + summary + history. */
  inputTokens: number;
  /** inputTokens / (contextWindow − maxOutputTokens); > 1 means the request cannot fit. */
  pressure: number;
  /** Tokens still free in the window after input and the output reserve (negative when over). */
  free: number;
  overBudget: boolean;
}

export function historyBudget(regions: Omit<BudgetRegions, 'history'>): number {
  return (
    regions.contextWindow -
    regions.system -
    regions.summary -
    regions.toolDefinitions -
    regions.maxOutputTokens
  );
}

/** Pressure as docs/ARCHITECTURE.md defines it: input over the part of the window input may use. */
export function contextPressure(inputTokens: number, contextWindow: number, maxOutputTokens: number): number {
  const usable = contextWindow - maxOutputTokens;
  if (usable <= 0) return inputTokens > 0 ? Number.POSITIVE_INFINITY : 0;
  return inputTokens / usable;
}

/**
 * The proactive check with the full formula (picoclaw):
 *   message + system + summary + tool definitions + maxOutputTokens > contextWindow
 */
export function isOverContextBudget(regions: BudgetRegions): boolean {
  return (
    regions.history + regions.system + regions.summary + regions.toolDefinitions + regions.maxOutputTokens >
    regions.contextWindow
  );
}

export function budgetReport(regions: BudgetRegions): BudgetReport {
  const inputTokens = regions.system + regions.toolDefinitions + regions.summary + regions.history;
  return {
    ...regions,
    historyBudget: historyBudget(regions),
    inputTokens,
    pressure: contextPressure(inputTokens, regions.contextWindow, regions.maxOutputTokens),
    free: regions.contextWindow - regions.maxOutputTokens - inputTokens,
    overBudget: isOverContextBudget(regions),
  };
}

export type FixedRegion = 'system' | 'toolDefinitions' | 'maxOutputTokens' | 'summary';

/**
 * When even an empty history cannot fit, names the region to blame: the largest of the fixed regions,
 * so the error a caller sees says what to shrink. Returns undefined when the fixed regions fit.
 */
export function oversizedFixedRegion(regions: Omit<BudgetRegions, 'history'>): FixedRegion | undefined {
  if (historyBudget(regions) >= 0) return undefined;
  const sizes: [FixedRegion, number][] = [
    ['system', regions.system],
    ['toolDefinitions', regions.toolDefinitions],
    ['maxOutputTokens', regions.maxOutputTokens],
    ['summary', regions.summary],
  ];
  sizes.sort((a, b) => b[1] - a[1]);
  return sizes[0]?.[0];
}
