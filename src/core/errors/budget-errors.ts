import type { FixedRegion } from '../budget/context-budget.ts';
import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/**
 * Even an empty history cannot fit: the fixed regions (system prompt, tool definitions, output reserve)
 * take the whole window. Names the region to shrink and every figure, since no compaction can help.
 */
export class ContextBudgetError extends CtxkitError {
  static override readonly code: ErrorCode = 'context_budget_exceeded';
  readonly region: FixedRegion | 'history';

  constructor(
    region: FixedRegion | 'history',
    figures: {
      contextWindow: number;
      system: number;
      toolDefinitions: number;
      maxOutputTokens: number;
      summary: number;
    },
  ) {
    const detail = `window ${figures.contextWindow}: system ${figures.system}, tools ${figures.toolDefinitions}, output reserve ${figures.maxOutputTokens}, summary ${figures.summary}`;
    super(
      'context_budget_exceeded',
      region === 'history'
        ? `the newest message alone cannot fit beside the fixed regions (${detail})`
        : `the ${regionName(region)} is too large for the context window (${detail})`,
      { region, ...figures },
    );
    this.region = region;
  }
}

function regionName(region: FixedRegion): string {
  switch (region) {
    case 'system':
      return 'system prompt';
    case 'toolDefinitions':
      return 'tool definitions region';
    case 'maxOutputTokens':
      return 'output reserve (maxOutputTokens)';
    case 'summary':
      return 'summary';
  }
}
