/**
 * Does a failed model call mean "the request does not fit the model's context window"? The reactive
 * compaction path (docs/ARCHITECTURE.md: emergency) runs only on this answer, so both mistakes are costly: a missed
 * overflow fails the turn; a rate limit taken for an overflow throws context away and skips the backoff
 * the caller should have done.
 *
 * The answer reads what the error says, not which provider said it, so a wording or a code never seen
 * still counts when its words say it. Every text of the error is read: message, code, type, class name,
 * nested and wrapped bodies (collect-error-facts.ts), codes split into words
 * (`model_max_prompt_tokens_exceeded` reads "model max prompt tokens exceeded").
 * 1. Never an overflow: HTTP 401/402/403/429, or rate-limit, throttling, quota, billing, auth or overload
 *    wording anywhere in the error (NOT_OVERFLOW_PATTERNS). Real 429s mention tokens ("tokens per min
 *    (TPM)", Bedrock's "Too many tokens, please wait") and even ask to "reduce the prompt length", so these
 *    run first; they are words no overflow uses, so a real overflow that also says "try again with a
 *    shorter prompt" is not hidden by them.
 * 2. An overflow when a text says that the request's size exceeds a bound of the model, is too long, breaks
 *    a rule on its length, should be made smaller, or gives figures that put it above the limit
 *    (read-overflow-wording.ts has the sentence it looks for and what it rules out: the output's size,
 *    an image's, a file's, the rate's, a deadline's); or when the server's own figures do (llama.cpp's
 *    `n_prompt_tokens` above `n_ctx`).
 * 3. HTTP 413 is an overflow unless its text says something else (a file, an image, a header) is too large.
 * Any other status may carry one: proxies (LiteLLM, OpenRouter) answer 400, 422 or 500 around the
 * upstream's text.
 */
import { collectErrorFacts } from './collect-error-facts.ts';
import { type OverflowTokens, readOverflowFigures } from './read-overflow-figures.ts';
import { readOverflowWording } from './read-overflow-wording.ts';

export type { OverflowTokens } from './read-overflow-figures.ts';

/** Statuses that are never an overflow, whatever the text says. */
export const NOT_OVERFLOW_STATUSES: ReadonlySet<number> = new Set([401, 402, 403, 429]);

/**
 * Wording of rate limits, throttling, quotas, billing, auth failures and overload; checked before anything
 * else. Each is something an overflow never says: "try again" alone is not here (Anthropic's overflow says
 * "decrease input length or `max_tokens` and try again"), only a wait ("try again in 20s", "please wait").
 */
export const NOT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /rate[ _-]?limit/i,
  /throttl/i,
  /quota/i,
  /\bper[ _-]?(?:min|minute|hour|day|second|sec|month)\b/i,
  /\b(?:tpm|rpm|tpd|rpd|itpm|otpm)\b/i,
  /\b(?:daily|monthly|weekly|hourly|today)\b/i,
  /please wait/i,
  /(?:try again|retry) (?:in|after) \d/i,
  /too many requests/i,
  /resource[ _-]?exhausted/i,
  /concurren/i,
  /authenticat|unauthori[sz]ed|invalid[_ ]api[_ ]key|invalid x-api-key|incorrect api key|api key not valid/i,
  /permission|forbidden|access denied/i,
  /billing|payment|\bcredits?\b|afford|insufficient[_ ](?:quota|balance|funds|credits?)/i,
  /overloaded|service unavailable|temporarily unavailable/i,
  /速率|频率|配额|余额|并发|限流/,
];

export function isContextOverflow(error: unknown): boolean {
  const facts = collectErrorFacts(error);
  if (facts.status !== undefined && NOT_OVERFLOW_STATUSES.has(facts.status)) return false;
  if (facts.texts.some((text) => NOT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text)))) return false;
  let otherExcess = false;
  for (const text of facts.texts) {
    const verdict = readOverflowWording(text);
    if (verdict.overflow) return true;
    otherExcess ||= verdict.otherExcess;
  }
  const { promptTokens, contextTokens } = facts;
  if (promptTokens !== undefined && contextTokens !== undefined && promptTokens > contextTokens) return true;
  return facts.status === 413 && !otherExcess;
}

/**
 * The token figures an overflow message gives, when it gives them: the reactive path can size its cut
 * from them instead of guessing. Accepts the error itself or its message text.
 */
export function parseOverflowTokens(error: unknown): OverflowTokens {
  const facts = collectErrorFacts(error);
  if (facts.promptTokens !== undefined || facts.contextTokens !== undefined) {
    return {
      ...(facts.promptTokens !== undefined && { requested: facts.promptTokens }),
      ...(facts.contextTokens !== undefined && { limit: facts.contextTokens }),
    };
  }
  for (const text of facts.texts) {
    const figures = readOverflowFigures(text);
    if (figures.requested !== undefined || figures.limit !== undefined) return figures;
  }
  return {};
}
