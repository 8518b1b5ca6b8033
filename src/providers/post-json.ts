import { ModelCallAbortedError, ModelCallError, ModelTimeoutError } from '../core/errors/index.ts';
import { modelCallErrorFrom } from './read-provider-error.ts';

/** A non-streaming completion with a large `max_tokens` can take minutes; past this, something is wrong. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

export interface PostJsonRequest {
  fetch: typeof fetch;
  /** Names the provider in errors (`openai-compatible`, `anthropic`). */
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal | undefined;
  /** `0` or `Infinity` disables the timeout. */
  timeoutMs: number;
}

export interface PostJsonResponse {
  status: number;
  headers: Headers;
  /** The raw body: error bodies are not always JSON (a proxy's HTML 413, a plain-text 502). */
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/**
 * POSTs a JSON body and reads the whole answer, with the caller's signal and a timeout both able to
 * cancel it. Cancellation races the fetch instead of trusting it to honour the signal, so an injected
 * `fetch` that ignores signals still cannot hang the call. No retries: the engine decides those.
 */
export async function postJson(request: PostJsonRequest): Promise<PostJsonResponse> {
  const { provider, url, signal, timeoutMs } = request;
  if (signal?.aborted) throw new ModelCallAbortedError(provider, signal.reason);

  const controller = new AbortController();
  let cancellation: ModelTimeoutError | ModelCallAbortedError | undefined;
  const cancel = (error: ModelTimeoutError | ModelCallAbortedError) => {
    if (cancellation) return;
    cancellation = error;
    controller.abort(error);
  };
  const onAbort = () => cancel(new ModelCallAbortedError(provider, signal?.reason));
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer =
    timeoutMs > 0 && Number.isFinite(timeoutMs)
      ? setTimeout(() => cancel(new ModelTimeoutError(provider, timeoutMs, url)), timeoutMs)
      : undefined;
  const cancelled = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(cancellation), { once: true });
  });
  // The race below may settle through the other branch; this keeps the loser from being "unhandled".
  cancelled.catch(() => {});

  try {
    const exchange = (async () => {
      const response = await request.fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...request.headers },
        body: JSON.stringify(request.body),
        signal: controller.signal,
      });
      // The timeout covers the body too: fetch resolves on headers, a stalled body would otherwise hang.
      const text = await response.text();
      return { status: response.status, headers: response.headers, text, json: parseJson(text) };
    })();
    exchange.catch(() => {});
    return await Promise.race([exchange, cancelled]);
  } catch (error) {
    if (cancellation) throw cancellation;
    throw new ModelCallError(
      `${provider}: request to ${url} failed: ${error instanceof Error ? error.message : String(error)}`,
      {},
      { cause: error },
    );
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A model request: posted like `postJson`, and any non-2xx answer turned into the `ModelCallError` the
 * provider's body describes (overflow detection reads its status, type and message).
 */
export async function postModelRequest(request: PostJsonRequest): Promise<PostJsonResponse> {
  const response = await postJson(request);
  if (response.status < 200 || response.status >= 300) {
    throw modelCallErrorFrom(
      request.provider,
      response.status,
      response.text,
      response.json,
      response.headers,
    );
  }
  return response;
}
