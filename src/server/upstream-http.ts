/** Headers and bodies between the proxy and an upstream. */
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
  'content-length',
  'content-encoding',
  // The proxy reads the answer, so it asks for it uncompressed.
  'accept-encoding',
  'cookie',
]);

/** The client's headers as the upstream gets them: its own credentials replaced by `auth`. */
export function forwardedHeaders(client: Headers, auth: Record<string, string>): Headers {
  const out = new Headers();
  client.forEach((value, name) => {
    if (NOT_FORWARDED.has(name) || CREDENTIAL_HEADERS.has(name) || name.startsWith('x-ctxkit-')) return;
    out.set(name, value);
  });
  for (const [name, value] of Object.entries(auth)) out.set(name, value);
  out.set('content-type', 'application/json');
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

export class UpstreamAnswerTooLargeError extends Error {
  constructor() {
    super(`the upstream's answer is larger than ${MAX_UPSTREAM_ANSWER_BYTES} bytes`);
  }
}

/** An answer's body as text, read up to MAX_UPSTREAM_ANSWER_BYTES. */
export async function readUpstreamText(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let bytes = 0;
  let text = '';
  for (;;) {
    const next = await reader.read();
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
export class UpstreamUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    const reason =
      (cause as { cause?: { code?: unknown } })?.cause?.code ?? (cause as Error)?.message ?? String(cause);
    super(`ctxkit proxy: the upstream ${new URL(url).origin} could not be reached (${String(reason)})`, {
      cause,
    });
  }
}
