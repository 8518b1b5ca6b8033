import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../core/errors/index.ts';
import { isContextOverflow, type OverflowTokens, parseOverflowTokens } from './is-context-overflow.ts';
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

interface Row {
  name: string;
  /** Where the text was seen (issue threads quote the providers' bodies verbatim). */
  source: string;
  status: number;
  body: unknown;
  overflow: boolean;
  tokens?: OverflowTokens;
}

const rows: Row[] = [
  // ---------------------------------------------------------------- overflows
  {
    name: 'OpenAI context_length_exceeded, messages only',
    source: 'github.com/chathub-dev/chathub/issues/126',
    status: 400,
    body: openAI(
      "This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.",
      'invalid_request_error',
      'context_length_exceeded',
      'messages',
    ),
    overflow: true,
    tokens: { requested: 4294, limit: 4097 },
  },
  {
    name: 'OpenAI, messages + functions',
    source: 'github.com/bytedance/deer-flow/issues/310',
    status: 400,
    body: openAI(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.",
      'invalid_request_error',
      'context_length_exceeded',
      'messages',
    ),
    overflow: true,
    tokens: { requested: 202868, limit: 128000 },
  },
  {
    name: 'OpenAI (legacy wording), messages + completion',
    source: 'github.com/The-Vibe-Company/quivr/issues/505',
    status: 400,
    body: openAI(
      "This model's maximum context length is 4097 tokens. However, you requested 4203 tokens (3703 in the messages, 500 in the completion). Please reduce the length of the messages or completion.",
      'invalid_request_error',
      null,
    ),
    overflow: true,
    tokens: { requested: 4203, limit: 4097, completion: 500 },
  },
  {
    name: 'DeepSeek (code = invalid_request_error)',
    source: 'github.com/evalstate/fast-agent/issues/621',
    status: 400,
    body: openAI(
      "This model's maximum context length is 131072 tokens. However, you requested 131134 tokens (122942 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
      'invalid_request_error',
      'invalid_request_error',
    ),
    overflow: true,
    tokens: { requested: 131134, limit: 131072, completion: 8192 },
  },
  {
    name: 'vLLM (object: error, numeric code)',
    source: 'github.com/meta-llama/llama-verifications/issues/58',
    status: 400,
    body: {
      object: 'error',
      message:
        "This model's maximum context length is 131072 tokens. However, you requested 156632 tokens (152536 in the messages, 4096 in the completion). Please reduce the length of the messages or completion.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    overflow: true,
    tokens: { requested: 156632, limit: 131072, completion: 4096 },
  },
  {
    name: 'vLLM (newer wording: input + max_tokens)',
    source: 'github.com/vllm-project/vllm/pull/33425',
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 2048 tokens. However, your request has 8 input tokens plus 2045 'max_tokens'. Please reduce one or the other. (parameter=input_tokens, max_tokens, value=(8, 2045))",
        type: 'BadRequestError',
        param: 'input_tokens, max_tokens',
        code: 400,
      },
    },
    overflow: true,
    tokens: { requested: 2053, limit: 2048, completion: 2045 },
  },
  {
    name: 'OpenRouter',
    source: 'github.com/OpenHands/OpenHands/issues/9937',
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          'This endpoint\'s maximum context length is 131072 tokens. However, you requested about 138956 tokens (7884 of text input, 131072 in the output). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
      },
    },
    overflow: true,
    tokens: { requested: 138956, limit: 131072, completion: 131072 },
  },
  {
    name: 'Anthropic prompt is too long',
    source: 'github.com/anthropics/claude-code/issues/12186',
    status: 400,
    body: anthropic('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
    overflow: true,
    tokens: { requested: 208310, limit: 200000 },
  },
  {
    name: 'Anthropic input + max_tokens over the window',
    source: 'github.com/docker/docker-agent/issues/569',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'input length and `max_tokens` exceed context limit: 178959 + 64000 > 200000, decrease input length or `max_tokens` and try again',
    ),
    overflow: true,
    tokens: { requested: 242959, limit: 200000, completion: 64000 },
  },
  {
    name: 'Anthropic 413 request_too_large',
    source: 'docs.claude.com/en/api/errors',
    status: 413,
    body: anthropic('request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
    overflow: true,
    tokens: {},
  },
  {
    name: '413 from a proxy, HTML body',
    source: 'any reverse proxy (nginx client_max_body_size)',
    status: 413,
    body: '<html><head><title>413 Request Entity Too Large</title></head></html>',
    overflow: true,
    tokens: {},
  },
  {
    name: 'Google Gemini',
    source: 'github.com/google-gemini/gemini-cli/issues/6678',
    status: 400,
    body: [
      {
        error: {
          code: 400,
          message: 'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).',
          errors: [{ message: '…', domain: 'global', reason: 'badRequest' }],
          status: 'INVALID_ARGUMENT',
        },
      },
    ],
    overflow: true,
    tokens: { requested: 1200293, limit: 1048576 },
  },
  {
    name: 'llama.cpp server',
    source: 'github.com/ggml-org/llama.cpp/pull/15780',
    status: 500,
    body: {
      error: {
        code: 500,
        message:
          'the request exceeds the available context size. try increasing the context size or enable context shift',
        type: 'exceed_context_size_error',
        n_prompt_tokens: 1407,
        n_ctx: 256,
      },
    },
    overflow: true,
    tokens: { requested: 1407, limit: 256 },
  },
  {
    name: 'Ollama with truncate:false (llama.cpp error inside a string)',
    source: 'Ollama /api/chat measured, quoted in a public research note',
    status: 400,
    body: {
      error:
        '{"error":{"code":400,"message":"request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":8889,"n_ctx":4096}}',
    },
    overflow: true,
    tokens: { requested: 8889, limit: 4096 },
  },
  {
    name: 'Ollama native',
    source: 'github.com/nano-step/nano-brain/issues/208',
    status: 400,
    body: { error: 'the input length exceeds the context length' },
    overflow: true,
    tokens: {},
  },
  {
    name: 'MLX server (omlx)',
    // The message is from the server's log; the body shape around it is assumed OpenAI-like.
    source: 'github.com/jundot/omlx/issues/169',
    status: 400,
    body: { error: { message: 'Prompt too long: 51587 tokens exceeds max context window of 32768 tokens' } },
    overflow: true,
    tokens: { requested: 51587, limit: 32768 },
  },
  // ---------------------------------------------------------------- not overflows
  {
    name: 'OpenAI 429 TPM rate limit (mentions tokens)',
    source: 'github.com/BuilderIO/micro-agent/issues/86',
    status: 429,
    body: openAI(
      'Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29937, Requested 385. Please try again in 644ms.',
      'tokens',
      'rate_limit_exceeded',
    ),
    overflow: false,
  },
  {
    name: 'OpenAI 429 "Request too large" for TPM (says tokens must be reduced)',
    source: 'github.com/Aider-AI/aider/issues/1880',
    status: 429,
    body: openAI(
      'Request too large for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully.',
      'tokens',
      'rate_limit_exceeded',
    ),
    overflow: false,
  },
  {
    name: 'OpenAI 429 insufficient_quota',
    source: 'github.com/cursor/cursor/issues/1293',
    status: 429,
    body: openAI(
      'You exceeded your current quota, please check your plan and billing details.',
      'insufficient_quota',
      'insufficient_quota',
    ),
    overflow: false,
  },
  {
    name: 'Anthropic 429 input tokens per minute (says reduce the prompt length)',
    source: 'github.com/continuedev/continue/issues/9623',
    status: 429,
    body: anthropic(
      'rate_limit_error',
      'This request would exceed the rate limit for your organization (x) of 30,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.',
    ),
    overflow: false,
  },
  {
    name: 'Anthropic rate limit relayed by a proxy as 400',
    source: 'github.com/FoundationAgents/OpenManus/issues/746',
    status: 400,
    body: {
      error: {
        code: 'rate_limit_error',
        message:
          'This request would exceed the rate limit for your organization of 20,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.',
        type: 'invalid_request_error',
        param: null,
      },
    },
    overflow: false,
  },
  {
    name: 'Bedrock throttling "Too many tokens" relayed by an OpenAI-compatible proxy without its 429',
    source: 'github.com/ranxianglei/billion-context-pi/issues/169, github.com/anomalyco/opencode/pull/39621',
    status: 400,
    body: { message: 'Too many tokens, please wait before trying again.' },
    overflow: false,
  },
  {
    name: 'OpenAI 401 invalid_api_key',
    source: 'github.com/continuedev/continue/issues/9634',
    status: 401,
    body: openAI(
      'Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys.',
      'invalid_request_error',
      'invalid_api_key',
    ),
    overflow: false,
  },
  {
    name: 'Anthropic 401',
    source: 'docs.claude.com/en/api/errors',
    status: 401,
    body: anthropic('authentication_error', 'invalid x-api-key'),
    overflow: false,
  },
  {
    name: 'Anthropic 529 overloaded',
    source: 'docs.claude.com/en/api/errors',
    status: 529,
    body: anthropic('overloaded_error', 'Overloaded'),
    overflow: false,
  },
  {
    name: 'Anthropic max_tokens above the model output cap (an output limit, not the window)',
    source: 'github.com/ChatGPTNextWeb/NextChat/issues/4964',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620',
    ),
    overflow: false,
  },
  {
    name: 'OpenAI unsupported max_tokens on a reasoning model',
    source: 'github.com/openai/openai-python/issues/2046',
    status: 400,
    body: openAI(
      "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
      'invalid_request_error',
      'unsupported_parameter',
      'max_tokens',
    ),
    overflow: false,
  },
  {
    name: 'DeepSeek reasoning_content not passed back',
    source: 'github.com/anomalyco/opencode/issues/24083',
    status: 400,
    body: openAI(
      'The reasoning_content in the thinking mode must be passed back to the API.',
      'invalid_request_error',
      'invalid_request_error',
    ),
    overflow: false,
  },
  {
    name: 'Gemini 429 quota on input token count',
    // Shape of Google API errors; the text is illustrative, not a verbatim quote.
    source: 'Google API error shape (code, message, status)',
    status: 429,
    body: {
      error: {
        code: 429,
        message:
          'Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_paid_tier_input_token_count, limit: 2000000',
        status: 'RESOURCE_EXHAUSTED',
      },
    },
    overflow: false,
  },
];

describe('isContextOverflow on real provider errors', () => {
  it.each(rows)('$name → $overflow', ({ status, body, overflow }) => {
    expect(isContextOverflow(fromBody(status, body))).toBe(overflow);
  });

  it.each(rows.filter((row) => row.tokens !== undefined))('$name: figures', ({ status, body, tokens }) => {
    expect(parseOverflowTokens(fromBody(status, body))).toEqual(tokens);
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
    ['something else entirely', {}],
  ])('%s', (message, expected) => {
    expect(parseOverflowTokens(message)).toEqual(expected);
  });
});
