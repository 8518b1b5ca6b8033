import type { Message } from '../core/message.ts';
import { parseTurnBoundaries } from '../core/turns/parse-turn-boundaries.ts';
import { cutOldestTurns } from './cut-oldest-turns.ts';
import { cutAt, throughSeqForCut } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';
import { snapCut } from './safe-cut.ts';

/**
 * picoclaw's `forceCompression` (the reactive path, and the proactive path when over budget): drop the
 * oldest ~50 % of turns, and store a compression note in the session summary, not in history, so the
 * next request says what happened. What the seed leaves out is picoclaw's own (pkg/agent): a history of
 * two messages or fewer is left alone; with fewer than two turns the cut is the middle snapped as
 * findSafeBoundary snaps it, and when that is the start of the history only the last user message is
 * kept, its tool chain dropped whole.
 */

/** picoclaw: "Drops the oldest ~50% of Turns". */
export const DEFAULT_DROP_FRACTION = 0.5;
/** picoclaw's forceCompression leaves a history of two messages or fewer alone. */
export const FORCE_COMPRESSION_MIN_MESSAGES = 3;
/** The producer of a summary that is only the note (there was no summary to append it to). */
export const COMPRESSION_NOTE_PRODUCER = 'compression-note';
/** picoclaw appends the note to an existing summary after a blank line. */
export const COMPRESSION_NOTE_SEPARATOR = '\n\n';

export interface DropOldestTurnsOptions {
  fraction?: number;
}

export interface DropOldestTurnsPlan {
  /** Everything through this log seq leaves the view. */
  throughSeq: number;
  /** Log seqs after the cut that leave too: a lone turn's tool chain, its user message kept. */
  hidden: number[];
  /** The view's messages that go, in order. */
  dropped: Message[];
  droppedTokens: number;
  turnsBefore: number;
  /** The compression note for the summary. */
  note: string;
}

/** picoclaw's note, word for word. */
export function compressionNote(messagesDropped: number): string {
  return `[Emergency compression dropped ${messagesDropped} oldest messages due to context limit]`;
}

/** The session summary with the note appended, as picoclaw's forceCompression stores it. */
export function appendCompressionNote(summary: string | undefined, note: string): string {
  return summary ? `${summary}${COMPRESSION_NOTE_SEPARATOR}${note}` : note;
}

/** Undefined when nothing can go: two messages or fewer, or no point to cut at. */
export function planDropOldestTurns(
  input: LayerInput,
  options: DropOldestTurnsOptions = {},
): DropOldestTurnsPlan | undefined {
  const messages = input.entries.map((entry) => entry.message);
  if (messages.length < FORCE_COMPRESSION_MIN_MESSAGES) return undefined;
  const turns = parseTurnBoundaries(messages);
  if (turns.length >= 2) {
    const cut = cutOldestTurns(input, options.fraction ?? DEFAULT_DROP_FRACTION);
    return cut && prefixPlan(input, cut.cutIndex, turns.length);
  }
  const start = turns[0];
  if (start === undefined) {
    // No user message: picoclaw cuts at the middle itself; a cut there may split a call from its result,
    // so it snaps to the nearest point that does not.
    const index = snapCut(messages, Math.floor(messages.length / 2), 'message');
    return index > 0 ? prefixPlan(input, index, 0) : undefined;
  }
  // One turn after other messages: those go, the turn stays whole.
  const index = start > 0 ? snapCut(messages, start, 'turn') : 0;
  if (index > 0) return prefixPlan(input, index, 1);
  // One turn from the start: only its user message stays.
  const hidden = input.entries
    .slice(start + 1)
    .flatMap((entry) => (entry.sourceSeq === undefined ? [] : [entry.sourceSeq]));
  const dropped = messages.filter((_message, at) => at !== start);
  return {
    throughSeq: throughSeqForCut(input.entries, start),
    hidden,
    dropped,
    droppedTokens: input.entryTokens.reduce((sum, tokens, at) => (at === start ? sum : sum + tokens), 0),
    turnsBefore: 1,
    note: compressionNote(dropped.length),
  };
}

function prefixPlan(input: LayerInput, cutIndex: number, turnsBefore: number): DropOldestTurnsPlan {
  const cut = cutAt(input, cutIndex);
  return {
    throughSeq: cut.throughSeq,
    hidden: [],
    dropped: cut.older,
    droppedTokens: cut.olderTokens,
    turnsBefore,
    note: compressionNote(cut.older.length),
  };
}
