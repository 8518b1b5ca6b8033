import type { BudgetRegions } from '../core/budget/context-budget.ts';
import type { Splice, SplicedCount } from '../core/tokens/token-counter.ts';
import type { ReadonlyView, ViewEntry } from '../core/view/project-view.ts';

/**
 * What every layer planner sees: the current view (edits so far applied), its token figures, and the
 * budget of the call being prepared. Planners are pure: ids and time come in here, edits go out.
 */
export interface LayerInput {
  view: ReadonlyView;
  /** The view's history messages, in order (same as `view.entries`). */
  entries: readonly ViewEntry[];
  /** Agent-visible tokens of each entry, aligned with `entries`. */
  entryTokens: readonly number[];
  /** Budget regions of the call being prepared; `regions.history` = sum of `entryTokens`. */
  regions: BudgetRegions;
  /** The session's token counter, as a function. */
  countTokens: (text: string) => number;
  /**
   * The count of a splice of `source` (a clip of it), equal to `countTokens` of the joined text; a
   * counter that can counts it around the cuts only. Without it, layers join and count.
   */
  countSplice?: (source: string, splice: Splice) => SplicedCount;
  /** Epoch ms, from the manager's clock. */
  now: number;
  /** A fresh edit id each call. */
  newId: () => string;
}
