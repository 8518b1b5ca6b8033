/**
 * Who a request is from, and which key goes upstream. With tokens configured, the client presents one
 * (`x-ctxkit-token`, or as its API key: `Authorization: Bearer …` / `x-api-key`); a token given as the
 * API key is not sent upstream, the configured upstream key is. Without tokens, the client's own key
 * identifies it. Either way the owner is a digest: no key or token is kept anywhere.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { TOKEN_HEADER } from './proxy-options.ts';
import type { CredentialFamily } from './wire/wire-format.ts';

export interface ClientIdentity {
  /** The owner of the sessions this request may use: a digest of the token (or the client's key). */
  owner: string;
  /** Headers to send upstream for authentication (the client's own, or the configured key). */
  upstreamAuth: Record<string, string>;
}

export type IdentityResult = { identity: ClientIdentity } | { refused: string };

/** Headers that carry credentials: never forwarded as they came, never logged. */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set(['authorization', 'x-api-key', TOKEN_HEADER]);

export function identifyClient(
  headers: Headers,
  format: CredentialFamily,
  tokens: readonly string[],
  upstreamKey: string | undefined,
): IdentityResult {
  const bearer = bearerOf(headers.get('authorization'));
  const apiKey = headers.get('x-api-key') ?? undefined;
  const explicit = headers.get(TOKEN_HEADER) ?? undefined;
  const configuredAuth = upstreamKey === undefined ? {} : authHeaders(format, upstreamKey);

  if (tokens.length === 0) {
    const clientKey = bearer ?? apiKey;
    const clientAuth: Record<string, string> = {};
    if (bearer !== undefined) clientAuth.authorization = `Bearer ${bearer}`;
    if (apiKey !== undefined) clientAuth['x-api-key'] = apiKey;
    return {
      identity: {
        owner: clientKey === undefined ? 'local' : digest('key', clientKey),
        upstreamAuth: clientKey === undefined ? configuredAuth : clientAuth,
      },
    };
  }

  const presented = [explicit, bearer, apiKey].find(
    (value) => value !== undefined && matchesAny(value, tokens),
  );
  if (presented === undefined)
    return {
      refused: `this ctxkit proxy needs a token: send it as ${TOKEN_HEADER}, or as the API key (Authorization: Bearer … or x-api-key)`,
    };
  // The client's own key still goes upstream when it sent one beside the token.
  const clientAuth: Record<string, string> = {};
  if (bearer !== undefined && bearer !== presented) clientAuth.authorization = `Bearer ${bearer}`;
  if (apiKey !== undefined && apiKey !== presented) clientAuth['x-api-key'] = apiKey;
  return {
    identity: {
      owner: digest('token', presented),
      upstreamAuth: Object.keys(clientAuth).length > 0 ? clientAuth : configuredAuth,
    },
  };
}

function authHeaders(format: CredentialFamily, key: string): Record<string, string> {
  return format === 'anthropic' ? { 'x-api-key': key } : { authorization: `Bearer ${key}` };
}

function bearerOf(value: string | null): string | undefined {
  if (value === null) return undefined;
  const match = /^\s*Bearer\s+(.+?)\s*$/i.exec(value);
  return match?.[1];
}

function digest(kind: string, secret: string): string {
  return `${kind[0]}${createHash('sha256').update(`ctxkit-owner\n${kind}\n${secret}`).digest('hex').slice(0, 20)}`;
}

function matchesAny(value: string, tokens: readonly string[]): boolean {
  const given = createHash('sha256').update(value).digest();
  let found = false;
  for (const token of tokens) {
    // Compared as digests in constant time, so the comparison says nothing about how much matched.
    if (timingSafeEqual(given, createHash('sha256').update(token).digest())) found = true;
  }
  return found;
}
