import { APICallError as APICallError4 } from '@ai-sdk/provider';
import { APICallError as APICallError3 } from '@ai-sdk/provider-v3';
import { describe, expect, it } from 'vitest';
import { isContextOverflow } from '../../providers/is-context-overflow.ts';
import { openAIOverflowError, openAIRateLimitError } from './testing/ai-sdk-testing.ts';

describe.each([
  { provider: '@ai-sdk/provider 4 (AI SDK 7)', APICallError: APICallError4 },
  { provider: '@ai-sdk/provider 3 (AI SDK 6)', APICallError: APICallError3 },
])('isContextOverflow on the APICallError of $provider', ({ APICallError }) => {
  const apiCallError = (statusCode: number, message: string, body: unknown) =>
    new APICallError({
      message,
      url: 'https://api.example.com/v1/messages',
      requestBodyValues: {},
      statusCode,
      responseBody: JSON.stringify(body),
      isRetryable: statusCode === 429 || statusCode >= 500,
      data: body,
    });

  it("recognizes the APICallError @ai-sdk/openai throws for OpenAI's 400 context_length_exceeded", () => {
    const error = openAIOverflowError();
    expect(isContextOverflow(error)).toBe(true);
    expect(
      isContextOverflow(
        new APICallError({
          message: error.message,
          url: error.url,
          requestBodyValues: {},
          statusCode: 400,
          ...(error.responseBody !== undefined && { responseBody: error.responseBody }),
          isRetryable: false,
          data: error.data,
        }),
      ),
    ).toBe(true);
  });

  it("recognizes Anthropic's 400 prompt is too long", () => {
    const body = {
      type: 'error',
      error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
    };
    expect(isContextOverflow(apiCallError(400, body.error.message, body))).toBe(true);
  });

  it('reads the response body when the message is generic', () => {
    const body = {
      error: { message: 'Invalid request', type: 'invalid_request_error', code: 'context_length_exceeded' },
    };
    expect(isContextOverflow(apiCallError(400, 'Bad Request', body))).toBe(true);
  });

  it('never takes a rate limit, an auth failure or another 400 for an overflow', () => {
    expect(isContextOverflow(openAIRateLimitError())).toBe(false);
    expect(
      isContextOverflow(
        apiCallError(429, openAIRateLimitError().message, { error: { code: 'rate_limit_exceeded' } }),
      ),
    ).toBe(false);
    const tooManyTokensPerMinute = apiCallError(429, 'Too many tokens, please wait', {
      error: { code: 'context_length_exceeded' },
    });
    expect(isContextOverflow(tooManyTokensPerMinute)).toBe(false);
    expect(
      isContextOverflow(
        apiCallError(401, 'Incorrect API key provided', { error: { code: 'invalid_api_key' } }),
      ),
    ).toBe(false);
    expect(
      isContextOverflow(apiCallError(400, 'Invalid tool schema', { error: { code: 'invalid_value' } })),
    ).toBe(false);
    expect(isContextOverflow(new Error('fetch failed'))).toBe(false);
  });
});
