import type { CompressTextEdit } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import { textOf } from '../core/message.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from '../core/tokens/token-estimate-options.ts';
import { parseTurnBoundaries, splitTurns } from '../core/turns/parse-turn-boundaries.ts';
import { cutOldestTurns, type TurnsCut } from './cut-oldest-turns.ts';
import { type EditOptions, editMeta } from './edit-meta.ts';
import { throughSeqForCut } from './history-cut.ts';
import type { LayerInput } from './layer-input.ts';
import { cutPoints } from './safe-cut.ts';

/**
 * cowagent, stage 3 "Token Budget Trimming", run when tokens still exceed the budget after turn
 * trimming: with fewer than 5 turns, all turns undergo text compression (each keeps only the first user
 * text and the last agent reply, the tool call chains between them go); with 5 or more, the first half
 * of the turns is trimmed again (summarized to memory by the caller).
 */

/** cowagent: "Fewer than 5 turns" compress; "5 or more turns" trim half. */
export const DEFAULT_COMPRESS_BELOW_TURNS = 5;
const TRIM_AGAIN_FRACTION = 0.5;

export interface TokenBudgetTrimOptions extends EditOptions {
  belowTurns?: number;
  /**
   * Compress the turn in progress too. The seed says "all turns": every finished turn is compressed, the
   * last one included; by default a turn whose final reply has not come is left alone, since its tool
   * chain is what the agent is working from right now (see `lastTurnFinished`).
   */
  includeCurrentTurn?: boolean;
}

/**
 * Whether the view's last turn has its final reply: the newest logged message is the assistant's and
 * calls no tool. Until then the turn is in progress (the request just arrived, or the agent is between a
 * call and its result).
 */
export function lastTurnFinished(entries: LayerInput['entries']): boolean {
  const last = entries.findLast((entry) => entry.sourceSeq !== undefined)?.message;
  return last?.role === 'assistant' && !last.parts.some((part) => part.type === 'tool-call');
}

export type TokenBudgetTrimPlan =
  | { kind: 'compress'; edit: CompressTextEdit }
  | (TurnsCut & { kind: 'trim-half'; trimmed: Message[] });

export function planTokenBudgetTrim(
  input: LayerInput,
  options: TokenBudgetTrimOptions = {},
): TokenBudgetTrimPlan | undefined {
  const messages = input.entries.map((entry) => entry.message);
  const turns = parseTurnBoundaries(messages).length;
  if (turns >= (options.belowTurns ?? DEFAULT_COMPRESS_BELOW_TURNS)) {
    const cut = cutOldestTurns(input, TRIM_AGAIN_FRACTION);
    return cut ? { ...cut, kind: 'trim-half', trimmed: cut.older } : undefined;
  }
  const edit = compressEdit(input, messages, options);
  return edit ? { kind: 'compress', edit } : undefined;
}

function compressEdit(
  input: LayerInput,
  messages: readonly Message[],
  options: TokenBudgetTrimOptions,
): CompressTextEdit | undefined {
  // A turn in progress stays out of the range, which then ends at a point no call/result pair straddles.
  const whole = options.includeCurrentTurn || lastTurnFinished(input.entries);
  const end = whole ? messages.length : (cutPoints(messages, 'turn').at(-1) ?? 0);
  const firstSeq = input.entries.find(
    (entry, index) => index < end && entry.sourceSeq !== undefined,
  )?.sourceSeq;
  if (end <= 0 || firstSeq === undefined) return undefined;
  const throughSeq =
    end >= messages.length ? lastSourceSeq(input.entries) : throughSeqForCut(input.entries, end);
  if (throughSeq === undefined || throughSeq < firstSeq) return undefined;

  const saved = compressionSavings(input, messages.slice(0, end));
  // Nothing left to compress (already text only): an edit would change nothing.
  if (saved === undefined) return undefined;
  return {
    ...editMeta(input, {
      layer: options.layer ?? 'compress-text',
      reason: options.reason ?? 'token_budget',
      tokensAfter: input.regions.history - saved,
    }),
    type: 'compress-text',
    fromSeq: firstSeq,
    throughSeq,
  };
}

/**
 * Tokens freed by compressing `messages` as the view does (first user text + last text reply per turn),
 * or undefined when compression would change nothing.
 */
function compressionSavings(input: LayerInput, messages: readonly Message[]): number | undefined {
  let saved = 0;
  let changes = false;
  for (const turn of splitTurns(messages)) {
    const range = messages.slice(turn.start, turn.end);
    const firstUser = range.find((message) => message.role === 'user');
    const finalReply = range.findLast(
      (message) => message.role === 'assistant' && message.parts.some((part) => part.type === 'text'),
    );
    range.forEach((message, offset) => {
      const tokens = input.entryTokens[turn.start + offset] ?? 0;
      const keep = message === firstUser || message === finalReply;
      if (keep && message.parts.every((part) => part.type === 'text')) return;
      changes = true;
      saved += keep
        ? Math.max(0, tokens - input.countTokens(textOf(message)) - DEFAULT_MESSAGE_OVERHEAD_TOKENS)
        : tokens;
    });
  }
  return changes ? saved : undefined;
}

function lastSourceSeq(entries: LayerInput['entries']): number | undefined {
  return entries.findLast((entry) => entry.sourceSeq !== undefined)?.sourceSeq;
}
