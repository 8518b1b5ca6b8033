import { InvalidTokenCounterError } from '../errors/index.ts';
import { assertCharsPerToken } from './heuristic-counter.ts';
import { TextUnitsMemo } from './text-units-memo.ts';
import { type Splice, type SplicedCount, type TokenCounter, tokensForUnits } from './token-counter.ts';
import { atLeastFloor, tokensForDenseBytes } from './token-floor.ts';
import { countTokenUnits } from './token-units.ts';

/**
 * The chars-per-token figure that stands for "one token per token unit". Units are built to match the
 * tokenizers of which "about 4 characters per token" was said (o200k, cl100k on English); a policy's
 * chars/N prior is therefore read as N/4 times fewer tokens than units: chars/4 → 1 token per unit,
 * picoclaw's chars/2.5 → 1.6 (as conservative as that seed means to be).
 */
export const REFERENCE_CHARS_PER_TOKEN = 4;
/** Multiplier used before any usage has been reported (the reading of tiancai's chars/4). */
export const DEFAULT_CALIBRATION_PRIOR_TOKENS_PER_UNIT = 1;
/**
 * How much evidence the prior is worth, in token units (~2,000 characters). A first request of a few
 * hundred units (a greeting) should move the multiplier only part of the way; one of tens of thousands
 * should decide it.
 */
export const DEFAULT_CALIBRATION_PRIOR_WEIGHT_UNITS = 500;
/**
 * Weight older evidence keeps each time a new anchor arrives. Consecutive requests overlap almost entirely
 * (request n+1 is request n plus a reply and a tool result), so the newest anchor already contains the
 * older content; decaying keeps the multiplier on the content the session holds now (after a compaction,
 * or when a session moves from prose to code) instead of on a mean over every request ever sent.
 */
export const DEFAULT_CALIBRATION_DECAY = 0.5;
/**
 * Bounds of a plausible anchor, in tokens per unit, and of the learned multiplier. Real tokenizers land
 * near 1 (o200k and cl100k within a few percent, older 32k-vocabulary ones up to ~1.5, CJK under small
 * vocabularies ~2). An anchor outside measured something else than what ctxkit sent (usage that excludes
 * cached tokens, images the caller did not declare, another request's usage): it is refused rather than
 * clamped, because clamping would still drag the multiplier towards a wrong value.
 */
export const MIN_TOKENS_PER_UNIT = 0.25;
export const MAX_TOKENS_PER_UNIT = 4;

/** One request as ctxkit sent it and as the provider billed it (see `calibrationAnchor`). */
export interface CalibrationAnchor {
  /** Token units of the text ctxkit sent: messages, system prompt, tool definitions (`measureRequest`). */
  units: number;
  /** Input tokens the provider reported for that request, cached ones included. */
  tokens: number;
  /** Tokens that are not text (media figures, per-message framing): taken out before learning. */
  fixedTokens?: number;
}

/** Decayed evidence; JSON-safe so a store can persist calibration across restarts. */
export interface CalibrationState {
  units: number;
  tokens: number;
  anchors: number;
}

export interface CalibratedCounterOptions {
  /** Model the multiplier belongs to; part of the counter's name. */
  model?: string;
  /**
   * The policy's heuristic ratio chars/N, taken as the prior: tokens per unit =
   * {@link REFERENCE_CHARS_PER_TOKEN} / N.
   * Ignored when `priorTokensPerUnit` is given.
   */
  priorCharsPerToken?: number;
  /** The prior multiplier itself. Default {@link DEFAULT_CALIBRATION_PRIOR_TOKENS_PER_UNIT}. */
  priorTokensPerUnit?: number;
  priorWeightUnits?: number;
  decay?: number;
  /** Evidence to start from (a persisted {@link CalibrationState}). */
  state?: CalibrationState;
}

export type CalibrationRejection = 'invalid-figures' | 'no-text-tokens' | 'implausible-ratio';

export type CalibrationUpdate =
  | { accepted: true; anchorTokensPerUnit: number; tokensPerUnit: number }
  | { accepted: false; reason: CalibrationRejection; tokensPerUnit: number };

/**
 * A unit-linear counter (`ceil(token units × multiplier)`) whose multiplier is learned from
 * provider-reported usage, so a model whose tokenizer ctxkit does not have (Claude, Llama, Qwen…) still
 * gets estimates that converge on its real counts.
 *
 * Why token units and not characters: a session's first requests are system prompt and prose, the later
 * ones mostly tool output and code. Tokens per character differs by ~25% between the two, so a
 * chars-per-token ratio learned on the first requests misjudges the rest; tokens per unit differs by a
 * few percent (see `countTokenUnits`), so what the first anchors teach carries over. What is left to learn
 * is the tokenizer itself: how its vocabulary compares with the one units model, one number per model.
 *
 * Rule, after each anchor (units U, text tokens t = reported − fixed):
 *   S_u ← decay·S_u + U,  S_t ← decay·S_t + t
 *   tokensPerUnit = clamp((S_t + W·prior) / (S_u + W), MIN, MAX)
 * Sums of tokens over sums of units weigh each request by its size, so a greeting cannot outvote a
 * 100k-token context; the prior acts as W units of evidence at the prior multiplier.
 */
export class CalibratedTokenCounter implements TokenCounter {
  readonly name: string;
  readonly model: string;
  readonly priorTokensPerUnit: number;
  readonly priorWeightUnits: number;
  readonly decay: number;
  #units: number;
  #tokens: number;
  #anchors: number;
  #tokensPerUnit: number;
  readonly #memo = new TextUnitsMemo();

  constructor(options: CalibratedCounterOptions = {}) {
    this.model = options.model ?? 'default';
    this.name = `calibrated:${this.model}`;
    this.priorTokensPerUnit = priorFrom(options);
    this.priorWeightUnits = options.priorWeightUnits ?? DEFAULT_CALIBRATION_PRIOR_WEIGHT_UNITS;
    this.decay = options.decay ?? DEFAULT_CALIBRATION_DECAY;
    if (!Number.isFinite(this.priorWeightUnits) || this.priorWeightUnits < 0) {
      throw new InvalidTokenCounterError(
        'priorWeightUnits',
        `must be a finite number ≥ 0, got ${this.priorWeightUnits}`,
      );
    }
    if (!Number.isFinite(this.decay) || this.decay < 0 || this.decay > 1) {
      throw new InvalidTokenCounterError('decay', `must be between 0 and 1, got ${this.decay}`);
    }
    const state = options.state ?? { units: 0, tokens: 0, anchors: 0 };
    if (
      ![state.units, state.tokens, state.anchors].every(
        (figure) => typeof figure === 'number' && Number.isFinite(figure) && figure >= 0,
      )
    ) {
      throw new InvalidTokenCounterError('state', 'units, tokens and anchors must be finite numbers ≥ 0', {
        state,
      });
    }
    this.#units = state.units;
    this.#tokens = state.tokens;
    this.#anchors = state.anchors;
    this.#tokensPerUnit = this.#computeTokensPerUnit();
  }

  /** The learned multiplier; read by caches and tallies, which re-derive their figures when it moves. */
  get tokensPerUnit(): number {
    return this.#tokensPerUnit;
  }

  /** Anchors accepted so far. */
  get anchors(): number {
    return this.#anchors;
  }

  /** Units × the multiplier, never below the text's byte floor (`token-floor.ts`). */
  count(text: string): number {
    const memo = this.#memo;
    if (text.length < memo.minChars)
      return atLeastFloor(tokensForUnits(countTokenUnits(text), this.#tokensPerUnit), text);
    return Math.max(
      tokensForUnits(memo.units(text), this.#tokensPerUnit),
      tokensForDenseBytes(memo.denseBytes(text)),
    );
  }

  /** `count` of the spliced text, scanning around its cuts when the source is long (`spliced-units.ts`). */
  countSplice(source: string, splice: Splice): SplicedCount {
    const memo = this.#memo;
    const measured = memo.spliced(source, splice);
    let text: string | undefined;
    return {
      tokens: Math.max(
        tokensForUnits(measured.units, this.#tokensPerUnit),
        tokensForDenseBytes(measured.denseBytes),
      ),
      text: () => {
        text ??= memo.join(source, splice);
        return text;
      },
    };
  }

  /** `countDenseBytes(text)` (`token-floor.ts`), from the same memo. */
  denseBytes(text: string): number {
    return this.#memo.denseBytes(text);
  }

  /** `countTokenUnits(text)`, from this counter's memo of recent texts when it has seen the text. */
  tokenUnits(text: string): number {
    return this.#memo.units(text);
  }

  /** Learns from one request's reported usage; refuses (and says why) figures that cannot be right. */
  observe(anchor: CalibrationAnchor): CalibrationUpdate {
    const fixed = anchor.fixedTokens ?? 0;
    const tokensPerUnit = this.#tokensPerUnit;
    if (
      ![anchor.units, anchor.tokens, fixed].every(
        (figure) => typeof figure === 'number' && Number.isFinite(figure),
      ) ||
      anchor.units <= 0 ||
      anchor.tokens <= 0 ||
      fixed < 0
    ) {
      return { accepted: false, reason: 'invalid-figures', tokensPerUnit };
    }
    const textTokens = anchor.tokens - fixed;
    if (textTokens <= 0) return { accepted: false, reason: 'no-text-tokens', tokensPerUnit };
    const anchorTokensPerUnit = textTokens / anchor.units;
    if (anchorTokensPerUnit < MIN_TOKENS_PER_UNIT || anchorTokensPerUnit > MAX_TOKENS_PER_UNIT) {
      return { accepted: false, reason: 'implausible-ratio', tokensPerUnit };
    }
    this.#units = this.decay * this.#units + anchor.units;
    this.#tokens = this.decay * this.#tokens + textTokens;
    this.#anchors++;
    this.#tokensPerUnit = this.#computeTokensPerUnit();
    return { accepted: true, anchorTokensPerUnit, tokensPerUnit: this.#tokensPerUnit };
  }

  state(): CalibrationState {
    return { units: this.#units, tokens: this.#tokens, anchors: this.#anchors };
  }

  /** Forgets every anchor: back to the prior. */
  reset(): void {
    this.#units = 0;
    this.#tokens = 0;
    this.#anchors = 0;
    this.#tokensPerUnit = this.#computeTokensPerUnit();
  }

  #computeTokensPerUnit(): number {
    const weight = this.priorWeightUnits;
    const units = this.#units + weight;
    if (units <= 0) return this.priorTokensPerUnit;
    const learned = (this.#tokens + weight * this.priorTokensPerUnit) / units;
    return Math.min(MAX_TOKENS_PER_UNIT, Math.max(MIN_TOKENS_PER_UNIT, learned));
  }
}

function priorFrom(options: CalibratedCounterOptions): number {
  if (options.priorTokensPerUnit !== undefined) {
    const prior = options.priorTokensPerUnit;
    if (!Number.isFinite(prior) || prior < MIN_TOKENS_PER_UNIT || prior > MAX_TOKENS_PER_UNIT) {
      throw new InvalidTokenCounterError(
        'priorTokensPerUnit',
        `must be between ${MIN_TOKENS_PER_UNIT} and ${MAX_TOKENS_PER_UNIT}, got ${prior}`,
      );
    }
    return prior;
  }
  if (options.priorCharsPerToken === undefined) return DEFAULT_CALIBRATION_PRIOR_TOKENS_PER_UNIT;
  assertCharsPerToken(options.priorCharsPerToken, 'priorCharsPerToken');
  const prior = REFERENCE_CHARS_PER_TOKEN / options.priorCharsPerToken;
  return Math.min(MAX_TOKENS_PER_UNIT, Math.max(MIN_TOKENS_PER_UNIT, prior));
}
