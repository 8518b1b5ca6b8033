/**
 * The checks the real APIs make before anything else, so a client that forgets a required field fails
 * against the fake as it would against the provider, with the provider's error. Only what every
 * compatible server also requires is checked: no auth (local servers take none), no schema. An Anthropic
 * request must also keep the API's rules (anthropic-request-rules.ts): tool calls paired with their
 * results, no empty content, at most four cache breakpoints, and, with a signer, thinking blocks exactly
 * as they were issued.
 */
import { anthropicRuleViolation } from './anthropic-request-rules.ts';
import type { HttpReply, RecordedRequest } from './fake-provider-server-types.ts';
import type { ThinkingSigner } from './thinking-signer.ts';

export function validateRequest(
  request: RecordedRequest,
  options: { signer?: ThinkingSigner | undefined } = {},
): HttpReply | undefined {
  const body = request.body;
  if (request.format === 'anthropic') {
    if (request.headers['anthropic-version'] === undefined)
      return anthropic('anthropic-version: header is required');
    if (!isRecord(body)) return anthropic('The request body is not valid JSON.');
    if (typeof body.model !== 'string') return anthropic('model: Field required');
    if (!Array.isArray(body.messages)) return anthropic('messages: Field required');
    if (typeof body.max_tokens !== 'number') return anthropic('max_tokens: Field required');
    const broken = anthropicRuleViolation(body, options.signer ? { signer: options.signer } : {});
    return broken === undefined ? undefined : anthropic(broken);
  }
  if (request.format === 'openai') {
    if (!isRecord(body)) return openAI('We could not parse the JSON body of your request.', null, null);
    if (typeof body.model !== 'string') return openAI('you must provide a model parameter', null, null);
    if (!Array.isArray(body.messages)) {
      return openAI("Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
    }
  }
  return undefined;
}

function anthropic(message: string): HttpReply {
  return { status: 400, body: { type: 'error', error: { type: 'invalid_request_error', message } } };
}

function openAI(message: string, param: string | null, code: string | null): HttpReply {
  return { status: 400, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
