/** What the proxy tells the client of its own: the `x-ctxkit-*` headers, and refusals in the client's format. */

import {
  ContextBudgetError,
  InvalidInputError,
  InvalidMessageError,
  InvalidPolicyError,
  UnknownModelError,
} from '../core/errors/index.ts';
import { UNBOUNDED_WINDOW } from '../engine/call-context.ts';
import type { PrepareResult } from '../engine/context-manager.ts';
import { SESSION_HEADER } from './proxy-options.ts';
import type { WireFormat, WireRequest } from './wire/wire-format.ts';

/** Response headers that say what ctxkit did. */
export const RESPONSE_HEADERS = {
  session: SESSION_HEADER,
  inputTokens: 'x-ctxkit-input-tokens',
  tokensSaved: 'x-ctxkit-tokens-saved',
  edits: 'x-ctxkit-edits',
  contextWindow: 'x-ctxkit-context-window',
  /** Set on a request passed through unmanaged: the field by which the upstream keeps its history. */
  unmanaged: 'x-ctxkit-unmanaged',
} as const;

/**
 * `x-ctxkit-input-tokens` and `-tokens-saved` count the request sent and the client's own with one counter
 * (exact o200k), so a request forwarded unchanged saves 0.
 */
export function ctxkitHeaders(
  publicId: string,
  prepared: PrepareResult,
  clientTokens: number,
  sent: number,
): Record<string, string> {
  return {
    [RESPONSE_HEADERS.session]: publicId,
    [RESPONSE_HEADERS.inputTokens]: String(sent),
    [RESPONSE_HEADERS.tokensSaved]: String(Math.max(0, clientTokens - sent)),
    [RESPONSE_HEADERS.edits]: String(prepared.stats.edits),
    ...(prepared.stats.contextWindow !== UNBOUNDED_WINDOW && {
      [RESPONSE_HEADERS.contextWindow]: String(prepared.stats.contextWindow),
    }),
  };
}

/** What a client sends nested past the stack's depth. */
export const TOO_DEEP = 'the request is nested too deeply to read';

/** Input ctxkit refused (a message or a field it cannot take), as the client reads it. */
export function inputRefusal(error: unknown): string | undefined {
  if (error instanceof RangeError) return TOO_DEEP;
  if (InvalidInputError.isInstance(error) || InvalidMessageError.isInstance(error))
    return (error as Error).message;
  return undefined;
}

/** Why ctxkit cannot prepare this request (its reply reserve does not fit the window…), as the client reads it. */
export function requestRefusal(error: unknown, request: WireRequest): string | undefined {
  // The session's stored override, not this request, is what does not fit: answered as a 409 elsewhere.
  if (staleOverrideRefusal(error) !== undefined) return undefined;
  if (
    !ContextBudgetError.isInstance(error) &&
    !InvalidPolicyError.isInstance(error) &&
    !UnknownModelError.isInstance(error)
  )
    return undefined;
  const message = (error as Error).message.replace(/^budget\.maxOutputTokens/, 'max_tokens');
  return `ctxkit cannot fit this request to model ${JSON.stringify(request.model)}: ${message}`;
}

/**
 * A session whose stored policy override no longer fits the server's policy (the server's changed under
 * it), as a client reads it: the key, and how to mend it over REST. Undefined for any other error.
 */
export function staleOverrideRefusal(error: unknown): string | undefined {
  if (!InvalidPolicyError.isInstance(error)) return undefined;
  const sessionId = error.details.sessionId;
  if (typeof sessionId !== 'string') return undefined;
  // The store's id is the owner's digest and the client's id: the client knows only the latter.
  const publicId = sessionId.slice(sessionId.indexOf(':') + 1);
  return `the policy override of session ${JSON.stringify(publicId)} no longer fits this server's policy (${error.key}: ${String(error.details.overrideReason ?? error.details.reason)}); change it with PATCH /api/sessions/${encodeURIComponent(publicId)}/policy`;
}

/** Why each refusal was made, for the request log (a refusal is logged like a call). */
export const refusals = new WeakMap<Response, string>();

export function errorResponse(format: WireFormat, status: number, message: string, field?: string): Response {
  const response = new Response(JSON.stringify(format.errorBody(status, message, field)), {
    status,
    headers: { 'content-type': 'application/json' },
  });
  refusals.set(response, message);
  return response;
}

/** The reason a response built by `errorResponse` gives, for the log. */
export function refusalOf(response: Response): string | undefined {
  return refusals.get(response);
}
