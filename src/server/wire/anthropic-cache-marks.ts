/**
 * serve, Anthropic Messages: ctxkit's prompt-cache breakpoints on the upstream body when the client's
 * own request marked none. A client that set any `cache_control` (on a tool, a system block, a message
 * block, a tool result's content, or at the top level) chose its caching: the upstream body is left as
 * rendered, with no mark added, even where an edit of ctxkit's took one of the client's marks away.
 *
 * Where the marks go is placeAnthropicCacheMarks's (adapters/place-anthropic-cache-marks.ts), at most
 * four: the end of the tools and system, the last entry the conversation's earlier upstream requests
 * wrote inside the prefix shared with the previous one, the block before the largest one added since,
 * and the request's end. `memory` is one per proxy; a request is
 * recorded in it by `sent()`, to be called once the upstream's answer has begun.
 */
import { hasAnthropicCacheControl } from '../../adapters/anthropic-cache-blocks.ts';
import { placeAnthropicCacheMarks } from '../../adapters/place-anthropic-cache-marks.ts';
import type { CachePrefixMemory } from '../../core/cache/cache-prefix-memory.ts';
import { isRecord } from '../../core/is-record.ts';

export interface AnthropicCacheMarkRequest {
  /** The client's request body as it arrived (parsed). */
  clientBody: unknown;
  /** What this proxy sent upstream before: `createCachePrefixMemory()`, one per proxy. */
  memory: CachePrefixMemory;
  /** False (`serve --no-prompt-cache`): the body goes as rendered. Default true. */
  enabled?: boolean;
}

export interface MarkedUpstreamBody {
  /** The body to send upstream. */
  body: Record<string, unknown>;
  /** How many breakpoints ctxkit placed (0 when the client marked its own, or none fit). */
  placed: number;
  /** Records the request in `memory`: call once the upstream's answer has begun. */
  sent(): void;
}

export function withAnthropicCacheMarks(
  upstreamBody: Record<string, unknown>,
  request: AnthropicCacheMarkRequest,
): MarkedUpstreamBody {
  const unchanged = { body: upstreamBody, placed: 0, sent: () => undefined };
  if (request.enabled === false) return unchanged;
  if (isRecord(request.clientBody) && hasAnthropicCacheControl(request.clientBody)) return unchanged;
  const placed = placeAnthropicCacheMarks(upstreamBody, { memory: request.memory });
  if (placed.senderMarked) return unchanged;
  return { body: placed.body, placed: placed.breakpoints.length, sent: placed.remember };
}
