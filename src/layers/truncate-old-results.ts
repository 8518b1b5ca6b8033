import type { ReplaceResultEdit } from '../core/edit.ts';
import { toolResultOf } from '../core/message.ts';
import { clipHeadTail, exceedsRunes } from './clip-text.ts';
import { currentTurnStart } from './current-turn.ts';
import { EditChain } from './edit-chain.ts';
import type { EditOptions } from './edit-meta.ts';
import type { LayerInput } from './layer-input.ts';
import { clipReadBackPart, readBackPartOf } from './read-back-part.ts';

/**
 * cowagent, stage 1 "Tool Result Truncation": before each decision loop, tool results in earlier turns
 * over 20,000 characters keep their beginning and end with a truncation notice; the current turn's
 * results are not affected (the agent is still working with them). A truncated result fits the limit,
 * so it is left alone from then on.
 */

/** cowagent: "Results exceeding 20,000 characters are truncated". */
export const DEFAULT_OLD_RESULT_MAX_CHARS = 20_000;

export interface TruncateOldResultsOptions extends EditOptions {
  /** Results over this many characters (runes) are truncated; the truncated text fits within it. */
  maxChars?: number;
  /** Characters kept from the start; default: `headFraction` of the room left by the notice. */
  headChars?: number;
  /** Characters kept from the end; default: the rest of the room. */
  tailChars?: number;
  /** Share of the room kept from the start when head/tail sizes are not given (default half). */
  headFraction?: number;
  /**
   * Results with a log seq at or below this were already looked at: a result becomes "old" once and
   * only shrinks after that, so the caller need not pay to measure it again every turn.
   */
  afterSeq?: number;
}

export const oldResultNotice = (omitted: number, total: number): string =>
  `\n\n[… ${omitted} of ${total} characters truncated from this earlier tool result …]\n\n`;

export function planTruncateOldResults(
  input: LayerInput,
  options: TruncateOldResultsOptions = {},
): ReplaceResultEdit[] {
  const maxChars = options.maxChars ?? DEFAULT_OLD_RESULT_MAX_CHARS;
  const messages = input.entries.map((entry) => entry.message);
  const currentStart = currentTurnStart(messages);
  const chain = new EditChain(input, options.layer ?? 'truncate-old', options.reason ?? 'old_result_limit');
  for (let index = 0; index < currentStart; index++) {
    const entry = input.entries[index];
    const result = entry?.message.role === 'tool' ? toolResultOf(entry.message) : undefined;
    // Synthetic entries (stand-in results) are not in the log: nothing to target.
    if (!entry || !result || entry.sourceSeq === undefined) continue;
    if (options.afterSeq !== undefined && entry.sourceSeq <= options.afterSeq) continue;
    // A read-back part keeps its start and points at where the shown text stops: cutting its middle
    // would leave its header's Next offset past what was cut.
    const part = exceedsRunes(result.content, maxChars) ? readBackPartOf(result, messages, index) : undefined;
    const content = part
      ? clipReadBackPart(result.content, part, maxChars)
      : clipHeadTail(result.content, {
          maxChars,
          headChars: options.headChars,
          tailChars: options.tailChars,
          headFraction: options.headFraction,
          notice: oldResultNotice,
        });
    if (content !== undefined) chain.replace(entry, index, result.content, content);
  }
  return chain.edits.filter((edit): edit is ReplaceResultEdit => edit.type === 'truncate-result');
}

/** The log seq of the newest entry before the current turn: what a later call may pass as `afterSeq`. */
export function lastOldSeq(input: Pick<LayerInput, 'entries'>): number | undefined {
  const messages = input.entries.map((entry) => entry.message);
  const currentStart = currentTurnStart(messages);
  for (let index = currentStart - 1; index >= 0; index--) {
    const seq = input.entries[index]?.sourceSeq;
    if (seq !== undefined) return seq;
  }
  return undefined;
}
