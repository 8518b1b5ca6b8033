/** Headers and bodies between the proxy and an upstream. */
import { CtxkitError, type CtxkitErrorOptions, type ErrorCode } from '../core/errors/index.ts';
import { CREDENTIAL_HEADERS } from './client-identity.ts';
import { MAX_UPSTREAM_ANSWER_BYTES } from './proxy-options.ts';

/** Hop-by-hop headers and those the proxy sets itself: never copied from one side to the other. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  // `Expect: 100-continue` is between the client and the proxy (fetch refuses to send it on).
  'expect',
  'content-length',
  'content-encoding',
  // The proxy reads the answer, so it asks for it uncompressed.
  'accept-encoding',
  'cookie',
]);

/**
 * The client's headers as the upstream gets them: its own credentials replaced by `auth`. A model call's
 * body is JSON ctxkit wrote; a passed-through request keeps its own content type (`json: false`).
 */
export function forwardedHeaders(client: Headers, auth: Record<string, string>, json = true): Headers {
  const out = new Headers();
  client.forEach((value, name) => {
    if (NOT_FORWARDED.has(name) || CREDENTIAL_HEADERS.has(name) || name.startsWith('x-ctxkit-')) return;
    out.set(name, value);
  });
  for (const [name, value] of Object.entries(auth)) out.set(name, value);
  if (json) out.set('content-type', 'application/json');
  return out;
}

/** The upstream's response headers as the client gets them. */
export function responseHeaders(upstream: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  upstream.forEach((value, name) => {
    if (NOT_FORWARDED.has(name) || name === 'set-cookie') return;
    out[name] = value;
  });
  return out;
}

/** The upstream failed in a way the client should read as a bad gateway (502), in its own format. */
export class UpstreamError extends CtxkitError {
  static override readonly code: ErrorCode = 'upstream_failed';
  constructor(message: string, options: CtxkitErrorOptions = {}, details: Record<string, unknown> = {}) {
    super('upstream_failed', message, details, options);
  }
}

export class UpstreamAnswerTooLargeError extends UpstreamError {
  static override readonly code: ErrorCode = 'upstream_answer_too_large';
  override readonly code: ErrorCode = 'upstream_answer_too_large';
  constructor() {
    const limit = MAX_UPSTREAM_ANSWER_BYTES;
    super(`the upstream's answer is larger than ${limit} bytes`, {}, { limit });
  }
}

/**
 * The upstream's answer ended before its format says an answer is whole (an empty or unparseable body, a
 * stream without its end marker): a connection closed early looks like a clean end, and must not reach
 * the client as a complete answer.
 */
export class UpstreamAnswerCutOffError extends UpstreamError {
  static override readonly code: ErrorCode = 'upstream_answer_cut_off';
  override readonly code: ErrorCode = 'upstream_answer_cut_off';

  /** `detail`: what was missing, in the proxy's own words (never the upstream's text). */
  constructor(detail: string) {
    super(`ctxkit proxy: the upstream's answer was cut off (${detail})`, {}, { detail });
  }
}

/** An answer's body as text, read up to MAX_UPSTREAM_ANSWER_BYTES; a body cut off is an UpstreamError. */
export async function readUpstreamText(response: Response, signal?: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch (error) {
      // One the fetch raised itself (the upstream went silent) says what happened already.
      if (signal?.aborted || UpstreamError.isInstance(error)) throw error;
      throw new UpstreamError(`the upstream broke off its answer${codeOf(error)}`, { cause: error });
    }
    if (next.done) break;
    bytes += next.value.byteLength;
    if (bytes > MAX_UPSTREAM_ANSWER_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new UpstreamAnswerTooLargeError();
    }
    text += decoder.decode(next.value, { stream: true });
  }
  return text + decoder.decode();
}

/** The upstream could not be reached (refused, reset, DNS): the client gets a 502 saying so. */
export class UpstreamUnreachableError extends UpstreamError {
  static override readonly code: ErrorCode = 'upstream_unreachable';
  override readonly code: ErrorCode = 'upstream_unreachable';
  constructor(url: string, cause: unknown) {
    super(`ctxkit proxy: the upstream ${new URL(url).origin} could not be reached${codeOf(cause)}`, {
      cause,
    });
  }
}

/** ` (ECONNREFUSED)`: the system's code for a network failure, never its message (it may quote input). */
function codeOf(error: unknown): string {
  const code =
    (error as { cause?: { code?: unknown }; code?: unknown })?.cause?.code ??
    (error as { code?: unknown })?.code;
  return typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : '';
}
