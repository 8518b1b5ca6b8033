/** `ctxkit/tokens`: token counting (exact, heuristic, calibrated) and the budget arithmetic built on it. */

export * from '../core/budget/index.ts';
export * from '../core/tokens/index.ts';
