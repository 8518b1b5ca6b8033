import { ModelCallAbortedError, ModelTimeoutError } from '../core/errors/index.ts';

/** A non-streaming completion with a large `max_tokens` can take minutes; past this, something is wrong. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;

/** The longest delay `setTimeout` takes (about 24.8 days): what a disabled timeout becomes for the SDKs. */
export const MAX_TIMER_MS = 2_147_483_647;

export interface ModelCallGuardOptions {
  /** Names the provider in errors (`openai-compatible`, `anthropic`). */
  provider: string;
  /** The endpoint, for the timeout's message. */
  url: string;
  /** The caller's signal. */
  signal?: AbortSignal | undefined;
  /** `0` or `Infinity` disables the timeout. */
  timeoutMs: number;
}

/**
 * One model call's cancellation: the caller's signal and the timeout both abort `signal` (handed to the
 * SDK, so the connection closes) and reject whatever `run` is waiting on, at once. Racing instead of
 * trusting the SDK and its `fetch` to honour the signal means an injected `fetch` that ignores signals
 * still cannot hang the call, and an abort is never mistaken for the end of a stream (the SDKs end a
 * stream quietly when their signal fires).
 */
export interface ModelCallGuard {
  /** Aborted when the call is cancelled or disposed. */
  readonly signal: AbortSignal;
  /**
   * `promise`, or the cancellation if it comes first. The timeout runs only while a `run` is pending: for
   * a stream it bounds the wait for the answer to begin and then for each next event, not the time the
   * caller spends between reads.
   */
  run<T>(promise: Promise<T>): Promise<T>;
  /**
   * The items of an SDK stream, each waited for through `run`; when the stream ends because the call was
   * cancelled (the SDKs end quietly when their signal fires), the cancellation is thrown instead.
   */
  each<T>(items: AsyncIterable<T>): AsyncGenerator<T>;
  /** The abort or timeout that cancelled the call, if one did. */
  readonly cancellation: ModelCallAbortedError | ModelTimeoutError | undefined;
  /** What the SDK's own per-attempt timeout should be: the guard's, or MAX_TIMER_MS when disabled. */
  readonly sdkTimeoutMs: number;
  /** Aborts what is still open (a stream the caller stopped reading) and detaches from the caller's signal. */
  dispose(): void;
}

/** Starts guarding a call; throws ModelCallAbortedError at once when the caller's signal is already aborted. */
export function guardModelCall(options: ModelCallGuardOptions): ModelCallGuard {
  const { provider, url, signal, timeoutMs } = options;
  if (signal?.aborted) throw new ModelCallAbortedError(provider, signal.reason);

  const controller = new AbortController();
  let cancellation: ModelCallAbortedError | ModelTimeoutError | undefined;
  let reject: (error: Error) => void = () => {};
  const cancelled = new Promise<never>((_, fail) => {
    reject = fail;
  });
  // A run may settle through its own promise; this keeps the unused rejection from being "unhandled".
  cancelled.catch(() => {});

  const cancel = (error: ModelCallAbortedError | ModelTimeoutError) => {
    if (cancellation) return;
    cancellation = error;
    reject(error);
    controller.abort(error);
  };
  const onAbort = () => cancel(new ModelCallAbortedError(provider, signal?.reason));
  signal?.addEventListener('abort', onAbort, { once: true });
  const timed = timeoutMs > 0 && Number.isFinite(timeoutMs);

  return {
    signal: controller.signal,
    get cancellation() {
      return cancellation;
    },
    sdkTimeoutMs: timed ? Math.min(timeoutMs, MAX_TIMER_MS) : MAX_TIMER_MS,
    run<T>(promise: Promise<T>): Promise<T> {
      promise.catch(() => {});
      if (cancellation) return Promise.reject(cancellation);
      const timer = timed
        ? setTimeout(() => cancel(new ModelTimeoutError(provider, timeoutMs, url)), timeoutMs)
        : undefined;
      return Promise.race([promise, cancelled]).finally(() => {
        if (timer !== undefined) clearTimeout(timer);
      });
    },
    async *each<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
      const iterator = items[Symbol.asyncIterator]();
      for (;;) {
        const next = await this.run(iterator.next());
        if (next.done) break;
        yield next.value;
      }
      if (cancellation) throw cancellation;
    },
    dispose() {
      signal?.removeEventListener('abort', onAbort);
      if (!controller.signal.aborted) controller.abort();
    },
  };
}
