import type { KeepRule } from '../core/compaction/decide-compaction.ts';
import type { Message } from '../core/message.ts';
import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { cutAt, type HistoryCut, suffixTokens } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';
import { DEFAULT_CUT_AT, snapCut } from './safe-cut.ts';

/**
 * The split every cutting layer starts from (summarize, drop, trim, emergency): older messages go, the
 * recent ones stay verbatim. What "recent" counts is where the seeds disagree: tokens (tiancai
 * KeepRecentTokens, preferred when set), messages (tiancai KeepRecent, digitorn keep_recent), turns (cowagent, picoclaw).
 * The first non-zero rule wins, in that order: tokens, turns, messages. The cut is always snapped to a
 * safe point (`findSafeBoundary` for turns), so a call never loses its result, and always keeps something
 * for the model to answer. In turn mode the current turn is kept whole; `turn-or-message` cuts inside it
 * only when no turn boundary is in reach, and keeps its newest tool exchange.
 */

/** tiancai `KeepRecentTokens: 20000`, the rule used when no other is given. */
export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;
/** tiancai `KeepRecent: 5` messages. */
export const SEED_001_KEEP_RECENT_MESSAGES = 5;
/** digitorn `keep_recent: 10` messages. */
export const SEED_003_KEEP_RECENT_MESSAGES = 10;

/** How much of the newest history stays (decide-compaction.ts's keep rule). */
export type RecentSplitOptions = KeepRule;

export type RecentSplit = HistoryCut;
/** Alias the engine uses. */
export type SplitOptions = RecentSplitOptions;

/** Undefined when nothing can be cut: everything fits the rule, or no safe cut point keeps anything older. */
export function planRecentSplit(
  input: LayerInput,
  options: RecentSplitOptions = {},
): RecentSplit | undefined {
  const messages = input.entries.map((entry) => entry.message);
  if (messages.length < 2) return undefined;
  const target = splitTarget(input, options);
  if (target === undefined || target <= 0) return undefined;
  const mode = options.cutAt ?? DEFAULT_CUT_AT;
  const canStartAt = (index: number) => input.entries[index]?.sourceSeq !== undefined;
  const cutIndex = snapCut(messages, target, mode === 'turn-or-message' ? 'turn' : mode, canStartAt);
  if (cutIndex <= 0 && mode === 'turn-or-message') {
    // Inside the turn, the newest tool exchange always stays (the result the agent is working from). The
    // cut is made when what stays fits the rule, or when what goes is at least as large as what stays: an
    // exchange larger than the rule with little before it is for snipping to fix, since compacting the
    // little before it would free next to nothing, but one with a long turn before it is not.
    const inside = snapCut(messages, Math.min(target, newestCallIndex(messages)), 'message', canStartAt);
    if (inside <= 0) return undefined;
    const split = cutAt(input, inside);
    const { keepRecentTokens = 0 } = options;
    const worthIt =
      keepRecentTokens <= 0 ||
      split.recentTokens <= keepRecentTokens ||
      split.olderTokens >= split.recentTokens;
    return worthIt ? split : undefined;
  }
  if (cutIndex <= 0) return undefined;
  return cutAt(input, cutIndex);
}

/** The newest message that calls a tool; the history's length when none does. */
function newestCallIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role === 'assistant' && message.parts.some((part) => part.type === 'tool-call'))
      return index;
  }
  return messages.length;
}

/** The unsnapped index of the first kept message, or undefined when everything fits. */
function splitTarget(input: LayerInput, options: RecentSplitOptions): number | undefined {
  const { keepRecentTokens = 0, keepRecentTurns = 0, keepRecentMessages = 0 } = options;
  const length = input.entries.length;
  if (keepRecentTokens > 0) return tokenTarget(input.entryTokens, keepRecentTokens);
  if (keepRecentTurns > 0) {
    const starts = parseTurnBoundaries(input.entries.map((entry) => entry.message));
    if (starts.length <= keepRecentTurns) return undefined;
    return starts[starts.length - keepRecentTurns];
  }
  if (keepRecentMessages > 0) return keepRecentMessages >= length ? undefined : length - keepRecentMessages;
  return tokenTarget(input.entryTokens, DEFAULT_KEEP_RECENT_TOKENS);
}

/** The first index whose suffix fits `budget` tokens (tiancai's token-budget split), undefined if all fits. */
function tokenTarget(entryTokens: readonly number[], budget: number): number | undefined {
  const suffix = suffixTokens(entryTokens);
  if ((suffix[0] ?? 0) <= budget) return undefined;
  let index = entryTokens.length;
  while (index > 0 && (suffix[index - 1] ?? 0) <= budget) index--;
  return index;
}
