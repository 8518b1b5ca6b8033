import { betweenTurns } from '../core/turns/parse-turn-boundaries.ts';
import { applyReadySummary, scheduleAsyncSummary } from './async-summary.ts';
import { runCheapLayers } from './cheap-layers.ts';
import type { Compactor } from './compactor.ts';
import type { AfterTurnOptions } from './context-manager-options.ts';

/**
 * `afterTurn`'s path: a background summary that finished since the last call is applied, the cheap layers
 * run, and when the turn has ended, what is due at a turn's end (a background summary) is started.
 */
export async function runAfterTurn(
  compactor: Compactor,
  options: AfterTurnOptions = {},
): Promise<{ turnEnded: boolean; scheduled: Promise<void> | undefined }> {
  // A background summary that finished since the last call is applied now, not replaced by a new one
  // (that would pay for a summary and throw it away).
  await applyReadySummary(compactor, false);
  await runCheapLayers(compactor);
  // A turn ends with a reply that calls no tool: what is due at a turn's end (a background summary)
  // starts only between turns, whichever door calls this and however often; inside a turn's tool
  // loop only the cheap layers run.
  const turnEnded = options.turnEnded ?? betweenTurns(compactor.runtime.view.entries.at(-1)?.message);
  const scheduled = turnEnded ? scheduleAsyncSummary(compactor) : undefined;
  return { turnEnded, scheduled };
}
