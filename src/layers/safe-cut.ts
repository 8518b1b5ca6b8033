import type { CutAt as CoreCutAt } from '../core/compaction/decide-compaction.ts';
import type { Message } from '../core/message.ts';
import { safeBoundaries } from '../core/turns/find-safe-boundary.ts';
import { pairToolCalls } from '../core/turns/pair-tool-calls.ts';

/**
 * Where a cut may fall. `turn` (picoclaw, the default): only at a turn boundary, so whole turns go.
 * `message` (tiancai and digitorn split by message count): at any message that is not a tool result and
 * that no call/result pair straddles; a single long agent turn (one request, fifty tool calls) can
 * then still be compacted. `turn-or-message`: at a turn boundary when there is one to cut at, else at a
 * message. Never between a tool call and its result either way.
 */
export type CutAt = CoreCutAt;

export const DEFAULT_CUT_AT: CutAt = 'turn';

type History = readonly Pick<Message, 'role' | 'meta' | 'parts'>[];

/**
 * The cut points in `history` for the mode, ascending; never 0 (a cut there cuts nothing). For
 * `turn-or-message`, the turn boundaries, or the message boundaries of a history that has none.
 */
export function cutPoints(history: History, cutAt: CutAt = DEFAULT_CUT_AT): number[] {
  if (cutAt === 'message') return safeMessageBoundaries(history);
  const turns = safeBoundaries(history).filter((point) => point > 0);
  return cutAt === 'turn' || turns.length > 0 ? turns : safeMessageBoundaries(history);
}

/**
 * Snaps `target` to a cut point the way `findSafeBoundary` does (picoclaw): the last point at or before
 * the target, else the first after it; 0 when there is none (nothing can be cut). A target at or past
 * the end is pulled back to the last message: a cut always keeps something to answer. `canStartAt`
 * rules out points the caller cannot cut at (a view's synthetic messages, which have no log seq).
 */
export function snapCut(
  history: History,
  target: number,
  cutAt: CutAt = DEFAULT_CUT_AT,
  canStartAt: (index: number) => boolean = () => true,
): number {
  if (history.length === 0) return 0;
  const clamped = Math.min(target, history.length - 1);
  if (clamped <= 0) return 0;
  if (cutAt === 'turn-or-message') {
    const atTurn = snapCut(history, target, 'turn', canStartAt);
    return atTurn > 0 ? atTurn : snapCut(history, target, 'message', canStartAt);
  }
  const points = cutPoints(history, cutAt).filter(canStartAt);
  let backward = 0;
  for (const point of points) {
    if (point <= clamped) backward = point;
    else break;
  }
  if (backward > 0) return backward;
  return points.find((point) => point > clamped) ?? 0;
}

/** Message indexes b (0 < b < length) where history may be cut: no pair straddles b, and b is not a result. */
export function safeMessageBoundaries(history: History): number[] {
  const { callIndexOfResult, orphanResults } = pairToolCalls(history);
  const opened = new Array<number>(history.length + 1).fill(0);
  for (const [resultIndex, callIndex] of callIndexOfResult) {
    if (resultIndex === callIndex) continue;
    opened[callIndex + 1] = (opened[callIndex + 1] ?? 0) + 1;
    opened[resultIndex + 1] = (opened[resultIndex + 1] ?? 0) - 1;
  }
  const orphans = new Set(orphanResults);
  const points: number[] = [];
  let open = 0;
  for (let index = 0; index < history.length; index++) {
    open += opened[index] ?? 0;
    if (index === 0 || open !== 0) continue;
    const message = history[index];
    if (!message || message.role === 'tool' || orphans.has(index)) continue;
    points.push(index);
  }
  return points;
}
