import type { Message } from '../core/message.ts';
import { cutToTokens } from './cut-text.ts';
import { renderTranscriptMessage, type TranscriptLimits } from './render-transcript.ts';

/**
 * The part of the transcript that fits the summarizer's own input budget: the opening messages (where
 * the task is stated) and as many of the newest as fit, the oldest middle replaced by one marker line
 * naming what was left out. Messages are rendered and counted lazily, from both ends inward, so a
 * 1.5 MB session costs only what is actually kept.
 */

/** Share of the transcript budget the opening messages may use. */
export const DEFAULT_HEAD_SHARE = 0.2;
/** Most opening messages kept before the elision marker. */
export const DEFAULT_HEAD_MAX_MESSAGES = 3;
export const BLOCK_SEPARATOR = '\n\n';

export interface SelectedTranscript {
  text: string;
  /** How many messages the marker stands for (0 when everything fit). */
  elided: number;
  tokens: number;
  /** Pieces joined into `text`: the messages, and the marker when there is one. */
  blocks: number;
}

export interface SelectTranscriptInput extends TranscriptLimits {
  messages: readonly Message[];
  maxTokens: number;
  countTokens: (text: string) => number;
  headShare?: number;
  headMaxMessages?: number;
  /**
   * Count the joined text and trim until it fits (default). `false` trusts the per-block counts: for a
   * caller that bounds the final prompt by them, and counts it only when the bound is over.
   */
  verify?: boolean;
}

export function elisionMarker(count: number, fromSeq: number, toSeq: number): string {
  return `[… ${count} message${count === 1 ? '' : 's'} elided (#${fromSeq}–#${toSeq}) …]`;
}

export function selectTranscript(input: SelectTranscriptInput): SelectedTranscript {
  const { messages, maxTokens, countTokens } = input;
  if (messages.length === 0 || maxTokens <= 0)
    return { text: '', elided: messages.length, tokens: 0, blocks: 0 };
  const separatorTokens = countTokens(BLOCK_SEPARATOR);
  const blocks = new Map<number, { text: string; tokens: number }>();
  const block = (index: number): { text: string; tokens: number } => {
    let found = blocks.get(index);
    if (!found) {
      const message = messages[index];
      const text = message ? renderTranscriptMessage(message, input) : '';
      found = { text, tokens: countTokens(text) + separatorTokens };
      blocks.set(index, found);
    }
    return found;
  };

  // Every message fits: no marker. Checked from the newest end so a huge session stops early.
  let total = 0;
  let fitsWhole = true;
  for (let index = messages.length - 1; index >= 0; index--) {
    total += block(index).tokens;
    if (total > maxTokens) {
      fitsWhole = false;
      break;
    }
  }
  if (fitsWhole) return assemble(messages, [], [...messages.keys()], input, blocks, block);

  // Room for the marker at its widest.
  const last = messages[messages.length - 1];
  const markerTokens =
    countTokens(elisionMarker(messages.length, messages[0]?.seq ?? 0, last?.seq ?? 0)) + separatorTokens;
  const room = maxTokens - markerTokens;

  const head: number[] = [];
  const headBudget = Math.floor(room * (input.headShare ?? DEFAULT_HEAD_SHARE));
  let used = 0;
  const headMax = Math.min(input.headMaxMessages ?? DEFAULT_HEAD_MAX_MESSAGES, messages.length - 1);
  for (let index = 0; index < headMax; index++) {
    const cost = block(index).tokens;
    if (used + cost > headBudget) break;
    head.push(index);
    used += cost;
  }

  const tail: number[] = [];
  const floor = head.length;
  for (let index = messages.length - 1; index >= floor; index--) {
    const cost = block(index).tokens;
    if (used + cost > room) break;
    tail.unshift(index);
    used += cost;
  }
  // The newest message always shows, cut if it alone is too big: it is what the agent was doing.
  if (tail.length === 0) {
    const newest = messages.length - 1;
    const cut = cutToTokens(block(newest).text, room - used - separatorTokens, countTokens);
    if (cut) {
      blocks.set(newest, { text: cut, tokens: countTokens(cut) + separatorTokens });
      tail.push(newest);
    }
  }
  return assemble(messages, head, tail, input, blocks, block);
}

/**
 * Joins the kept blocks with the marker between, then trims from the old end of the tail until it fits.
 * Unverified, the figure returned is the kept blocks' own counts plus the marker's.
 */
function assemble(
  messages: readonly Message[],
  head: number[],
  tail: number[],
  { maxTokens, countTokens, verify = true }: SelectTranscriptInput,
  blocks: Map<number, { text: string; tokens: number }>,
  block: (index: number) => { text: string; tokens: number },
): SelectedTranscript {
  for (;;) {
    const pieces: string[] = head.map((index) => block(index).text);
    const firstTail = tail[0] ?? messages.length;
    const lastHead = head.length > 0 ? (head[head.length - 1] ?? -1) : -1;
    const elided = firstTail - lastHead - 1;
    if (elided > 0) {
      const from = messages[lastHead + 1]?.seq ?? 0;
      const to = messages[firstTail - 1]?.seq ?? from;
      pieces.push(elisionMarker(elided, from, to));
    }
    for (const index of tail) pieces.push(blocks.get(index)?.text ?? block(index).text);
    const text = pieces.join(BLOCK_SEPARATOR);
    if (!verify) {
      let tokens = elided > 0 ? countTokens(pieces[head.length] ?? '') + countTokens(BLOCK_SEPARATOR) : 0;
      for (const index of [...head, ...tail]) tokens += block(index).tokens;
      return { text, elided: Math.max(0, elided), tokens, blocks: pieces.length };
    }
    const tokens = countTokens(text);
    if (tokens <= maxTokens) return { text, elided: Math.max(0, elided), tokens, blocks: pieces.length };
    // Per-block estimates undershot: give up the oldest kept tail message (else the last head one).
    if (tail.length > 1) tail.shift();
    else if (head.length > 0) head.pop();
    else {
      const cut = cutToTokens(text, maxTokens, countTokens);
      return { text: cut, elided: Math.max(0, elided), tokens: countTokens(cut), blocks: pieces.length };
    }
  }
}
