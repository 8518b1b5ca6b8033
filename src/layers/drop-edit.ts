import type { DropEdit } from '../core/edit.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from '../core/tokens/token-estimate-options.ts';
import { type EditOptions, editMeta } from './edit-meta.ts';
import type { HistoryCut } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';

/**
 * Records a cut as a drop: everything through `cut.throughSeq` leaves the view, with a reminder, or
 * without one when a summary will follow (cowagent's trim: the summary lands a turn later).
 */
export function dropEditForCut(
  input: LayerInput,
  cut: Pick<HistoryCut, 'throughSeq' | 'olderTokens'>,
  options: EditOptions & { reminder?: string } = {},
): DropEdit {
  const reminderTokens = options.reminder
    ? input.countTokens(options.reminder) + DEFAULT_MESSAGE_OVERHEAD_TOKENS
    : 0;
  return {
    ...editMeta(input, {
      layer: options.layer ?? 'drop',
      reason: options.reason ?? 'context_pressure',
      tokensAfter: input.regions.history - cut.olderTokens + reminderTokens,
    }),
    type: 'drop',
    throughSeq: cut.throughSeq,
    ...(options.reminder ? { reminder: options.reminder } : {}),
  };
}
