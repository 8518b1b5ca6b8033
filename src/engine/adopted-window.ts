import type { Policy } from '../core/policy/policy-schema.ts';
import type { FixedRegionMemo, PrepareRequest } from './call-context.ts';
import type { AdoptedWindow } from './layer-progress.ts';

/**
 * The request with the window an overflow error named for its model, when it asks for more (or for
 * nothing, and the profile or the last request would give more): a provider that said "the maximum
 * context length is 8192 tokens" is not sent more again, whichever door prepares the call.
 */
export function withAdoptedWindow(
  request: PrepareRequest,
  adopted: AdoptedWindow | undefined,
  memo: FixedRegionMemo,
  policy: Policy,
): PrepareRequest {
  if (adopted === undefined) return request;
  const model = request.model ?? memo.request?.model ?? policy.model;
  if (model !== adopted.model) return request;
  const asked = request.contextWindow ?? memo.request?.contextWindow;
  if (asked !== undefined && asked <= adopted.contextWindow) return request;
  return { ...request, contextWindow: adopted.contextWindow };
}
