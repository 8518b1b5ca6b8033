/**
 * The context window a local or self-hosted server actually serves a model with, asked of the server
 * itself. The window that matters is the one the model is loaded with, not what the model could take:
 * an Ollama model whose maximum is 128k but that is loaded with `num_ctx 8192` truncates everything past
 * 8192 tokens, silently. So the model's theoretical maximum is never the answer.
 *
 * Asked in order, each with a short timeout, until one answers with a plausible figure:
 * 1. Ollama `POST {root}/api/show {model}`: the `num_ctx` in `parameters` (what the Modelfile loads it
 *    with). The `model_info["<arch>.context_length"]` beside it is the maximum: not used;
 * 2. Ollama `GET {root}/api/ps`: `context_length` of the loaded model (what it is loaded with now);
 * 3. vLLM (and servers copying it) `GET {root}/v1/models`: `max_model_len` of the model with that id;
 * 4. llama.cpp server `GET {root}/props`: `default_generation_settings.n_ctx` (the per-slot window).
 * `root` is the base URL without a trailing `/v1`: OpenAI-compatible APIs live under `/v1`, Ollama's and
 * llama.cpp's own at the root.
 *
 * Never throws: a server that does not answer (refused, timed out) ends the search with `undefined`, as
 * does an abort; a 404 or an answer without the figure moves on to the next question. Figures that are not
 * positive integers up to MAX_PLAUSIBLE_CONTEXT_WINDOW are ignored.
 */

import { isRecord } from '../core/is-record.ts';

/** Each question's timeout: a local server answers these in milliseconds. */
export const DEFAULT_DETECT_TIMEOUT_MS = 2_000;

/** Larger windows than this are not believed (no model serves 100M tokens; a bad field might say so). */
export const MAX_PLAUSIBLE_CONTEXT_WINDOW = 100_000_000;

export interface DetectServedWindowOptions {
  /** The server's base URL, with or without `/v1` (`http://127.0.0.1:11434/v1`, `http://localhost:8000`). */
  baseUrl: string;
  /** The model as requests name it. */
  model: string;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per question. Default DEFAULT_DETECT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Sent with every question (a vLLM started with `--api-key` wants its bearer token). */
  headers?: Record<string, string>;
}

/** One question's answer: `undefined` when the server did not answer at all. */
type Answer = { status: number; json: unknown } | undefined;

export async function detectServedContextWindow(
  options: DetectServedWindowOptions,
): Promise<number | undefined> {
  const root = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  const ask = (path: string, body?: unknown) => askServer(options, `${root}${path}`, body);

  const show = await ask('/api/show', { model: options.model });
  if (show === undefined) return undefined;
  const numCtx = plausible(numCtxOf(show.json));
  if (numCtx !== undefined) return numCtx;

  const ps = await ask('/api/ps');
  if (ps === undefined) return undefined;
  const loaded = plausible(loadedContextOf(ps.json, options.model));
  if (loaded !== undefined) return loaded;

  const models = await ask('/v1/models');
  if (models === undefined) return undefined;
  const maxModelLen = plausible(maxModelLenOf(models.json, options.model));
  if (maxModelLen !== undefined) return maxModelLen;

  const props = await ask('/props');
  if (props === undefined) return undefined;
  return plausible(nCtxOf(props.json));
}

async function askServer(options: DetectServedWindowOptions, url: string, body?: unknown): Promise<Answer> {
  if (options.signal?.aborted) return undefined;
  const timeoutMs = options.timeoutMs ?? DEFAULT_DETECT_TIMEOUT_MS;
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(undefined);
    }, timeoutMs);
  });
  const aborted = new Promise<undefined>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(undefined), { once: true });
  });
  const exchange = (async (): Promise<Answer> => {
    const response = await (options.fetch ?? globalThis.fetch)(url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        accept: 'application/json',
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
      signal: controller.signal,
    });
    const text = await response.text();
    return { status: response.status, json: parseJson(text) };
  })().catch(() => undefined);
  try {
    // Raced, so a fetch that ignores its signal cannot hold detection past the timeout.
    return await Promise.race([exchange, expired, aborted]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    controller.abort();
  }
}

/** Ollama `/api/show`: `parameters` is text, one `name value` per line (`num_ctx                        8192`). */
function numCtxOf(json: unknown): unknown {
  if (!isRecord(json) || typeof json.parameters !== 'string') return undefined;
  const match = /^\s*num_ctx\s+(\S+)\s*$/m.exec(json.parameters);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Ollama `/api/ps`: `{models: [{name, model, …, context_length}]}`. */
function loadedContextOf(json: unknown, model: string): unknown {
  if (!isRecord(json) || !Array.isArray(json.models)) return undefined;
  const wanted = withTag(model);
  const entry = json.models.find(
    (candidate) =>
      isRecord(candidate) &&
      [candidate.name, candidate.model].some((name) => typeof name === 'string' && withTag(name) === wanted),
  );
  return isRecord(entry) ? entry.context_length : undefined;
}

/** vLLM `/v1/models`: `{object: 'list', data: [{id, root, max_model_len, …}]}`. */
function maxModelLenOf(json: unknown, model: string): unknown {
  if (!isRecord(json) || !Array.isArray(json.data)) return undefined;
  const entry = json.data.find((candidate) => isRecord(candidate) && candidate.id === model);
  return isRecord(entry) ? entry.max_model_len : undefined;
}

/** llama.cpp `/props`: `{default_generation_settings: {n_ctx, …}, total_slots, …}`. */
function nCtxOf(json: unknown): unknown {
  if (!isRecord(json) || !isRecord(json.default_generation_settings)) return undefined;
  return json.default_generation_settings.n_ctx;
}

/** Ollama names without a tag mean `:latest`. */
function withTag(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

function plausible(value: unknown): number | undefined {
  return typeof value === 'number' &&
    Number.isInteger(value) &&
    value > 0 &&
    value <= MAX_PLAUSIBLE_CONTEXT_WINDOW
    ? value
    : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
