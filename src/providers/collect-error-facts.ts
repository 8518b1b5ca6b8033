import { ModelCallError } from '../core/errors/index.ts';
import { readProviderError } from './read-provider-error.ts';

/** What a failed call says about itself, from whichever shape the error has. */
export interface ErrorFacts {
  status?: number;
  /** Messages, codes, types and class names, one text each, nested bodies included. */
  texts: string[];
  /** llama.cpp's (and Ollama's) own figures: `n_prompt_tokens`, `n_ctx`. */
  promptTokens?: number;
  contextTokens?: number;
}

/** How deep nested bodies are read: an SDK error, its body, the upstream body a proxy wrapped in it… */
const MAX_DEPTH = 4;

/** Status, texts and figures from a ModelCallError, any SDK's error object, a body, or a bare string. */
export function collectErrorFacts(error: unknown): ErrorFacts {
  const facts: ErrorFacts = { texts: [] };
  collect(error, facts, 0);
  return facts;
}

function collect(value: unknown, facts: ErrorFacts, depth: number): void {
  if (depth > MAX_DEPTH || value === undefined || value === null) return;
  if (typeof value === 'string') {
    facts.texts.push(value);
    return;
  }
  if (typeof value !== 'object') return;
  if (ModelCallError.isInstance(value)) {
    collectModelCallError(value, facts);
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
  // `detail`: FastAPI servers (Xinference, some vLLM fronts); `errorMessage`: agent frameworks' messages.
  for (const key of ['message', 'type', 'code', 'status', 'detail', 'errorMessage'] as const) {
    const field = record[key];
    if (typeof field === 'string' && field !== '') facts.texts.push(field);
  }
  // AWS names the error class (`ThrottlingException`), LangChain.js its `ContextOverflowError`; a plain
  // `Error` says nothing.
  if (typeof record.name === 'string' && record.name !== 'Error') facts.texts.push(record.name);
  if (typeof record.n_prompt_tokens === 'number') facts.promptTokens ??= record.n_prompt_tokens;
  if (typeof record.n_ctx === 'number') facts.contextTokens ??= record.n_ctx;
  // `responseBody` and `data`: the AI SDK's APICallError keeps the provider's body there.
  for (const key of ['error', 'body', 'cause', 'responseBody', 'data'] as const) {
    collectNested(record[key], facts, depth);
  }
  // OpenRouter passes the upstream provider's own body as `metadata.raw`.
  const openRouter = record.metadata;
  if (typeof openRouter === 'object' && openRouter !== null) {
    collectNested((openRouter as Record<string, unknown>).raw, facts, depth);
  }
  if (Array.isArray(value)) for (const item of value) collect(item, facts, depth + 1);
}

function collectModelCallError(error: ModelCallError, facts: ErrorFacts): void {
  setStatus(facts, error.status);
  for (const text of [error.message, error.providerCode, error.providerType])
    if (text) facts.texts.push(text);
  const body = error.details.body;
  if (body === undefined) return;
  const read = readProviderError(
    typeof body === 'string' ? body : '',
    typeof body === 'string' ? undefined : body,
  );
  facts.promptTokens ??= read.promptTokens;
  facts.contextTokens ??= read.contextTokens;
}

/** A nested body: an object, or a string that may hold JSON. */
function collectNested(nested: unknown, facts: ErrorFacts, depth: number): void {
  if (typeof nested !== 'string') {
    collect(nested, facts, depth + 1);
    return;
  }
  const trimmed = nested.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      collect(JSON.parse(trimmed) as unknown, facts, depth + 1);
      return;
    } catch {
      // Plain text after all.
    }
  }
  facts.texts.push(nested);
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
