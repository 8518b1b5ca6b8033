export * from './context-budget.ts';
export * from './context-level.ts';
export * from './context-window.ts';
export * from './effective-token-limit.ts';
export * from './pressure-measure.ts';
