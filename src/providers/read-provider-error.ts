import { ModelCallError } from '../core/errors/index.ts';
import { isRecord } from '../core/is-record.ts';

/** What a provider said went wrong, from whichever error shape it uses. */
export interface ProviderError {
  message: string;
  /** `invalid_request_error`, `rate_limit_error`, `exceed_context_size_error`, Google's `INVALID_ARGUMENT`… */
  type?: string;
  /** OpenAI's `code` (`context_length_exceeded`, `rate_limit_exceeded`…); numeric codes as text. */
  code?: string;
  requestId?: string;
  /** llama.cpp (and Ollama on top of it) give the figures as fields: `n_prompt_tokens`, `n_ctx`. */
  promptTokens?: number;
  contextTokens?: number;
}

/** Longest raw (non-JSON) body kept in a message: a proxy's HTML error page is not worth more. */
export const MAX_RAW_ERROR_CHARS = 500;

/**
 * Reads the error out of a body in any of the shapes providers use:
 * - OpenAI and most compatibles: `{error: {message, type, param, code}}`;
 * - Anthropic: `{type: 'error', error: {type, message}, request_id}`;
 * - Google: `{error: {code: 400, message, status}}`, sometimes inside an array;
 * - OpenRouter: `{error: {code: 400, message, metadata}}`;
 * - vLLM (older): `{object: 'error', message, type, code}` at the top level;
 * - llama.cpp: `{error: {code, message, type, n_prompt_tokens, n_ctx}}`;
 * - Ollama: `{error: "text"}`, where the text may itself be a llama.cpp JSON error.
 * Anything else (HTML, plain text) becomes the message, cut to MAX_RAW_ERROR_CHARS.
 */
export function readProviderError(text: string, json: unknown, headers?: Headers): ProviderError {
  const requestId = headers?.get('request-id') ?? headers?.get('x-request-id') ?? undefined;
  const found = json === undefined ? undefined : fromValue(json, 0);
  const error: ProviderError = found ?? { message: rawMessage(text) };
  if (error.requestId === undefined && requestId) error.requestId = requestId;
  return error;
}

/**
 * A ModelCallError for a non-2xx answer (or a 2xx carrying an error body), with the provider's own words.
 * `status` is undefined for an error that arrived inside a stream and names no status of its own.
 */
export function modelCallErrorFrom(
  provider: string,
  status: number | undefined,
  text: string,
  json: unknown,
  headers?: Headers,
): ModelCallError {
  const error = readProviderError(text, json, headers);
  const label = error.type ?? error.code;
  const where = status === undefined ? 'stream error' : String(status);
  return new ModelCallError(`${provider} ${where}${label ? ` ${label}` : ''}: ${error.message}`, {
    ...(status !== undefined && { status }),
    ...(error.code !== undefined && { providerCode: error.code }),
    ...(error.type !== undefined && { providerType: error.type }),
    body: json ?? rawMessage(text),
  });
}

function fromValue(value: unknown, depth: number): ProviderError | undefined {
  if (depth > 3) return undefined;
  if (Array.isArray(value)) return fromValue(value[0], depth + 1);
  if (typeof value === 'string') return fromString(value, depth);
  if (!isRecord(value)) return undefined;
  const nested = value.error;
  const requestId = typeof value.request_id === 'string' ? value.request_id : undefined;
  if (typeof nested === 'string') return withRequestId(fromString(nested, depth), requestId);
  if (isRecord(nested)) return withRequestId(fromRecord(nested, depth), requestId);
  if (typeof value.message === 'string') return withRequestId(fromRecord(value, depth), requestId);
  return undefined;
}

function fromRecord(record: Record<string, unknown>, depth: number): ProviderError {
  const message = typeof record.message === 'string' ? record.message : JSON.stringify(record);
  // A proxy may pass the upstream JSON error through as the message text: read the real one out of it.
  const inner = message.trimStart().startsWith('{') ? fromString(message, depth) : undefined;
  if (inner && inner.message !== message) return inner;
  const type = textOf(record.type) ?? textOf(record.status);
  const code = textOf(record.code);
  const promptTokens = numberOf(record.n_prompt_tokens);
  const contextTokens = numberOf(record.n_ctx);
  return {
    message,
    ...(type !== undefined && { type }),
    ...(code !== undefined && { code }),
    ...(promptTokens !== undefined && { promptTokens }),
    ...(contextTokens !== undefined && { contextTokens }),
  };
}

function fromString(text: string, depth: number): ProviderError {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const inner = fromValue(JSON.parse(trimmed) as unknown, depth + 1);
      if (inner) return inner;
    } catch {
      // Not JSON after all: the text is the message.
    }
  }
  return { message: text };
}

function withRequestId(error: ProviderError, requestId: string | undefined): ProviderError {
  return requestId !== undefined && error.requestId === undefined ? { ...error, requestId } : error;
}

function rawMessage(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'empty response body';
  return trimmed.length > MAX_RAW_ERROR_CHARS ? `${trimmed.slice(0, MAX_RAW_ERROR_CHARS)}…` : trimmed;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string' && value !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
