import type { Message } from '../core/message.ts';
import { cutOldestTurns, type TurnsCut } from './cut-oldest-turns.ts';
import type { LayerInput } from './layer-input.ts';

/**
 * cowagent, stage 2 "Turn Trimming": when conversation turns exceed `agent_max_context_turns`, the
 * oldest half of complete turns is trimmed, preserving tool call chain integrity. The trimmed messages
 * are the caller's to summarize (to the daily memory file, and into the first kept user message once
 * ready); the cut is recorded as a drop without reminder until then (`dropEditForCut`).
 */

/** cowagent `agent_max_context_turns: 20`. */
export const DEFAULT_MAX_TURNS = 20;
/** cowagent: "The oldest half of complete turns is trimmed". */
export const DEFAULT_TRIM_FRACTION = 0.5;

export interface TrimTurnsOptions {
  maxTurns?: number;
  fraction?: number;
}

export interface TrimTurnsPlan extends TurnsCut {
  /** The messages trimmed away (same as `older`). */
  trimmed: Message[];
}

/** Undefined while the view has at most `maxTurns` turns. */
export function planTrimTurns(input: LayerInput, options: TrimTurnsOptions = {}): TrimTurnsPlan | undefined {
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const cut = cutOldestTurns(input, options.fraction ?? DEFAULT_TRIM_FRACTION);
  if (!cut || cut.turnsBefore <= maxTurns) return undefined;
  return { ...cut, trimmed: cut.older };
}
