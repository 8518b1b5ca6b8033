/**
 * `GET /healthz`: the server is up and its session store answers. The store is asked something cheap
 * (one listing, or the load of an id no session has) and given `HEALTH_TIMEOUT_MS` to answer.
 */
import type { SessionStore } from '../store/session-store.ts';

/** How long the store has to answer the health check. */
export const HEALTH_TIMEOUT_MS = 1_000;
/** The id loaded when the store cannot list: no session has it. */
const SENTINEL_ID = 'ctxkit-healthz-sentinel';
/** The longest error text a health answer carries. */
const MAX_ERROR_CHARS = 200;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is escaped
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

export type HealthResult = { ok: true } | { ok: false; error: string };

export async function checkHealth(store: SessionStore, timeoutMs = HEALTH_TIMEOUT_MS): Promise<HealthResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    timer.unref();
  });
  try {
    const asked = typeof store.list === 'function' ? store.list({ limit: 1 }) : store.load(SENTINEL_ID);
    await Promise.race([asked, timedOut]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: `session store: ${describeStoreError(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A store error as a health answer may show it: its code and message, with any URL's credentials and
 * any `password=` value taken out, control characters escaped, and cut to a bounded length.
 */
export function describeStoreError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const text = `${typeof code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(code) ? `${code}: ` : ''}${message}`
    .replace(
      /[a-z][a-z0-9+.-]*:\/\/[^\s/@]*@/gi,
      (match) => `${match.slice(0, match.indexOf('://') + 3)}<credentials>@`,
    )
    .replace(/(password|passwd|pwd)\s*=\s*\S+/gi, '$1=<redacted>')
    .replace(CONTROL_CHARACTERS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text || 'failed';
}
