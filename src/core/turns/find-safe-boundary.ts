import type { Message } from '../message.ts';
import { pairToolCalls } from './pair-tool-calls.ts';
import { parseTurnBoundaries, startsTurn } from './parse-turn-boundaries.ts';

/**
 * Cut points where `history.slice(0, b)` can be compacted away while `history.slice(b)` is kept: turn
 * boundaries that no tool-call/result pair straddles. In well-formed histories that is every turn
 * boundary; the pairing check guards against results that arrive after an interleaved user message.
 */
export function safeBoundaries(history: readonly Pick<Message, 'role' | 'meta' | 'parts'>[]): number[] {
  const turns = parseTurnBoundaries(history);
  const { callIndexOfResult } = pairToolCalls(history);
  if (callIndexOfResult.size === 0) return turns;
  // A boundary b is unsafe when some pair has its call before b and its result at or after b.
  const straddled = new Array<number>(history.length + 1).fill(0);
  for (const [resultIndex, callIndex] of callIndexOfResult) {
    if (resultIndex === callIndex) continue;
    straddled[callIndex + 1] = (straddled[callIndex + 1] ?? 0) + 1;
    straddled[resultIndex + 1] = (straddled[resultIndex + 1] ?? 0) - 1;
  }
  const safe: number[] = [];
  let open = 0;
  let turn = 0;
  for (let index = 0; index <= history.length && turn < turns.length; index++) {
    open += straddled[index] ?? 0;
    if (turns[turn] === index) {
      if (open === 0) safe.push(index);
      turn++;
    }
  }
  return safe;
}

/**
 * Snaps a target cut index to a safe turn boundary, as picoclaw defines it: prefer the last boundary at
 * or before the target (keeps more recent context), else the first one after it. Returns 0 when the
 * only boundary is the start of history — the whole history is one turn and cannot be cut safely —
 * and `history.length` when the target is at or past the end. A history with no user message has no
 * turn boundary at all: the target comes back unchanged, as picoclaw's does ("returns targetIndex
 * unchanged only when no Turn boundary exists at all"), so such a cut may split a call from its result;
 * callers that cut there snap it themselves (`snapCut` in `message` mode).
 */
export function findSafeBoundary(
  history: readonly Pick<Message, 'role' | 'meta' | 'parts'>[],
  targetIndex: number,
): number {
  if (history.length === 0 || targetIndex <= 0) return 0;
  if (targetIndex >= history.length) return history.length;
  if (!history.some(startsTurn)) return targetIndex;
  const boundaries = safeBoundaries(history);
  let backward = -1;
  for (const boundary of boundaries) {
    if (boundary <= targetIndex) backward = boundary;
    else break;
  }
  if (backward > 0) return backward;
  for (const boundary of boundaries) {
    if (boundary > targetIndex) return boundary;
  }
  return 0;
}
