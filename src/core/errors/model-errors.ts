import { CtxkitError, type CtxkitErrorOptions } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** A failed model call: the HTTP status and the provider's error body, so overflow detection can read them. */
export class ModelCallError extends CtxkitError {
  static override readonly code: ErrorCode = 'model_call_failed';
  readonly status: number | undefined;
  readonly providerCode: string | undefined;
  /**
   * The provider's error `type` (`invalid_request_error`, `rate_limit_error`, Google's `status`…). Kept
   * apart from `providerCode` because OpenAI sends both and they disagree in kind: a TPM rate limit is
   * `type: 'tokens'`, `code: 'rate_limit_exceeded'`; Anthropic sends only a type.
   */
  readonly providerType: string | undefined;

  constructor(
    message: string,
    details: { status?: number; providerCode?: string; providerType?: string; body?: unknown } = {},
    options: CtxkitErrorOptions = {},
  ) {
    super('model_call_failed', message, details, options);
    this.status = details.status;
    this.providerCode = details.providerCode;
    this.providerType = details.providerType;
  }
}

/**
 * The call took longer than the client's timeout and was cancelled. Kept apart from ModelCallError so
 * the engine can tell "the provider said no" (status, body) from "nobody answered in time".
 */
export class ModelTimeoutError extends CtxkitError {
  static override readonly code: ErrorCode = 'model_timeout';
  readonly timeoutMs: number;

  constructor(provider: string, timeoutMs: number, url: string) {
    super('model_timeout', `${provider}: no response from ${url} within ${timeoutMs} ms`, {
      provider,
      timeoutMs,
      url,
    });
    this.timeoutMs = timeoutMs;
  }
}

/** The caller's AbortSignal fired: the call was cancelled on purpose, not failed; `reason` is the signal's. */
export class ModelCallAbortedError extends CtxkitError {
  static override readonly code: ErrorCode = 'model_call_aborted';
  readonly reason: unknown;

  constructor(provider: string, reason: unknown) {
    super(
      'model_call_aborted',
      `${provider}: call aborted${reason instanceof Error ? `: ${reason.message}` : ''}`,
      {
        provider,
      },
    );
    this.reason = reason;
  }
}

/** Why a summarizer gave up; stable strings so the engine and the trace can tell failures apart. */
export type SummarizerFailure =
  /** The model call threw (HTTP error, overflow, network, timeout). */
  | 'model_call_failed'
  /** The model answered with no text. */
  | 'empty_reply'
  /** `maxInputTokens` cannot even hold the fixed prompt. */
  | 'input_budget_too_small'
  /** The caller aborted through `signal`. */
  | 'aborted';

/**
 * A summarizer could not produce a summary. The engine catches it and falls back to the drop layer
 * (digitorn: truncate without a model call), so it carries the cause rather than a half-made summary.
 */
export class SummarizerError extends CtxkitError {
  static override readonly code: ErrorCode = 'summarizer_failed';
  readonly summarizer: string;
  readonly failure: SummarizerFailure;
  /** HTTP status of the failed model call, when there was one. */
  readonly status: number | undefined;
  /** The summarization call itself overflowed the summary model's window (its input bound is too high). */
  readonly overflow: boolean;

  /**
   * `overflow`: whether `cause` is a context overflow, as the summarizer judged it (overflow recognition is
   * the providers' and reads the whole error).
   */
  constructor(
    message: string,
    details: {
      summarizer: string;
      failure: SummarizerFailure;
      cause?: unknown;
      overflow?: boolean;
      [key: string]: unknown;
    },
  ) {
    const { cause, overflow = false, ...rest } = details;
    const status = ModelCallError.isInstance(cause) ? cause.status : undefined;
    const providerCode = ModelCallError.isInstance(cause) ? cause.providerCode : undefined;
    super('summarizer_failed', message, { ...rest, status, providerCode, overflow }, { cause });
    this.summarizer = details.summarizer;
    this.failure = details.failure;
    this.status = status;
    this.overflow = overflow;
  }
}
