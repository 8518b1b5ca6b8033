import type { Message } from '../message.ts';
import { countRunes } from './count-runes.ts';
import { forEachCountedText, forEachMedia, mediaItemTokens } from './counted-text.ts';
import { TEXT_CATEGORIES, type TextCategory, type TokenBreakdown } from './token-breakdown.ts';
import { type TokenCounter, tokensForRunes, tokensForUnits } from './token-counter.ts';
import type { ResolvedTokenEstimateOptions } from './token-estimate-options.ts';
import { countDenseBytes, tokensForDenseBytes } from './token-floor.ts';
import { countTokenUnits } from './token-units.ts';

/**
 * What a message costs independent of any counter's ratio: runes and token units of counted text per
 * category, plus the flat figures (media, framing). Linear counters turn it into tokens in O(1), which is
 * why caches keep measures: a calibrated counter's multiplier moves after every reported usage, the
 * measure does not.
 */
export interface MessageMeasure {
  runes: Record<TextCategory, number>;
  /** Token units (see `countTokenUnits`): what unit-linear counters scale. */
  units: Record<TextCategory, number>;
  /** UTF-8 bytes outside whitespace (see `token-floor.ts`): no linear count goes below their floor. */
  denseBytes: Record<TextCategory, number>;
  media: number;
  overhead: number;
}

/**
 * `only` skips the half a one-off estimate does not need (a heuristic needs no units, a calibrated counter
 * no runes); the skipped half reads 0, so such a measure must not be cached. Dense bytes are always
 * measured: both kinds of counter floor on them. `unitsOf` and `denseBytesOf` are how text is measured: a
 * counter's `tokenUnits` and `denseBytes` when it remembers what it scanned.
 */
export function measureMessage(
  message: Pick<Message, 'parts'>,
  options: ResolvedTokenEstimateOptions,
  only?: 'runes' | 'units',
  unitsOf: (text: string) => number = countTokenUnits,
  denseBytesOf: (text: string) => number = countDenseBytes,
): MessageMeasure {
  const runes = { text: 0, reasoning: 0, toolCalls: 0, toolResults: 0 };
  const units = { text: 0, reasoning: 0, toolCalls: 0, toolResults: 0 };
  const denseBytes = { text: 0, reasoning: 0, toolCalls: 0, toolResults: 0 };
  forEachCountedText(
    message,
    (category, text) => {
      if (only !== 'units') runes[category] += countRunes(text);
      if (only !== 'runes') units[category] += unitsOf(text);
      denseBytes[category] += denseBytesOf(text);
    },
    options.countToolCallType,
  );
  let media = 0;
  forEachMedia(message, (item) => {
    media += mediaItemTokens(item, options.mediaTokens);
  });
  return { runes, units, denseBytes, media, overhead: options.messageOverheadTokens };
}

export function measuredRunes(measure: MessageMeasure): number {
  const { runes } = measure;
  return runes.text + runes.reasoning + runes.toolCalls + runes.toolResults;
}

export function measuredUnits(measure: MessageMeasure): number {
  const { units } = measure;
  return units.text + units.reasoning + units.toolCalls + units.toolResults;
}

/**
 * Tokens under a rune-linear counter. The message's runes are added first and divided once, as seeds tiancai
 * and picoclaw do (`ceil(chars / N)` per message): rounding each category up on its own would add up to a token
 * per category per message, a bias a calibrated counter would then learn. The rounded total is shared
 * out over the categories by largest remainder, so the breakdown still adds up.
 */
export function breakdownFromMeasure(measure: MessageMeasure, charsPerToken: number): TokenBreakdown {
  const { runes } = measure;
  return flooredShareOut(
    measure,
    TEXT_CATEGORIES.map((category) => runes[category] / charsPerToken),
    tokensForRunes(measuredRunes(measure), charsPerToken),
  );
}

/** Tokens under a unit-linear counter: the message's units added first and scaled once, as above. */
export function breakdownFromUnits(measure: MessageMeasure, tokensPerUnit: number): TokenBreakdown {
  const { units } = measure;
  return flooredShareOut(
    measure,
    TEXT_CATEGORIES.map((category) => units[category] * tokensPerUnit),
    tokensForUnits(measuredUnits(measure), tokensPerUnit),
  );
}

/**
 * The linear shares, each category raised to its byte floor where it is below (`token-floor.ts`), and the
 * total at least the floor of the message's dense bytes taken together. When no floor binds (real text),
 * the total is the linear one, rounded once; otherwise the floored shares are added and rounded once, so
 * a message of one text counts what the counter counts for that text.
 */
function flooredShareOut(measure: MessageMeasure, shares: number[], linearTotal: number): TokenBreakdown {
  let binds = false;
  const floored = TEXT_CATEGORIES.map((category, index) => {
    const share = shares[index] ?? 0;
    const floor = tokensForDenseBytes(measure.denseBytes[category]);
    if (floor <= share) return share;
    binds = true;
    return floor;
  });
  const messageFloor = tokensForDenseBytes(measuredDenseBytes(measure));
  if (!binds && messageFloor <= linearTotal) return shareOut(measure, shares, linearTotal);
  const total = Math.max(
    linearTotal,
    messageFloor,
    Math.ceil(floored.reduce((sum, share) => sum + share, 0)),
  );
  return shareOut(measure, floored, total);
}

export function measuredDenseBytes(measure: MessageMeasure): number {
  const { denseBytes } = measure;
  return denseBytes.text + denseBytes.reasoning + denseBytes.toolCalls + denseBytes.toolResults;
}

/** The breakdown of a linear counter (unit- or rune-linear); undefined for a counter that tokenizes. */
export function linearBreakdown(measure: MessageMeasure, counter: TokenCounter): TokenBreakdown | undefined {
  if (counter.tokensPerUnit !== undefined) return breakdownFromUnits(measure, counter.tokensPerUnit);
  if (counter.charsPerToken !== undefined) return breakdownFromMeasure(measure, counter.charsPerToken);
  return undefined;
}

function shareOut(measure: MessageMeasure, shares: number[], total: number): TokenBreakdown {
  const whole = shares.map(Math.floor);
  let left = total - whole.reduce((sum, value) => sum + value, 0);
  while (left > 0) {
    let largest = 0;
    for (let i = 1; i < shares.length; i++) {
      if (fraction(shares, whole, i) > fraction(shares, whole, largest)) largest = i;
    }
    whole[largest] = (whole[largest] ?? 0) + 1;
    left--;
  }
  // Floating-point products may floor a share past a total computed from the exact sum: take it back.
  while (left < 0) {
    let largest = 0;
    for (let i = 1; i < whole.length; i++) if ((whole[i] ?? 0) > (whole[largest] ?? 0)) largest = i;
    whole[largest] = (whole[largest] ?? 0) - 1;
    left++;
  }
  const [text = 0, reasoning = 0, toolCalls = 0, toolResults = 0] = whole;
  return {
    text,
    reasoning,
    toolCalls,
    toolResults,
    media: measure.media,
    overhead: measure.overhead,
    total: text + reasoning + toolCalls + toolResults + measure.media + measure.overhead,
  };
}

const fraction = (shares: number[], whole: number[], i: number): number => (shares[i] ?? 0) - (whole[i] ?? 0);
