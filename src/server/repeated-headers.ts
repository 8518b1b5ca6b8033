/**
 * ctxkit's own request headers are read once each. Fetch's `Headers` joins a header sent twice into one
 * value (`a, b`), so a session id sent twice would name a session nobody asked for, and a token sent
 * twice would be neither token: such a request is refused, saying which header, instead. Only the raw
 * request can tell a repeat from one value with a comma in it (`rawHeaders` on Node's incoming message,
 * which Hono's Node server passes as `c.env.incoming`).
 */
import { SESSION_HEADER, TOKEN_HEADER } from './proxy-options.ts';

/** Headers a request may carry at most once. */
export const SINGLE_VALUE_HEADERS: readonly string[] = [SESSION_HEADER, TOKEN_HEADER];

/**
 * Node's raw header list (`name, value, name, value, …`, repeats kept) of the request a Hono handler
 * serves; undefined when the app does not run on Node's HTTP server (nothing can be checked then).
 */
export function rawHeadersOf(env: unknown): readonly string[] | undefined {
  const incoming = (env as { incoming?: { rawHeaders?: unknown } } | undefined)?.incoming;
  const raw = incoming?.rawHeaders;
  return Array.isArray(raw) && raw.every((entry) => typeof entry === 'string') ? raw : undefined;
}

/** The first of `names` the raw headers carry more than once, with how often; undefined when none is. */
export function repeatedHeader(
  rawHeaders: readonly string[] | undefined,
  names: readonly string[] = SINGLE_VALUE_HEADERS,
): { name: string; times: number } | undefined {
  if (rawHeaders === undefined) return undefined;
  const counts = new Map<string, number>();
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index]?.toLowerCase();
    if (name !== undefined && names.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  for (const name of names) {
    const times = counts.get(name) ?? 0;
    if (times > 1) return { name, times };
  }
  return undefined;
}

/** Why a request with a repeated header is refused, as the client reads it. */
export function repeatedHeaderRefusal(repeated: { name: string; times: number }): string {
  return `${repeated.name} was sent ${repeated.times} times: send it once (repeated values are joined into one, which names nothing)`;
}
