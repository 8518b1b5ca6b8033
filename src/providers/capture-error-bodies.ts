/**
 * A `fetch` for the SDKs that keeps the raw body of every non-2xx answer. The SDKs parse error bodies their
 * own way (openai-node keeps only `body.error`, so vLLM's top-level `{object: 'error', message}` loses its
 * message, and a proxy's HTML page becomes part of a sentence); overflow detection needs the body as the
 * provider sent it. The body is read once, kept, and handed to the SDK in an identical Response whose
 * `headers` object (which the SDKs put on their errors) is the key to find it again.
 */
export interface ErrorBodyCapture {
  readonly fetch: typeof fetch;
  /** The raw body of the failed answer whose headers these are, when this fetch saw it. */
  bodyOf(headers: unknown): string | undefined;
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

export function captureErrorBodies(inner: typeof fetch): ErrorBodyCapture {
  const bodies = new WeakMap<object, string>();
  const capturing = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await inner(input, init);
    if (response.ok || NULL_BODY_STATUSES.has(response.status)) return response;
    const text = await response.text();
    const copy = new Response(text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    bodies.set(copy.headers, text);
    return copy;
  };
  return {
    fetch: capturing as typeof fetch,
    bodyOf: (headers) =>
      typeof headers === 'object' && headers !== null ? bodies.get(headers as object) : undefined,
  };
}
