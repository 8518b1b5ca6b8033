import type { Edit, ReplaceArgsEdit } from '../core/edit.ts';
import { type Message, type ToolCallPart, textOf, toolResultOf } from '../core/message.ts';
import { joinSplice } from '../core/tokens/spliced-units.ts';
import type { Splice, SplicedCount } from '../core/tokens/token-counter.ts';
import type { ViewEntry } from '../core/view/project-view.ts';
import { exceedsRunes, headTailSplice, runeLength } from './clip-text.ts';
import { EditChain } from './edit-chain.ts';
import { type EditOptions, editMeta } from './edit-meta.ts';
import type { LayerInput } from './layer-input.ts';
import { readBackPartOf, readBackSplice } from './read-back-part.ts';

/**
 * Clipping single messages too big for any budget. digitorn's `truncate_oversized_messages` /
 * `snip_oversized_messages` ("a 200 KB tool result that wouldn't fit anywhere") clip the offending
 * content to a token limit with a marker; cowagent's emergency handling caps tool results and user
 * text at 10K characters. Both keep head and tail. The current turn is not spared: these run when the
 * request cannot be sent as it is.
 */

export const DEFAULT_SNIP_MARKER = '[… message truncated to fit the context window …]';
/** cowagent emergency: "tool results limited to 10K chars". */
export const EMERGENCY_TOOL_RESULT_MAX_CHARS = 10_000;
/** cowagent emergency: "user text to 10K". */
export const EMERGENCY_USER_TEXT_MAX_CHARS = 10_000;
/** cowagent emergency: "max 5 turns" (a turn split for the caller: `planRecentSplit({ keepRecentTurns })`). */
export const EMERGENCY_MAX_TURNS = 5;

export interface SnipOversizedOptions extends EditOptions {
  maxTokensPerMessage: number;
  marker?: string;
}

export interface CapMessagesOptions extends EditOptions {
  toolResultMaxChars?: number;
  userTextMaxChars?: number;
}

// Clipping to a token figure goes through characters; a few rounds absorb the counter's non-linearity.
const FIT_ROUNDS = 6;

/**
 * Clips every message whose tokens exceed `maxTokensPerMessage`: results → truncate-result, text →
 * truncate-text, and, when an assistant message is still over, the arguments of its largest tool calls
 * → truncate-args (a call that wrote a whole file can be larger than the window on its own).
 */
export function planSnipOversized(input: LayerInput, options: SnipOversizedOptions): Edit[] {
  const marker = options.marker ?? DEFAULT_SNIP_MARKER;
  const notice = (omitted: number, total: number) =>
    `\n\n${marker} (${omitted} of ${total} characters omitted)\n\n`;
  const plan = new EditChain(input, options.layer ?? 'snip', options.reason ?? 'context_overflow');
  const argsEdits: ReplaceArgsEdit[] = [];
  const clipperFor = resultClipper(input, notice);
  input.entries.forEach((entry, index) => {
    let tokens = input.entryTokens[index] ?? 0;
    if (tokens <= options.maxTokensPerMessage || entry.sourceSeq === undefined) return;
    const text = clippableText(entry);
    if (text !== undefined) {
      // What the message costs besides this text (call ids, media, reasoning, framing) stays.
      const textTokens = input.countTokens(text);
      const rest = Math.max(0, tokens - textTokens);
      const clipped = fitToTokens(
        input,
        text,
        options.maxTokensPerMessage - rest,
        clipperFor(entry, index, text),
        textTokens,
      );
      if (clipped !== undefined) {
        plan.replace(entry, index, text, clipped.text());
        tokens = rest + clipped.tokens;
      }
    }
    if (tokens <= options.maxTokensPerMessage || entry.message.role !== 'assistant') return;
    const calls = entry.message.parts
      .filter((part): part is ToolCallPart => part.type === 'tool-call')
      .map((call) => ({ call, tokens: input.countTokens(call.args) }))
      .sort((a, b) => b.tokens - a.tokens);
    for (const { call, tokens: argsTokens } of calls) {
      if (tokens <= options.maxTokensPerMessage) break;
      const budget = Math.max(16, options.maxTokensPerMessage - (tokens - argsTokens));
      const args = clipArgs(input, call.args, budget, notice, argsTokens);
      if (args === undefined) continue;
      const after = input.countTokens(args);
      argsEdits.push({
        ...editMeta(input, {
          layer: options.layer ?? 'snip',
          reason: options.reason ?? 'context_overflow',
          tokensBefore: input.regions.history,
          tokensAfter: input.regions.history - Math.max(0, argsTokens - after),
        }),
        type: 'truncate-args',
        target: entry.sourceSeq,
        callId: call.callId,
        args,
        originalChars: runeLength(call.args),
      });
      tokens -= Math.max(0, argsTokens - after);
    }
  });
  return [...plan.edits, ...argsEdits];
}

/** The key clipped arguments are kept under, beside `original_chars`. */
export const CLIPPED_ARGUMENTS_KEY = 'ctxkit_clipped_arguments';

/**
 * Clipped arguments that stay valid JSON (providers parse them; Anthropic needs an object): the head and
 * tail of the original text under a key that says what happened. Arguments clipped before are clipped
 * again inside their wrapper, so a tighter limit never wraps a wrapper (each level escaping the one below)
 * and `original_chars` stays the size of what the agent sent.
 */
function clipArgs(
  input: LayerInput,
  args: string,
  budget: number,
  notice: (omitted: number, total: number) => string,
  argsTokens: number,
): string | undefined {
  const earlier = readClippedArguments(args);
  const source = earlier?.text ?? args;
  const sourceTokens = earlier ? input.countTokens(source) : argsTokens;
  const originalChars = earlier?.originalChars ?? runeLength(args);
  // Said of the original: what this clip keeps of the earlier one is what is left of the original.
  const noticeOf = earlier
    ? (omitted: number, total: number) => notice(originalChars - (total - omitted), originalChars)
    : notice;
  const wrap = (inner: string) =>
    JSON.stringify({ [CLIPPED_ARGUMENTS_KEY]: inner, original_chars: originalChars });
  let room = Math.max(8, budget - input.countTokens(wrap('')));
  // Escaping (quotes, backslashes, newlines) grows the text once wrapped: shrink until the wrapped form fits.
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const clipped = clipToTokens(input, source, room, noticeOf, sourceTokens)?.text();
    if (clipped === undefined) return undefined;
    const wrapped = wrap(clipped);
    const excess = input.countTokens(wrapped) - budget;
    if (excess <= 0 || room <= 8) return wrapped;
    room = Math.max(8, room - excess - 1);
  }
  return wrap(clipToTokens(input, source, 8, noticeOf, sourceTokens)?.text() ?? '');
}

/** The clipped text and original size inside arguments `clipArgs` wrote, or undefined for any others. */
function readClippedArguments(args: string): { text: string; originalChars: number } | undefined {
  if (!args.startsWith(`{"${CLIPPED_ARGUMENTS_KEY}":`)) return undefined;
  try {
    const parsed: unknown = JSON.parse(args);
    if (parsed === null || typeof parsed !== 'object') return undefined;
    const keys = Object.keys(parsed);
    const text: unknown = (parsed as Record<string, unknown>)[CLIPPED_ARGUMENTS_KEY];
    const originalChars: unknown = (parsed as Record<string, unknown>).original_chars;
    if (keys.length !== 2 || typeof text !== 'string' || !Number.isSafeInteger(originalChars))
      return undefined;
    return { text, originalChars: originalChars as number };
  } catch {
    return undefined;
  }
}

/** cowagent's emergency caps: tool results and user text over 10K characters keep head + tail. */
export function planCapMessages(input: LayerInput, options: CapMessagesOptions = {}): Edit[] {
  const toolMax = options.toolResultMaxChars ?? EMERGENCY_TOOL_RESULT_MAX_CHARS;
  const userMax = options.userTextMaxChars ?? EMERGENCY_USER_TEXT_MAX_CHARS;
  const notice = (omitted: number, total: number) =>
    `\n\n[… ${omitted} of ${total} characters truncated to fit the context window …]\n\n`;
  const plan = new EditChain(input, options.layer ?? 'emergency', options.reason ?? 'context_overflow');
  const clipperFor = resultClipper(input, notice);
  input.entries.forEach((entry, index) => {
    const role = entry.message.role;
    if (entry.sourceSeq === undefined || role === 'assistant') return;
    const text = clippableText(entry);
    const maxChars = role === 'tool' ? toolMax : userMax;
    if (text === undefined || !exceedsRunes(text, maxChars)) return;
    const clipped = clipperFor(entry, index, text)(maxChars);
    if (clipped !== undefined) plan.replace(entry, index, text, joinSplice(text, clipped));
  });
  return plan.edits;
}

/**
 * How to clip an entry's text to a number of characters: a read-back part keeps its start and points at
 * the offset where the shown text stops (read-back-part.ts); anything else keeps head and tail around
 * `notice`, which says how much of how much was left out. Clips are splices of the text: a fitting loop
 * counts each size it tries around the cuts only (`LayerInput.countSplice`).
 */
function resultClipper(
  input: LayerInput,
  notice: (omitted: number, total: number) => string,
): (entry: ViewEntry, index: number, text: string) => Clipper {
  let messages: Message[] | undefined;
  return (entry, index, text) => {
    const result = entry.message.role === 'tool' ? toolResultOf(entry.message) : undefined;
    if (result) {
      messages ??= input.entries.map((each) => each.message);
      const part = readBackPartOf(result, messages, index);
      if (part) return (maxChars) => readBackSplice(text, part, maxChars);
    }
    const totalRunes = runeLength(text);
    return (maxChars) => headTailSplice(text, { maxChars, notice, totalRunes });
  };
}

type Clipper = (maxChars: number) => Splice | undefined;

/** The text an edit can replace: a result's content, or a message's text parts (joined, as the view does). */
function clippableText(entry: ViewEntry): string | undefined {
  if (entry.message.role === 'tool') return toolResultOf(entry.message)?.content;
  const text = textOf(entry.message);
  return text ? text : undefined;
}

function clipToTokens(
  input: LayerInput,
  text: string,
  budget: number,
  notice: (omitted: number, total: number) => string,
  textTokens?: number,
): SplicedCount | undefined {
  const totalRunes = runeLength(text);
  return fitToTokens(
    input,
    text,
    budget,
    (maxChars) => headTailSplice(text, { maxChars, notice, totalRunes }),
    textTokens,
  );
}

/** `text` clipped by `clip` to about `budget` tokens: characters scaled by the count, a few rounds. */
function fitToTokens(
  input: LayerInput,
  text: string,
  budget: number,
  clip: Clipper,
  textTokens?: number,
): SplicedCount | undefined {
  const tokens = textTokens ?? input.countTokens(text);
  if (tokens <= budget) return undefined;
  const runes = runeLength(text);
  let maxChars = Math.floor((runes * Math.max(0, budget)) / Math.max(1, tokens));
  let clipped: SplicedCount | undefined;
  for (let round = 0; round < FIT_ROUNDS; round++) {
    const splice = clip(maxChars);
    if (splice === undefined) return undefined;
    clipped = countClip(input, text, splice);
    if (clipped.tokens <= budget || maxChars === 0) break;
    maxChars = Math.floor(maxChars * Math.min(0.95, budget / clipped.tokens));
  }
  return clipped;
}

/** The count of a clip of `text`, around its cuts when the session's counter can (`LayerInput.countSplice`). */
function countClip(input: LayerInput, text: string, splice: Splice): SplicedCount {
  if (input.countSplice) return input.countSplice(text, splice);
  const joined = joinSplice(text, splice);
  return { tokens: input.countTokens(joined), text: () => joined };
}
