import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../core/errors/index.ts';
import { OVERFLOW_CASES, type OverflowCase } from './is-context-overflow.cases.ts';
import { isContextOverflow, NOT_OVERFLOW_STATUSES, parseOverflowTokens } from './is-context-overflow.ts';
import { modelCallErrorFrom } from './read-provider-error.ts';

/** A ModelCallError as the clients build it from a real (status, body) answer. */
function fromBody(status: number, body: unknown): ModelCallError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return modelCallErrorFrom('test', status, text, typeof body === 'string' ? undefined : body);
}

const openAI = (message: string, type: string, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});
const anthropic = (type: string, message: string) => ({
  type: 'error',
  error: { type, message },
  request_id: 'req_1',
});

/** The error as the caller meets it: through the clients when the status is known, else as quoted. */
function errorOf({ status, body }: OverflowCase): unknown {
  if (status !== undefined) return fromBody(status, body);
  return typeof body === 'string' ? new Error(body) : body;
}

/** The case's words as a proxy (LiteLLM) relays them: inside its own message, under its own status. */
function relayed({ body }: OverflowCase, status: number): ModelCallError {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return fromBody(status, {
    error: {
      message: `litellm.BadRequestError: OpenAIException - ${text}`,
      type: null,
      param: null,
      code: String(status),
    },
  });
}

const overflows = OVERFLOW_CASES.filter((row) => row.overflow);
const lookAlikes = OVERFLOW_CASES.filter((row) => !row.overflow);

describe('isContextOverflow on the development set', () => {
  it('covers the providers on both sides', () => {
    expect(overflows.length).toBeGreaterThanOrEqual(60);
    expect(lookAlikes.length).toBeGreaterThanOrEqual(45);
  });

  it.each(overflows)('$provider is an overflow', (row) => {
    expect(isContextOverflow(errorOf(row))).toBe(true);
  });

  it.each(lookAlikes)('$provider is not', (row) => {
    expect(isContextOverflow(errorOf(row))).toBe(false);
  });

  it.each(OVERFLOW_CASES.filter((row) => row.tokens !== undefined))('$provider: figures', (row) => {
    expect(parseOverflowTokens(errorOf(row))).toEqual(row.tokens);
  });
});

describe('isContextOverflow reads words, not statuses', () => {
  it.each(overflows)('$provider relayed by a proxy as 500 or 422 is still an overflow', (row) => {
    expect(isContextOverflow(relayed(row, 500))).toBe(true);
    expect(isContextOverflow(relayed(row, 422))).toBe(true);
  });

  // A look-alike told apart by its status alone (a 402 that reads like an overflow) has nothing else to go on.
  it.each(lookAlikes.filter((row) => row.status === undefined || !NOT_OVERFLOW_STATUSES.has(row.status)))(
    '$provider relayed by a proxy as 400 is still not',
    (row) => {
      expect(isContextOverflow(relayed(row, 400))).toBe(false);
    },
  );

  it('takes a code it has never seen when its words say it', () => {
    for (const code of [
      'model_max_prompt_tokens_exceeded',
      'tokens_limit_reached',
      'max_prompt_tokens_exceeded',
      'input_too_long',
      'PromptTooLong',
      'CONTEXT_OVERFLOW',
      'context_limit_reached',
      'InputTokensExceeded',
    ]) {
      expect(isContextOverflow({ status: 400, code, message: 'Bad request' }), code).toBe(true);
    }
    for (const code of [
      'max_tokens_exceeded',
      'string_above_max_length',
      'rate_limit_exceeded',
      'integer_above_max_value',
      'image_too_large',
      'file_too_large',
      'budget_exceeded',
      'DEADLINE_EXCEEDED',
    ]) {
      expect(isContextOverflow({ status: 400, code, message: 'Bad request' }), code).toBe(false);
    }
  });

  it('reads an overflow under any status but the vetoed ones', () => {
    const message = 'The prompt is longer than the model allows: 9000 tokens requested, 8192 maximum.';
    for (const status of [400, 413, 422, 500, 502, 503])
      expect(isContextOverflow({ status, message })).toBe(true);
    for (const status of [401, 402, 403, 429]) expect(isContextOverflow({ status, message })).toBe(false);
  });

  it('a veto in one text of the error holds for all of it', () => {
    expect(
      isContextOverflow({
        status: 400,
        message: 'prompt is too long: 210000 tokens > 200000 maximum',
        error: { code: 'rate_limit_exceeded' },
      }),
    ).toBe(false);
  });

  it('an overflow that asks to try again with a shorter prompt is not taken for a rate limit', () => {
    expect(
      isContextOverflow(
        new Error('Your prompt exceeds the context window. Please try again with a shorter prompt.'),
      ),
    ).toBe(true);
    expect(isContextOverflow(new Error('Please try again later with a shorter prompt.'))).toBe(true);
  });

  it('stays linear on hostile input of a megabyte', () => {
    const megabyte = 1 << 20;
    for (const hostile of [
      '1'.repeat(megabyte),
      '1,000,'.repeat(megabyte / 6),
      'prompt '.repeat(megabyte / 7),
      'prompt is too '.repeat(megabyte / 14),
      'exceeds the '.repeat(megabyte / 12),
      'tokens > '.repeat(megabyte / 9),
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAaaaa'.repeat(megabyte / 44),
      '<a'.repeat(megabyte / 2),
      'prompt 9 limit 10 '.repeat(megabyte / 18),
      '"message": "x", '.repeat(megabyte / 16),
      'input length and '.repeat(megabyte / 17),
      `${'x'.repeat(megabyte)} prompt is too long`,
    ]) {
      const started = performance.now();
      isContextOverflow(new Error(hostile));
      parseOverflowTokens(hostile);
      expect(performance.now() - started, hostile.slice(0, 20)).toBeLessThan(2000);
    }
  });
});

describe('isContextOverflow on other inputs', () => {
  it("matches digitorn's patterns case-insensitively over message and code", () => {
    for (const text of [
      'MAXIMUM CONTEXT LENGTH reached',
      'error code: context_length_exceeded',
      'input exceeds the Context Window of this model',
      'Please reduce the length of the messages.',
      'too many tokens in the prompt',
      'Token limit exceeded for this model',
    ]) {
      expect(isContextOverflow(new Error(text))).toBe(true);
      expect(isContextOverflow(text)).toBe(true);
    }
    expect(isContextOverflow({ status: 400, code: 'CONTEXT_LENGTH_EXCEEDED', message: 'Bad request' })).toBe(
      true,
    );
  });

  it('reads errors thrown by other SDKs: status, nested error, AWS metadata and name', () => {
    // openai-node: err.status, err.error = body.error.
    expect(
      isContextOverflow({
        status: 400,
        error: {
          message: 'Your input exceeds the context window of this model.',
          code: 'context_length_exceeded',
        },
      }),
    ).toBe(true);
    // AWS SDK v3: name, $metadata.httpStatusCode.
    expect(
      isContextOverflow({
        name: 'ThrottlingException',
        message: 'Too many tokens, please wait before trying again.',
        $metadata: { httpStatusCode: 429 },
      }),
    ).toBe(false);
    expect(
      isContextOverflow({ name: 'ValidationException', message: 'Input is too long for requested model.' }),
    ).toBe(true);
    // A wrapped cause.
    expect(
      isContextOverflow(
        new Error('call failed', { cause: new Error('prompt is too long: 5 tokens > 4 maximum') }),
      ),
    ).toBe(true);
  });

  it('reads the AI SDK APICallError body and LangChain.js ContextOverflowError', () => {
    // @ai-sdk/provider APICallError: a generic message, the provider's words only in responseBody / data.
    const body = {
      error: { message: 'Bad Request', type: 'invalid_request_error', code: 'context_length_exceeded' },
    };
    expect(
      isContextOverflow({
        name: 'AI_APICallError',
        message: 'Bad Request',
        statusCode: 400,
        responseBody: JSON.stringify(body),
      }),
    ).toBe(true);
    expect(
      isContextOverflow({ name: 'AI_APICallError', message: 'Bad Request', statusCode: 400, data: body }),
    ).toBe(true);
    expect(
      isContextOverflow({
        name: 'AI_APICallError',
        message: 'Bad Request',
        statusCode: 400,
        responseBody: '{"error":{"message":"max_tokens is too large: 9000","code":"invalid_value"}}',
      }),
    ).toBe(false);
    // @langchain/core's ContextOverflowError, whatever its message.
    const langchain = Object.assign(new Error('Input exceeds what this deployment accepts.'), {
      name: 'ContextOverflowError',
    });
    expect(isContextOverflow(langchain)).toBe(true);
    expect(isContextOverflow({ name: 'ContextOverflowError', status: 429, message: 'slow down' })).toBe(
      false,
    );
  });

  it('knows the codes in every spelling: underscores, hyphens, spaces, any case', () => {
    for (const code of [
      'context_window_exceeded',
      'model_context_window_exceeded',
      'MODEL-CONTEXT-WINDOW-EXCEEDED',
      'Context Window Exceeded',
      'request_too_large',
      'request too large',
    ]) {
      expect(isContextOverflow({ status: 400, code, message: 'Bad request' }), code).toBe(true);
      expect(isContextOverflow(new Error(`stream failed: ${code}`)), code).toBe(true);
    }
  });

  it('never an overflow: asking for more output than a model allows, server errors, overload', () => {
    for (const error of [
      fromBody(
        400,
        openAI(
          'max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.',
          'invalid_request_error',
          null,
          'max_tokens',
        ),
      ),
      fromBody(
        400,
        anthropic(
          'invalid_request_error',
          'max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5',
        ),
      ),
      fromBody(500, openAI('The server had an error while processing your request.', 'server_error', null)),
      fromBody(503, 'Service Unavailable'),
      fromBody(529, anthropic('overloaded_error', 'Overloaded')),
    ])
      expect(isContextOverflow(error), error.message).toBe(false);
  });

  it('never calls 401/403/429 an overflow, whatever the text', () => {
    for (const status of [401, 403, 429]) {
      expect(isContextOverflow({ status, message: 'maximum context length is 10 tokens' })).toBe(false);
    }
  });

  it('is false for nothing in particular', () => {
    expect(isContextOverflow(undefined)).toBe(false);
    expect(isContextOverflow(new Error('socket hang up'))).toBe(false);
    expect(
      isContextOverflow(
        new ModelCallError('openai-compatible 500: The server had an error', { status: 500 }),
      ),
    ).toBe(false);
  });
});

describe('parseOverflowTokens on bare messages', () => {
  it.each([
    ['prompt is too long: 213,462 tokens > 200,000 maximum', { requested: 213462, limit: 200000 }],
    [
      "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
      { requested: 537812, limit: 131072 },
    ],
    ['Requested tokens (2285) exceed context window of 2048', { requested: 2285, limit: 2048 }],
    ["This model's maximum context length is 8192 tokens.", { limit: 8192 }],
    // Figures in other units are never a window in tokens (one adopted from them would be wrong).
    ['The conversation exceeds the maximum of 100 messages.', {}],
    ['Input is too long: 250000 characters exceeds the limit of 100000 characters.', {}],
    ['something else entirely', {}],
  ])('%s', (message, expected) => {
    expect(parseOverflowTokens(message)).toEqual(expected);
  });
});
