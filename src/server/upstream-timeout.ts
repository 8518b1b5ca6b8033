/**
 * How long the proxy waits on a silent upstream: for the answer to begin (its status and headers), then
 * between any two pieces of its body, so a stream that stalls halfway is cut as surely as a request
 * nobody answers. A wait past the limit ends the upstream request (its connection freed) with an
 * `UpstreamTimeoutError`: a 504 in the client's format before any byte reached it, an error event in its
 * stream after.
 */
import { type CtxkitErrorOptions, type ErrorCode, InvalidInputError } from '../core/errors/index.ts';
import { MAX_TIMER_MS } from '../providers/model-call-guard.ts';
import { UpstreamError } from './upstream-http.ts';

/** The codes Node's fetch (undici) fails with when it stopped waiting itself. */
const FETCH_TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** The upstream sent nothing for longer than the proxy waits. */
export class UpstreamTimeoutError extends UpstreamError {
  static override readonly code: ErrorCode = 'upstream_timeout';
  override readonly code: ErrorCode = 'upstream_timeout';
  /** How long it waited, in milliseconds. */
  readonly waitedMs: number;

  constructor(waitedMs: number, answering: boolean, options?: CtxkitErrorOptions) {
    super(
      `ctxkit proxy: the upstream sent nothing for ${formatSeconds(waitedMs)} ${answering ? 'in the middle of its answer' : 'after the request'} (--upstream-timeout)`,
      options,
      { waitedMs, answering },
    );
    this.waitedMs = waitedMs;
  }
}

/** The UpstreamTimeoutError an error is, or was caused by (the proxy wraps upstream failures); else undefined. */
export function upstreamTimeoutIn(error: unknown): UpstreamTimeoutError | undefined {
  const seen = new Set<unknown>();
  for (let current = error; current !== undefined && !seen.has(current); current = causeOf(current)) {
    if (UpstreamTimeoutError.isInstance(current)) return current;
    seen.add(current);
  }
  return undefined;
}

/**
 * `fetcher` with a limit on the upstream's silence: `timeoutMs` for the response to arrive, and again for
 * each read of its body. The caller's own signal still cancels as before.
 */
export function withUpstreamTimeout(fetcher: typeof fetch, timeoutMs: number): typeof fetch {
  // A timer past 2^31 - 1 ms would fire at once.
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_TIMER_MS)
    throw new InvalidInputError(
      `must be a number of milliseconds from 1 to ${MAX_TIMER_MS}, got ${timeoutMs}`,
      {
        field: 'upstreamTimeoutMs',
      },
    );
  return async (input, init) => {
    const timeout = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout.signal]) : timeout.signal;
    const started = performance.now();
    let response: Response;
    try {
      response = await within(fetcher(input, { ...init, signal }), timeoutMs, () =>
        expire(timeout, new UpstreamTimeoutError(timeoutMs, false)),
      );
    } catch (error) {
      throw asTimeout(error, started, false);
    }
    // A body that cannot carry bytes (204, 304) has nothing to wait for.
    if (response.body === null) return response;
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const waiting = performance.now();
        try {
          const next = await within(reader.read(), timeoutMs, () => {
            const error = expire(timeout, new UpstreamTimeoutError(timeoutMs, true));
            reader.cancel(error).catch(() => undefined);
            return error;
          });
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        } catch (error) {
          controller.error(asTimeout(error, waiting, true));
        }
      },
      async cancel(reason) {
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** Ends the upstream request (so its connection is freed) and returns the error it ended with. */
function expire(timeout: AbortController, error: UpstreamTimeoutError): UpstreamTimeoutError {
  timeout.abort(error);
  return error;
}

/**
 * `promise`, or the error `expired()` returns once `ms` pass first. Not left to the signal alone: a
 * `fetch` passed in may not honour it, and the wait must end all the same.
 */
function within<T>(promise: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(expired()), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** Node's fetch stopping on its own limit reads as the proxy's timeout; any other error stays as it is. */
function asTimeout(error: unknown, since: number, answering: boolean): unknown {
  if (upstreamTimeoutIn(error)) return error;
  const code =
    (causeOf(error) as { code?: unknown } | undefined)?.code ?? (error as { code?: unknown })?.code;
  if (typeof code === 'string' && FETCH_TIMEOUT_CODES.has(code))
    return new UpstreamTimeoutError(performance.now() - since, answering, { cause: error });
  return error;
}

function causeOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { cause?: unknown }).cause : undefined;
}

/** `300 s`, `1.5 s`: whole seconds when the wait is one. */
function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}
