/**
 * Does a failed model call mean "the request does not fit the model's context window"? The reactive
 * compaction path (docs/ARCHITECTURE.md: emergency) runs only on this answer, so both mistakes are costly: a missed
 * overflow fails the turn; a rate limit taken for an overflow throws context away and skips the backoff
 * the caller should have done.
 *
 * Matching is case-insensitive over the error's message, type and code (nested bodies included), in
 * three steps:
 * 1. never an overflow: HTTP 401/402/403/429, or any rate-limit, throttling, quota or auth wording; real
 *    429 texts mention tokens ("tokens per min (TPM)", "input tokens per minute", Bedrock's "Too many
 *    tokens, please wait") and must not reach step 3;
 * 2. an overflow by status or code: HTTP 413, `context_length_exceeded`, `request_too_large`,
 *    `exceed_context_size_error`;
 * 3. an overflow by wording: digitorn's patterns, then each provider's own message (see
 *    OVERFLOW_PATTERNS, with the provider each one comes from).
 */
import { ModelCallError } from '../core/errors/index.ts';
import { readProviderError } from './read-provider-error.ts';

/** Statuses that are never an overflow, whatever the text says. */
export const NOT_OVERFLOW_STATUSES: ReadonlySet<number> = new Set([401, 402, 403, 429]);

/** Wording of rate limits, throttling, quotas and auth failures; checked before the overflow patterns. */
export const NOT_OVERFLOW_PATTERNS: readonly RegExp[] = [
  /rate[ _-]?limit/i,
  /throttl/i,
  /quota/i,
  /tokens? per (?:min|minute|day|hour|second)/i,
  /\b(?:tpm|rpm|tpd)\b/i,
  /please wait/i,
  /try again in \d/i,
  /authentication|unauthori[sz]ed|invalid[_ ]api[_ ]key|invalid x-api-key|incorrect api key|permission/i,
  /overloaded/i,
];

/** Provider codes and types that name an overflow outright. */
export const OVERFLOW_CODES: ReadonlySet<string> = new Set([
  'context_length_exceeded', // OpenAI, Azure OpenAI, Groq
  'context_window_exceeded', // OpenAI Responses API (incomplete_details / error code)
  'model_context_window_exceeded', // Anthropic stop_reason, and as an error type
  'request_too_large', // Anthropic 413
  'exceed_context_size_error', // llama.cpp server, Ollama with truncate:false
]);

/** Error classes that mean an overflow whatever their message says (LangChain.js's `ContextOverflowError`). */
export const OVERFLOW_ERROR_NAMES: ReadonlySet<string> = new Set(['ContextOverflowError']);

/** A code as providers spell it in any of their variants: `Context-Window Exceeded` is `context_window_exceeded`. */
const codeKey = (piece: string): string =>
  piece
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

export const OVERFLOW_PATTERNS: readonly RegExp[] = [
  // digitorn (is_context_overflow), as written there.
  /maximum context length/i,
  /context[_ ]length[_ ]exceeded/i,
  /context[_ -]window/i,
  // The codes above, written inside a message in any spelling.
  /(?:model[_ -])?context[_ -]window[_ -]exceeded|request[_ -]too[_ -]large/i,
  /reduce the length of the messages/i,
  /too many tokens/i,
  /token limit/i,
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum".
  /prompt is too long/i,
  // Anthropic: "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000".
  /exceeds? (?:the )?context limit/i,
  // Google Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)."
  /input token count.*exceeds the maximum/i,
  // llama.cpp server / Ollama: "the request exceeds the available context size".
  /exceeds the available context size/i,
  // Ollama: "the input length exceeds the context length", "the prompt is longer than the context length";
  // LM Studio: "greater than the context length".
  /(?:exceeds|longer than|greater than) the context length/i,
  // Amazon Bedrock: "Input is too long for requested model."
  /input is too long for requested model/i,
  // xAI: "This model's maximum prompt length is 131072 but the request contains 537812 tokens".
  /maximum prompt length is \d/i,
];

export interface OverflowTokens {
  /** Tokens the request needed: input, plus the reserved output when the message counts it. */
  requested?: number;
  /** The window the provider enforced. */
  limit?: number;
  /** The part of `requested` reserved for output (`max_tokens`), when the message breaks it out. */
  completion?: number;
}

export function isContextOverflow(error: unknown): boolean {
  const facts = collectFacts(error);
  if (facts.status !== undefined && NOT_OVERFLOW_STATUSES.has(facts.status)) return false;
  const text = facts.texts.join('\n');
  if (NOT_OVERFLOW_PATTERNS.some((pattern) => pattern.test(text))) return false;
  if (facts.status === 413) return true;
  if (facts.names.some((name) => OVERFLOW_ERROR_NAMES.has(name))) return true;
  if (facts.texts.some((piece) => piece.length <= 64 && OVERFLOW_CODES.has(codeKey(piece)))) return true;
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

/**
 * The token figures an overflow message gives, when it gives them: the reactive path can size its cut
 * from them instead of guessing. Accepts the error itself or its message text.
 */
export function parseOverflowTokens(error: unknown): OverflowTokens {
  const facts = collectFacts(error);
  if (facts.promptTokens !== undefined || facts.contextTokens !== undefined) {
    return {
      ...(facts.promptTokens !== undefined && { requested: facts.promptTokens }),
      ...(facts.contextTokens !== undefined && { limit: facts.contextTokens }),
    };
  }
  for (const text of facts.texts) {
    const figures = parseText(text);
    if (figures.requested !== undefined || figures.limit !== undefined) return figures;
  }
  return {};
}

const NUMBER = '(\\d[\\d,]*)';
const re = (source: string) => new RegExp(source, 'i');

/** Patterns that give both figures at once, most specific first. */
const BOTH_FIGURES: readonly { pattern: RegExp; read: (m: RegExpExecArray) => OverflowTokens }[] = [
  // Anthropic: "prompt is too long: 208310 tokens > 200000 maximum"
  { pattern: re(`prompt is too long: ${NUMBER} tokens? > ${NUMBER}`), read: (m) => pair(m[1], m[2]) },
  // Anthropic: "exceed context limit: 199759 + 8192 > 200000"
  {
    pattern: re(`context limit: ${NUMBER} \\+ ${NUMBER} > ${NUMBER}`),
    read: (m) => withCompletion(sum(m[1], m[2]), num(m[3]), num(m[2])),
  },
  // Gemini: "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576)"
  {
    pattern: re(
      `input token count \\(?${NUMBER}\\)? exceeds the maximum number of tokens allowed \\(?${NUMBER}`,
    ),
    read: (m) => pair(m[1], m[2]),
  },
  // llama.cpp / Ollama: "request (8889 tokens) exceeds the available context size (4096 tokens)"
  {
    pattern: re(`request \\(${NUMBER} tokens?\\) exceeds the available context size \\(${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
  // xAI: "maximum prompt length is 131072 but the request contains 537812 tokens"
  {
    pattern: re(`maximum prompt length is ${NUMBER} but the request contains ${NUMBER}`),
    read: (m) => pair(m[2], m[1]),
  },
  // llama-cpp-python: "Requested tokens (2285) exceed context window of 2048"
  {
    pattern: re(`tokens \\(${NUMBER}\\) exceeds? context window of ${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
  // MLX servers (omlx): "Prompt too long: 51587 tokens exceeds max context window of 32768 tokens"
  {
    pattern: re(`${NUMBER} tokens? exceeds? (?:the )?(?:max(?:imum)? )?context window of ${NUMBER}`),
    read: (m) => pair(m[1], m[2]),
  },
];

function parseText(text: string): OverflowTokens {
  for (const { pattern, read } of BOTH_FIGURES) {
    const match = pattern.exec(text);
    if (match) return read(match);
  }
  // OpenAI, DeepSeek, vLLM, OpenRouter, Groq: "maximum context length is 4097 tokens. However, you
  // requested 4268 tokens (4012 in the messages, 256 in the completion)" / "your messages resulted in
  // 4294 tokens" / "you requested about 138956 tokens (7884 of text input, 131072 in the output)" /
  // vLLM: "your request has 8 input tokens plus 2045 'max_tokens'".
  const limit = num(re(`maximum context length is ${NUMBER}`).exec(text)?.[1]);
  if (limit === undefined) return {};
  const vllm = re(`request has ${NUMBER} input tokens?(?: plus ${NUMBER})?`).exec(text);
  if (vllm) {
    const completion = num(vllm[2]);
    return withCompletion(sum(vllm[1], vllm[2]), limit, completion);
  }
  const requested = num(re(`(?:requested|resulted in)(?: about)? ${NUMBER} tokens`).exec(text)?.[1]);
  const completion = num(re(`${NUMBER} (?:in|for) the (?:completion|output)`).exec(text)?.[1]);
  return withCompletion(requested, limit, completion);
}

function pair(requested: string | undefined, limit: string | undefined): OverflowTokens {
  return withCompletion(num(requested), num(limit), undefined);
}

function withCompletion(requested?: number, limit?: number, completion?: number): OverflowTokens {
  return {
    ...(requested !== undefined && { requested }),
    ...(limit !== undefined && { limit }),
    ...(completion !== undefined && { completion }),
  };
}

function sum(a: string | undefined, b: string | undefined): number | undefined {
  const first = num(a);
  return first === undefined ? undefined : first + (num(b) ?? 0);
}

function num(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll(',', ''));
  return Number.isFinite(value) ? value : undefined;
}

interface ErrorFacts {
  status?: number;
  texts: string[];
  /** Error class names met on the way (`error.name`). */
  names: string[];
  promptTokens?: number;
  contextTokens?: number;
}

/** Status, texts and figures from a ModelCallError, any SDK's error object, a body, or a bare string. */
function collectFacts(error: unknown): ErrorFacts {
  const facts: ErrorFacts = { texts: [], names: [] };
  collect(error, facts, 0);
  return facts;
}

function collect(value: unknown, facts: ErrorFacts, depth: number): void {
  if (depth > 4 || value === undefined || value === null) return;
  if (typeof value === 'string') {
    facts.texts.push(value);
    return;
  }
  if (typeof value !== 'object') return;
  if (ModelCallError.isInstance(value)) {
    setStatus(facts, value.status);
    for (const text of [value.message, value.providerCode, value.providerType])
      if (text) facts.texts.push(text);
    const body = value.details.body;
    if (body !== undefined) {
      const read = readProviderError(
        typeof body === 'string' ? body : '',
        typeof body === 'string' ? undefined : body,
      );
      facts.promptTokens ??= read.promptTokens;
      facts.contextTokens ??= read.contextTokens;
    }
    return;
  }
  const record = value as Record<string, unknown>;
  setStatus(facts, record.status, record.statusCode, record.status_code);
  const response = record.response;
  if (typeof response === 'object' && response !== null) {
    setStatus(facts, (response as Record<string, unknown>).status);
  }
  const metadata = record.$metadata; // AWS SDK v3
  if (typeof metadata === 'object' && metadata !== null) {
    setStatus(facts, (metadata as Record<string, unknown>).httpStatusCode);
  }
  // Google and OpenRouter put the HTTP status in `code`: numeric codes in the status range count as one.
  if (typeof record.code === 'number' && record.code >= 100 && record.code < 600)
    setStatus(facts, record.code);
  for (const key of ['message', 'type', 'code', 'status'] as const) {
    const field = record[key];
    if (typeof field === 'string' && field !== '') facts.texts.push(field);
  }
  // AWS names the error class (`ThrottlingException`); a plain `Error` says nothing.
  if (typeof record.name === 'string' && record.name !== 'Error') {
    facts.texts.push(record.name);
    facts.names.push(record.name);
  }
  if (typeof record.n_prompt_tokens === 'number') facts.promptTokens ??= record.n_prompt_tokens;
  if (typeof record.n_ctx === 'number') facts.contextTokens ??= record.n_ctx;
  // `responseBody` and `data`: the AI SDK's APICallError keeps the provider's body there.
  for (const key of ['error', 'body', 'cause', 'responseBody', 'data'] as const) {
    const nested = record[key];
    if (typeof nested === 'string') {
      const trimmed = nested.trim();
      if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
        try {
          collect(JSON.parse(trimmed) as unknown, facts, depth + 1);
          continue;
        } catch {
          // Plain text after all.
        }
      }
      facts.texts.push(nested);
    } else collect(nested, facts, depth + 1);
  }
  if (Array.isArray(value)) for (const item of value) collect(item, facts, depth + 1);
}

function setStatus(facts: ErrorFacts, ...candidates: unknown[]): void {
  if (facts.status !== undefined) return;
  for (const candidate of candidates) {
    if (typeof candidate === 'number' && Number.isInteger(candidate) && candidate >= 100 && candidate < 600) {
      facts.status = candidate;
      return;
    }
  }
}
