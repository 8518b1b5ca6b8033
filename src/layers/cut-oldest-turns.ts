import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { cutAt, type HistoryCut } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';
import { snapCut } from './safe-cut.ts';

export interface TurnsCut extends HistoryCut {
  /** Turns in the view before the cut. */
  turnsBefore: number;
  /** Turns the cut removes (a leading message run that starts no turn goes too, uncounted). */
  turnsRemoved: number;
  turnsAfter: number;
}

/**
 * Cuts the oldest `fraction` of the view's turns (at least one, never the last), at a safe turn
 * boundary. Shared by cowagent's turn trimming and token-budget trimming and picoclaw's
 * `forceCompression`. Undefined with fewer than two turns: a single turn cannot be cut.
 */
export function cutOldestTurns(input: LayerInput, fraction: number): TurnsCut | undefined {
  const messages = input.entries.map((entry) => entry.message);
  const starts = parseTurnBoundaries(messages);
  const turnsBefore = starts.length;
  if (turnsBefore < 2) return undefined;
  const remove = Math.min(turnsBefore - 1, Math.max(1, Math.floor(turnsBefore * fraction)));
  const target = starts[remove];
  if (target === undefined) return undefined;
  const cutIndex = snapCut(messages, target, 'turn');
  if (cutIndex <= 0) return undefined;
  const turnsRemoved = starts.filter((start) => start < cutIndex).length;
  return { ...cutAt(input, cutIndex), turnsBefore, turnsRemoved, turnsAfter: turnsBefore - turnsRemoved };
}
