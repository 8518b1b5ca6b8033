/**
 * The development set for isContextOverflow: errors providers and serving stacks really answer, each with
 * where it was seen (issue threads and code quote the bodies verbatim), and the look-alikes that are not an
 * overflow: rate limits and quotas that mention tokens, output caps, auth, billing, content filters,
 * oversized images, timeouts, model not found, overload. A case with a status is sent through the clients'
 * own error path (modelCallErrorFrom); one without is thrown as it was quoted, or as the object it was.
 */
import type { OverflowTokens } from './read-overflow-figures.ts';

export interface OverflowCase {
  provider: string;
  /** Where the text was seen. */
  source: string;
  /** The HTTP status it came with, when the source gives it. */
  status?: number;
  /** The body the provider sent, or the message or error object as quoted. */
  body: unknown;
  overflow: boolean;
  /** The figures parseOverflowTokens reads from it, when pinned. */
  tokens?: OverflowTokens;
}

const openAI = (message: string, type: string | null, code: string | null, param: string | null = null) => ({
  error: { message, type, param, code },
});
const anthropic = (type: string, message: string) => ({
  type: 'error',
  error: { type, message },
  request_id: 'req_1',
});

export const OVERFLOW_CASES: readonly OverflowCase[] = [
  // ------------------------------------------------------------------ OpenAI and Azure
  {
    provider: 'OpenAI',
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
    provider: 'OpenAI, messages + functions',
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
    provider: 'OpenAI (legacy wording), messages + completion',
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
    provider: 'OpenAI embeddings',
    source: 'github.com/fierceX/Document_QA/issues/3',
    body: "openai.error.InvalidRequestError: This model's maximum context length is 8191 tokens, however you requested 8238 tokens (8238 in your prompt; 0 for the completion). Please reduce your prompt; or completion length.",
    overflow: true,
    tokens: { requested: 8238, limit: 8191, completion: 0 },
  },
  {
    provider: 'OpenAI Responses API (stream error)',
    source: 'github.com/the-open-agent/openagent/issues/2344',
    body: {
      type: 'invalid_request_error',
      code: 'context_length_exceeded',
      message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      param: 'input',
    },
    overflow: true,
  },
  {
    provider: 'Azure OpenAI through LiteLLM (gpt-5 window)',
    source: 'github.com/BerriAI/litellm/issues/15968',
    status: 400,
    body: openAI(
      'AzureException BadRequestError - Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 509178 tokens. Please reduce the length of the messages.',
      null,
      '400',
    ),
    overflow: true,
    tokens: { requested: 509178, limit: 272000 },
  },
  {
    provider: 'OpenAI through LiteLLM, the window only',
    source: 'github.com/BerriAI/litellm/issues/18927',
    body: 'ContextWindowExceededError: OpenAIException - Input tokens exceed the configured limit of 272000 tokens.',
    overflow: true,
  },
  // ------------------------------------------------------------------ DeepSeek, vLLM, SGLang, OpenRouter
  {
    provider: 'DeepSeek (code = invalid_request_error)',
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
    provider: 'vLLM (object: error, numeric code)',
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
    provider: 'vLLM (input + max_tokens)',
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
    provider: 'vLLM 0.8+ (output tokens + prompt at least)',
    source: 'github.com/vllm-project/vllm-ascend/issues/11557',
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 4096 tokens. However, you requested 1 output tokens and your prompt contains at least 4096 input tokens, for a total of at least 4097 tokens. Please reduce the length of the input prompt or the number of requested output tokens. (parameter=input_tokens, value=4096)",
        type: 'BadRequestError',
        param: 'input_tokens',
        code: 400,
      },
    },
    overflow: true,
    tokens: { requested: 4097, limit: 4096, completion: 1 },
  },
  {
    provider: 'vLLM under Xinference (FastAPI detail, status 500)',
    source: 'github.com/langchain-ai/deepagents/issues/468',
    status: 500,
    body: {
      detail:
        '[address=0.0.0.0:43769, pid=1065] The decoder prompt (length 66501) is longer than the maximum model length of 65536. Make sure that `max_model_len` is no smaller than the number of text tokens.',
    },
    overflow: true,
    tokens: { requested: 66501, limit: 65536 },
  },
  {
    provider: 'vLLM engine',
    source: 'github.com/hiyouga/LlamaFactory/issues/7723',
    body: 'ValueError: Prompt length of 5016 is longer than the maximum model length of 4096.',
    overflow: true,
  },
  {
    provider: 'SGLang',
    source: 'github.com/QwenLM/Qwen3/issues/1321',
    status: 400,
    body: {
      object: 'error',
      message: "The input (61709 tokens) is longer than the model's context length (40960 tokens).",
      type: 'BadRequestError',
      param: null,
      code: 400,
    },
    overflow: true,
    tokens: { requested: 61709, limit: 40960 },
  },
  {
    provider: 'SGLang (allowed length)',
    source: 'github.com/sgl-project/sglang/issues/4048',
    body: 'Input length (160062 tokens) exceeds the maximum allowed length (59862 tokens).',
    overflow: true,
    tokens: { requested: 160062, limit: 59862 },
  },
  {
    provider: 'OpenRouter',
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
    provider: 'OpenRouter (text input only)',
    source: 'github.com/refly-ai/refly/issues/1177',
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          'This endpoint\'s maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
      },
    },
    overflow: true,
    tokens: { requested: 42832, limit: 32768 },
  },
  {
    provider: 'OpenRouter / Poolside',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: 'Input length 265330 exceeds the maximum allowed input length of 262144 tokens.',
    overflow: true,
    tokens: { requested: 265330, limit: 262144 },
  },
  {
    provider: 'OpenAI-compatible server',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: "Input length (265330) exceeds model's maximum context length (262144).",
    overflow: true,
    tokens: { requested: 265330, limit: 262144 },
  },
  {
    provider: 'Fireworks-style wording through LiteLLM',
    source: 'public test of a pi fork (code search: "You requested a total of 270128 tokens")',
    body: "400 litellm.BadRequestError: OpenAIException - Requested token count exceeds the model's maximum context length of 262144 tokens. You requested a total of 270128 tokens: 261936 tokens from the input messages and 8192 tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.. Received Model Group=qwen3.8-27b-nvfp4",
    overflow: true,
    tokens: { requested: 270128, limit: 262144, completion: 8192 },
  },
  // ------------------------------------------------------------------ Anthropic and Bedrock
  {
    provider: 'Anthropic prompt is too long',
    source: 'github.com/anthropics/claude-code/issues/12186',
    status: 400,
    body: anthropic('invalid_request_error', 'prompt is too long: 208310 tokens > 200000 maximum'),
    overflow: true,
    tokens: { requested: 208310, limit: 200000 },
  },
  {
    provider: 'Anthropic input + max_tokens over the window',
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
    provider: 'Anthropic 413 request_too_large',
    source: 'docs.claude.com/en/api/errors',
    status: 413,
    body: anthropic('request_too_large', 'Request exceeds the maximum allowed number of bytes.'),
    overflow: true,
    tokens: {},
  },
  {
    provider: '413 from a proxy, HTML body',
    source: 'any reverse proxy (nginx client_max_body_size)',
    status: 413,
    body: '<html><head><title>413 Request Entity Too Large</title></head></html>',
    overflow: true,
    tokens: {},
  },
  {
    provider: 'Anthropic through a third-party model (Claude Code)',
    source: 'github.com/NanmiCoder/cc-haha/issues/860',
    body: 'invalid_request: Prompt is too long',
    overflow: true,
  },
  {
    provider: 'Bedrock Claude (Converse)',
    source: 'github.com/strands-agents/harness-sdk/pull/1663',
    body: {
      name: 'ValidationException',
      message:
        'An error occurred (ValidationException) when calling the ConverseStream operation: The model returned the following errors: prompt is too long: 903884 tokens > 200000 maximum',
      $metadata: { httpStatusCode: 400 },
    },
    overflow: true,
    tokens: { requested: 903884, limit: 200000 },
  },
  {
    provider: 'Bedrock Claude, input + max_tokens',
    source: 'github.com/RooCodeInc/Roo-Code/issues/3713',
    body: {
      name: 'ValidationException',
      message:
        'The model returned the following errors: input length and `max_tokens` exceed context limit: 196395 + 64000 > 204698, decrease input length or `max_tokens` and try again',
      $fault: 'client',
      $metadata: {},
    },
    overflow: true,
    tokens: { requested: 260395, limit: 204698, completion: 64000 },
  },
  {
    provider: 'Bedrock (Claude, Cohere)',
    source: 'repost.aws/knowledge-center/bedrock-validation-exception-errors',
    body: { name: 'ValidationException', message: 'Input is too long for requested model.' },
    overflow: true,
  },
  {
    provider: 'Bedrock Titan Text',
    source: 'public model-evaluation report (code search: "Too many input tokens. Max input tokens")',
    body: 'An error occurred (ValidationException) when calling the InvokeModel operation: 400 Bad Request: Too many input tokens. Max input tokens: 4096, request input token count: 7262 ',
    overflow: true,
    tokens: { requested: 7262, limit: 4096 },
  },
  {
    provider: 'Bedrock Llama',
    source: 'public Bedrock error-pattern table (code search: "Please reduce the length of the prompt")',
    body: "ValidationException: This model's maximum context length is 8192 tokens. Please reduce the length of the prompt",
    overflow: true,
    tokens: { limit: 8192 },
  },
  {
    provider: 'Bedrock Mistral',
    source: 'public Bedrock error-pattern table (code search: "draft tokens, too large for model")',
    body: 'ValidationException. Prompt contains 235396 tokens and 0 draft tokens, too large for model with 131072 maximum context length',
    overflow: true,
    tokens: { requested: 235396, limit: 131072 },
  },
  {
    provider: 'Bedrock through LiteLLM',
    source: "LiteLLM's is_error_str_context_window_exceeded test cases",
    body: 'AWS Bedrock Error: The request payload size has exceed context limit.',
    overflow: true,
  },
  // ------------------------------------------------------------------ Google
  {
    provider: 'Gemini',
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
    provider: 'Gemini behind a proxy that wraps the JSON in a message',
    source: 'github.com/google-gemini/gemini-cli/issues/4231',
    status: 400,
    body: {
      error: {
        message:
          '{\n  "error": {\n    "code": 400,\n    "message": "The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).",\n    "status": "INVALID_ARGUMENT"\n  }\n}\n',
        code: 400,
        status: 'Bad Request',
      },
    },
    overflow: true,
    tokens: { requested: 3475108, limit: 1048576 },
  },
  {
    provider: 'Gemini 2.5 (no count)',
    source: 'github.com/arkavo-org/arkavo-edge/issues/371',
    status: 400,
    body: {
      error: {
        code: 400,
        message: 'The input token count exceeds the maximum number of tokens allowed (1048576).',
        status: 'INVALID_ARGUMENT',
      },
    },
    overflow: true,
  },
  {
    provider: 'Vertex AI',
    source: 'github.com/google-gemini/gemini-cli/issues/19727',
    body: 'Failed to generate content: Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again. You can also use the CountTokens API to calculate prompt token count and billable characters. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/learn/models',
    overflow: true,
    tokens: { requested: 1251952, limit: 1048576 },
  },
  {
    provider: 'Vertex AI through Warp',
    source: 'github.com/warpdotdev/warp/issues/15662',
    body: 'Vertex AI API error: Error 400, Message: The input token count exceeds the maximum number of tokens allowed 1048576., Status: INVALID_ARGUMENT, Details: []',
    overflow: true,
  },
  // ------------------------------------------------------------------ Mistral, Cohere, Groq, Cerebras, xAI
  {
    provider: 'Mistral',
    source: 'mistralai SDK error quoted in public code (code search: "Prompt contains 159202 tokens")',
    status: 400,
    body: {
      object: 'error',
      message:
        'Prompt contains 159202 tokens and 0 draft tokens, too large for model with 131072 maximum context length',
      type: 'invalid_request_invalid_args',
      param: null,
      code: '3051',
      raw_status_code: 400,
    },
    overflow: true,
    tokens: { requested: 159202, limit: 131072 },
  },
  {
    provider: 'Cohere',
    source: 'docs.cohere.com/reference/errors',
    status: 400,
    body: {
      message:
        'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292. Try using a shorter prompt, or enabling prompt truncating. See https://docs.cohere.com/reference/generate for more details.',
      id: 'req_1',
    },
    overflow: true,
    tokens: { requested: 4292, limit: 4081 },
  },
  {
    provider: 'Cohere (chat size limit)',
    source: 'docs.cohere.com/reference/errors',
    status: 400,
    body: {
      message:
        "too many tokens: size limit exceeded by 11326 tokens. Try using shorter or fewer inputs, or setting prompt_truncation='AUTO'.",
    },
    overflow: true,
  },
  {
    provider: 'Cohere (multi-hop)',
    source: 'docs.cohere.com/reference/errors',
    status: 400,
    body: { message: 'too many tokens: multi-hop prompt is too long even after truncation' },
    overflow: true,
  },
  {
    provider: 'Groq',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    status: 400,
    body: openAI(
      'Please reduce the length of the messages or completion.',
      'invalid_request_error',
      'context_length_exceeded',
      'messages',
    ),
    overflow: true,
  },
  {
    provider: 'Cerebras',
    source: 'github.com/cline/cline/issues/5140',
    status: 400,
    body: openAI(
      'Please reduce the length of the messages or completion. Current length is 42328 while limit is 40000',
      'invalid_request_error',
      null,
    ),
    overflow: true,
    tokens: { requested: 42328, limit: 40000 },
  },
  {
    provider: 'xAI',
    source: 'public Go test quoting the xAI body (code search: "request contains 149617 tokens")',
    status: 400,
    body: {
      code: 'Client specified an invalid argument',
      error: "This model's maximum prompt length is 131072 but the request contains 149617 tokens.",
    },
    overflow: true,
    tokens: { requested: 149617, limit: 131072 },
  },
  {
    provider: 'xAI (sampling)',
    source: 'public Go test of overflow wordings (code search: "[input_too_large]")',
    body: "Failed to start sampling: [input_too_large] The prompt is too long for this model's context window (505759 tokens > 500000 tokens)",
    overflow: true,
    tokens: { requested: 505759, limit: 500000 },
  },
  // ------------------------------------------------------------------ serving stacks
  {
    provider: 'llama.cpp server',
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
    provider: 'Ollama with truncate:false (llama.cpp error inside a string)',
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
    provider: 'Ollama native',
    source: 'github.com/nano-step/nano-brain/issues/208',
    status: 400,
    body: { error: 'the input length exceeds the context length' },
    overflow: true,
    tokens: {},
  },
  {
    provider: 'Ollama explicit overflow',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: 'prompt too long; exceeded max context length by 4096 tokens',
    overflow: true,
  },
  {
    provider: 'llama-cpp-python',
    source: 'public adapter test (code search: "Requested tokens (9001) exceed context window")',
    body: 'Requested tokens (9001) exceed context window of 8192',
    overflow: true,
    tokens: { requested: 9001, limit: 8192 },
  },
  {
    provider: 'LM Studio',
    source: 'github.com/lmstudio-ai/lmstudio-bug-tracker/issues/546',
    status: 400,
    body: openAI(
      'Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input. Error Data: n/a, Additional Data: n/a',
      null,
      null,
    ),
    overflow: true,
    tokens: { requested: 111490, limit: 32768 },
  },
  {
    provider: 'LM Studio (tokens to keep)',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: 'The number of tokens to keep from the initial prompt is greater than the context length',
    overflow: true,
  },
  {
    provider: 'MLX server (omlx)',
    // The message is from the server's log; the body shape around it is assumed OpenAI-like.
    source: 'github.com/jundot/omlx/issues/169',
    status: 400,
    body: { error: { message: 'Prompt too long: 51587 tokens exceeds max context window of 32768 tokens' } },
    overflow: true,
    tokens: { requested: 51587, limit: 32768 },
  },
  {
    provider: 'TGI (Hugging Face chat)',
    source: 'github.com/huggingface/chat-ui/issues/1149',
    status: 422,
    body: {
      error:
        'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 8192. Given: 6204 `inputs` tokens and 2047 `max_new_tokens`',
      error_type: 'validation',
    },
    overflow: true,
    tokens: { requested: 8251, limit: 8192, completion: 2047 },
  },
  {
    provider: 'TGI (Hugging Face Inference API)',
    source: 'github.com/meta-llama/llama/issues/1103',
    status: 422,
    body: { error: 'Input validation error: `inputs` must have less than 4096 tokens. Given: 4545' },
    overflow: true,
    tokens: { requested: 4545, limit: 4096 },
  },
  {
    provider: 'Together (TGI wording)',
    source: 'github.com/stanford-crfm/helm/pull/2079',
    body: 'Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 2019 `inputs` tokens and 30 `max_new_tokens`',
    overflow: true,
    tokens: { requested: 2049, limit: 2048, completion: 30 },
  },
  {
    provider: 'Together',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: "The input (265330 tokens) is longer than the model's context length (262144 tokens).",
    overflow: true,
    tokens: { requested: 265330, limit: 262144 },
  },
  {
    provider: 'TensorRT-LLM (Triton)',
    source: 'github.com/triton-inference-server/tensorrtllm_backend/issues/565',
    body: 'Encountered an error when fetching new request: Prompt length (200) exceeds maximum input length (1)',
    overflow: true,
  },
  {
    provider: 'NVIDIA NIM',
    source: 'github.com/run-llama/llama_index/issues/15180',
    body: 'Input length exceeds maximum allowed token size',
    overflow: true,
  },
  {
    provider: 'ctransformers',
    source: 'github.com/marella/ctransformers/issues/153',
    body: 'Number of tokens (757) exceeded maximum context length (512).',
    overflow: true,
  },
  {
    provider: 'RKLLM',
    source: 'github.com/jaylfc/taOS/issues/1738',
    body: 'Prompt is 11543 tokens but the model context window is 4096 tokens.',
    overflow: true,
    tokens: { requested: 11543, limit: 4096 },
  },
  {
    provider: 'DS4 server',
    source: 'public test of overflow wordings (code search: "but the configured context size is")',
    body: 'Prompt has 300,000 tokens, but the configured context size is 131,072 tokens',
    overflow: true,
    tokens: { requested: 300000, limit: 131072 },
  },
  // ------------------------------------------------------------------ proxies and clients
  {
    provider: 'LiteLLM, Anthropic overflow behind a failed fallback',
    source: 'github.com/OpenHands/OpenHands/issues/5350',
    status: 400,
    body: {
      error: {
        message:
          'litellm.BadRequestError: litellm.ContextWindowExceededError: AnthropicError - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209303 tokens > 200000 maximum"}}',
        type: null,
        param: null,
        code: '400',
      },
    },
    overflow: true,
    tokens: { requested: 209303, limit: 200000 },
  },
  {
    provider: 'LiteLLM, Anthropic body as Python bytes',
    source: 'github.com/BrokkAi/brokk-app/issues/540',
    status: 400,
    body: {
      error: {
        message:
          'litellm.BadRequestError: AnthropicException - b\'{"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 179413 + 32768 > 200000, decrease input length or `max_tokens` and try again"}}\'. Received Model Group=anthropic/claude-sonnet-4-20250514\nAvailable Model Group Fallbacks=None',
        type: null,
        param: null,
        code: '400',
      },
    },
    overflow: true,
  },
  {
    provider: 'LiteLLM wording',
    source: "LiteLLM's is_error_str_context_window_exceeded test cases",
    body: "An error occurred: The input exceeds the model's maximum context limit of 8192 tokens.",
    overflow: true,
  },
  {
    provider: 'LiteLLM wording (longer than)',
    source: "LiteLLM's is_error_str_context_window_exceeded test cases",
    body: "Your prompt is longer than the model's context length of 2048.",
    overflow: true,
  },
  {
    provider: 'LibreChat',
    source: 'github.com/danny-avila/LibreChat/issues/229',
    body: 'Prompt is too long. Max token count is 3071, but prompt is 7752 tokens long.',
    overflow: true,
    tokens: { requested: 7752, limit: 3071 },
  },
  {
    provider: 'Codex',
    source: 'public test of the Codex app-server error (code search: "ran out of room")',
    body: {
      message: 'Internal error',
      code: -32603,
      data: {
        message:
          "Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying.",
        codex_error_info: 'context_window_exceeded',
      },
    },
    overflow: true,
  },
  // ------------------------------------------------------------------ GitHub
  {
    provider: 'GitHub Copilot',
    source: 'github.com/microsoft/copilot-intellij-feedback/issues/94',
    status: 400,
    body: {
      error: {
        message: 'prompt token count of 138898 exceeds the limit of 64000',
        code: 'model_max_prompt_tokens_exceeded',
      },
    },
    overflow: true,
    tokens: { requested: 138898, limit: 64000 },
  },
  {
    provider: 'GitHub Copilot, the code alone',
    source: 'the code of microsoft/copilot-intellij-feedback/issues/94 under a generic message',
    status: 400,
    body: { error: { message: 'Bad Request', code: 'model_max_prompt_tokens_exceeded' } },
    overflow: true,
  },
  {
    provider: 'GitHub Copilot (empty code)',
    source: 'github.com/jjleng/copilot-more/issues/35',
    status: 400,
    body: {
      error: {
        message: 'prompt token count of 93854 exceeds the limit of 90000',
        param: '',
        code: '',
        type: '',
      },
    },
    overflow: true,
    tokens: { requested: 93854, limit: 90000 },
  },
  {
    provider: 'GitHub Copilot cloud agent',
    source: 'github.com/microsoft/vscode/issues/293419',
    body: 'Last error: CAPIError: 400 prompt token count of 184399 exceeds the limit of 128000',
    overflow: true,
  },
  {
    provider: 'VS Code language model API',
    source: 'github.com/microsoft/vscode-copilot-release/issues/1456',
    body: 'Error: Message exceeds token limit.',
    overflow: true,
  },
  {
    provider: 'GitHub Models',
    source: 'github.com/cline/cline/issues/2115',
    status: 413,
    body: {
      error: {
        code: 'tokens_limit_reached',
        message: 'Request body too large for gpt-4o model. Max size: 8000 tokens.',
        details: 'Request body too large for gpt-4o model. Max size: 8000 tokens.',
      },
    },
    overflow: true,
  },
  {
    provider: 'GitHub Models, the code alone under 400',
    source: 'the code of github.com/cline/cline/issues/2115 under a generic message',
    status: 400,
    body: { error: { code: 'tokens_limit_reached', message: 'Bad Request' } },
    overflow: true,
  },
  // ------------------------------------------------------------------ Chinese providers
  {
    provider: 'Qwen / DashScope (OpenAI-compatible)',
    source: 'github.com/agentscope-ai/QwenPaw/issues/6255',
    status: 400,
    body: {
      error: {
        code: 'invalid_parameter_error',
        message: '<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 983616]',
        param: null,
        type: 'invalid_request_error',
      },
      request_id: '81a373d6-28bd-9968-8335-e22a2127c41b',
    },
    overflow: true,
    tokens: { limit: 983616 },
  },
  {
    provider: 'Qwen / DashScope (native)',
    source: 'github.com/LLM-Red-Team/qwen-free-api/issues/23',
    status: 400,
    body: { code: 'InvalidParameter', message: 'Range of input length should be [1, 6000]', request_id: 'x' },
    overflow: true,
    tokens: { limit: 6000 },
  },
  {
    provider: 'Moonshot / Kimi',
    source: 'public test of Kimi overflow errors (code search: "exceeded model token limit: 262144")',
    body: 'error, status code: 400, message: Invalid request: Your request exceeded model token limit: 262144 (requested: 291351)',
    overflow: true,
    tokens: { requested: 291351, limit: 262144 },
  },
  {
    provider: 'Kimi For Coding',
    source: 'public Go test of overflow wordings (code search: "total message size 2306631")',
    body: 'total message size 2306631 exceeds limit 2097152',
    overflow: true,
  },
  {
    provider: 'MiniMax',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts',
    body: 'invalid params, context window exceeds limit',
    overflow: true,
  },
  {
    provider: 'Zhipu / Z.AI',
    source: 'github.com/zeroclaw-labs/zeroclaw/issues/4124',
    status: 400,
    body: { error: { code: '1261', message: 'Prompt exceeds max length' } },
    overflow: true,
  },
  {
    provider: 'Zhipu GLM (Anthropic-compatible endpoint)',
    source: 'github.com/foreveryh/claude-code-switch/issues/12',
    status: 400,
    body: {
      type: 'error',
      error: {
        message:
          "API 调用参数有误，请检查文档。Request 182387 input tokens exceeds the model's maximum context length 202750",
        code: '1210',
      },
    },
    overflow: true,
    tokens: { requested: 182387, limit: 202750 },
  },
  {
    provider: 'Zhipu through a local proxy',
    source: 'github.com/farion1231/cc-switch/issues/6982',
    body: 'CC Switch local proxy failed while handling Codex endpoint /responses. Provider: Zhipu GLM; model: glm-4.5-air; upstream_status: HTTP 400; cause: Prompt exceeds max length',
    overflow: true,
  },
  {
    provider: 'Baidu ERNIE',
    source: 'public Go test of overflow errors (code search: "error_code: 336103")',
    body: 'error_code: 336103, error_msg: Prompt tokens too long',
    overflow: true,
  },
  {
    provider: 'Chinese gateway',
    source: 'public test of gateway errors (code search: "输入长度超过模型上限")',
    status: 400,
    body: '输入长度超过模型上限',
    overflow: true,
  },

  // ================================================================== not overflows
  {
    provider: 'OpenAI 429 TPM rate limit (mentions tokens)',
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
    provider: 'OpenAI 429 "Request too large" for TPM (says tokens must be reduced)',
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
    provider: 'OpenAI TPM "Request too large" relayed without its status',
    source: 'github.com/vanna-ai/vanna-flask/issues/11',
    body: 'Request too large for gpt-4o on tokens per min (TPM): Limit 30000, Requested 342389. The input or output tokens must be reduced in order to run successfully.',
    overflow: false,
  },
  {
    provider: 'Groq 413 TPM (a 413 that is a rate limit)',
    source: 'github.com/HunorLaczko/ha-groq-cloud-api/issues/27',
    status: 413,
    body: openAI(
      'Request too large for model llama-3.1-8b-instant in organization org_xxxxxxx service tier on_demand on tokens per minute (TPM): Limit 6000, Requested 12328, please reduce your message size and try again. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
      'tokens',
      'rate_limit_exceeded',
    ),
    overflow: false,
  },
  {
    provider: 'Groq 429 TPM',
    source: 'github.com/elizaOS/eliza/issues/4040',
    status: 429,
    body: 'Rate limit reached for model `llama-3.1-8b-instant` in organization `org_01j5b4pz9jff492fq686vypsx6` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Used 5034, Requested 1443. Please try again in 4.77s. Need more tokens? Upgrade to Dev Tier today at https://console.groq.com/settings/billing',
    overflow: false,
  },
  {
    provider: 'Azure OpenAI token rate limit, relayed by LiteLLM',
    source: 'github.com/jasonacox/TinyLLM/issues/17',
    body: {
      error: {
        message:
          "litellm.RateLimitError: AzureException RateLimitError - Error code: 429 - {'error': {'code': '429', 'message': 'Requests to the ChatCompletions_Create Operation under Azure OpenAI API version 2023-05-15 have exceeded token rate limit of your current AIServices S0 pricing tier. Please retry after 86400 seconds.'}}\nReceived Model Group=azure-gpt-4o-mini\nAvailable Model Group Fallbacks=None",
        type: 'throttling_error',
        param: null,
        code: '429',
      },
    },
    overflow: false,
  },
  {
    provider: 'OpenAI 429 insufficient_quota',
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
    provider: 'Anthropic 429 input tokens per minute (says reduce the prompt length)',
    source: 'github.com/continuedev/continue/issues/9623',
    status: 429,
    body: anthropic(
      'rate_limit_error',
      'This request would exceed the rate limit for your organization (x) of 30,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.',
    ),
    overflow: false,
  },
  {
    provider: 'Anthropic rate limit relayed by a proxy as 400',
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
    provider: 'Bedrock throttling "Too many tokens" relayed by an OpenAI-compatible proxy without its 429',
    source: 'github.com/ranxianglei/billion-context-pi/issues/169, github.com/anomalyco/opencode/pull/39621',
    status: 400,
    body: { message: 'Too many tokens, please wait before trying again.' },
    overflow: false,
  },
  {
    provider: 'Bedrock throttling, as a client formats it',
    source: 'github.com/earendil-works/pi packages/ai/src/utils/overflow.ts (its exclusions)',
    body: 'Throttling error: Too many tokens, please wait before trying again.',
    overflow: false,
  },
  {
    provider: 'Bedrock unavailable, as a client formats it',
    source:
      'public test of pi-derived overflow detection (code search: "Service unavailable: too many tokens")',
    body: 'Service unavailable: too many tokens',
    overflow: false,
  },
  {
    provider: 'A rate limit that says "token limit exceeded"',
    source:
      'public test of pi-derived overflow detection (code search: "token limit exceeded for this minute")',
    body: 'Rate limit reached: token limit exceeded for this minute',
    overflow: false,
  },
  {
    provider: 'HTTP 429 reason phrase',
    source: 'RFC 6585',
    body: '429 Too Many Requests',
    overflow: false,
  },
  {
    provider: 'Cohere 429',
    source: 'docs.cohere.com/reference/errors',
    status: 429,
    body: { message: 'You are past the per minute request limit, please wait and try again later.' },
    overflow: false,
  },
  {
    provider: 'Cohere trial token rate limit, relayed without its status',
    source: 'docs.cohere.com/reference/errors',
    body: 'trial token rate limit exceeded, limit is 100000 tokens per minute',
    overflow: false,
  },
  {
    provider: 'Vertex AI out of capacity',
    source: "LiteLLM's Vertex AI rate-limit mapping tests (BerriAI/litellm issue 16189)",
    body: 'Unable to submit request because the service is temporarily out of capacity.',
    overflow: false,
  },
  {
    provider: 'Gemini 429 quota on input token count',
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
  {
    provider: 'Mistral 429 service tier',
    source: 'Mistral API error quoted in public code (code search: "Service tier capacity exceeded")',
    status: 429,
    body: {
      object: 'error',
      message: 'Service tier capacity exceeded for this model.',
      type: 'service_tier_capacity_exceeded',
      code: '3505',
    },
    overflow: false,
  },
  {
    provider: 'Mistral service tier, relayed without its status',
    source: 'Mistral API error quoted in public code (code search: "Service tier capacity exceeded")',
    body: 'Mistral answered 429 (Service tier capacity exceeded for this model.), still failing after 5 tries',
    overflow: false,
  },
  // ------------------------------------------------------------------ output caps
  {
    provider: 'OpenAI max_tokens above the model output cap',
    source: 'github.com/algorithmicsuperintelligence/optillm/issues/4',
    status: 400,
    body: openAI(
      'max_tokens is too large: 8192. This model supports at most 4096 completion tokens, whereas you provided 8192.',
      'invalid_request_error',
      null,
      'max_tokens',
    ),
    overflow: false,
  },
  {
    provider: 'OpenAI integer above maximum value',
    source:
      'public test of provider errors (code search: "integer above maximum value. Expected a value <= 4096")',
    status: 400,
    body: openAI(
      "Invalid 'max_tokens': integer above maximum value. Expected a value <= 4096, but got 8192 instead.",
      'invalid_request_error',
      'integer_above_max_value',
      'max_tokens',
    ),
    overflow: false,
  },
  {
    provider: 'OpenAI unsupported max_tokens on a reasoning model',
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
    provider: 'Anthropic max_tokens above the model output cap',
    source: 'github.com/ChatGPTNextWeb/NextChat/issues/4964',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'max_tokens: 10000 > 4096, which is the maximum allowed number of output tokens for claude-3-5-sonnet-20240620',
    ),
    overflow: false,
  },
  {
    provider: 'Bedrock maximum tokens above the model limit',
    source: 'github.com/aws-samples/bedrock-access-gateway/issues/41',
    body: {
      name: 'ValidationException',
      message:
        'An error occurred (ValidationException) when calling the ConverseStream operation: The maximum tokens you requested exceeds the model limit of 2048. Try again with a maximum tokens value that is lower than 2048.',
    },
    overflow: false,
  },
  {
    provider: 'Bedrock (Anthropic messages API) maximum tokens',
    source: 'github.com/charmbracelet/crush/issues/946',
    status: 400,
    body: { message: 'The maximum tokens you requested exceeds the model limit of 32768' },
    overflow: false,
  },
  {
    provider: 'Vertex AI maxOutputTokens out of range',
    source: 'public Go test (code search: "has a maxOutputTokens value of 64000")',
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          'Unable to submit request because it has a maxOutputTokens value of 64000 but the supported range is from 1 (inclusive) to 32769 (exclusive). Update the value and try again.',
        status: 'INVALID_ARGUMENT',
      },
    },
    overflow: false,
  },
  {
    provider: 'Qwen / DashScope max_tokens range',
    source: 'public test of output caps (code search: "Range of max_tokens should be [1, 8192]")',
    status: 400,
    body: {
      code: 'InvalidParameter',
      message: 'InternalError.Algo.InvalidParameter: Range of max_tokens should be [1, 8192]',
    },
    overflow: false,
  },
  {
    provider: 'DeepSeek max_tokens range',
    source: 'public test of output caps (code search: "the valid range of max_tokens is [1, 8192]")',
    status: 400,
    body: openAI(
      'Invalid max_tokens value, the valid range of max_tokens is [1, 8192]',
      'invalid_request_error',
      'invalid_request_error',
    ),
    overflow: false,
  },
  {
    provider: 'Groq max_tokens above its cap (names the context window)',
    source: 'public test of output caps (code search: "is less than the `context_window` for this model")',
    status: 400,
    body: openAI(
      '`max_tokens` must be less than or equal to `8192`, the maximum value for `max_tokens` is less than the `context_window` for this model',
      'invalid_request_error',
      null,
    ),
    overflow: false,
  },
  {
    provider: 'Cohere max tokens above the output cap ("too many tokens:" prefix)',
    source: 'docs.cohere.com/reference/errors',
    status: 400,
    body: {
      message:
        'too many tokens: max tokens must be less than or equal to 4096, the maximum output for this model - received 8192.',
    },
    overflow: false,
  },
  {
    provider: 'TGI max_new_tokens above its cap',
    source: 'github.com/huggingface/transformers/issues/28523 (TGI validation errors)',
    status: 422,
    body: {
      error: 'Input validation error: `max_new_tokens` must be <= 192. Given: 200',
      error_type: 'validation',
    },
    overflow: false,
  },
  {
    provider: 'Oracle max tokens',
    source: 'public list of output-cap wordings (code search: "Value is greater than maximum: 4096")',
    body: "Invalid 'maxTokens': Value is greater than maximum: 4096",
    overflow: false,
  },
  {
    provider: 'FastAPI validation error on a parameter',
    source: "pydantic's own tests (msg 'Input should be less than or equal to 2')",
    status: 422,
    body: {
      detail: [
        {
          type: 'less_than_equal',
          loc: ['body', 'temperature'],
          msg: 'Input should be less than or equal to 2',
          input: 3,
          ctx: { le: 2 },
        },
      ],
    },
    overflow: false,
  },
  {
    provider: 'OpenAI too many tools',
    source: 'github.com/cgoinglove/better-chatbot/issues/197',
    status: 400,
    body: openAI(
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 217 instead.",
      'invalid_request_error',
      'array_above_max_length',
      'tools',
    ),
    overflow: false,
  },
  // ------------------------------------------------------------------ auth, billing, content
  {
    provider: 'OpenAI 401 invalid_api_key',
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
    provider: 'Anthropic 401',
    source: 'docs.claude.com/en/api/errors',
    status: 401,
    body: anthropic('authentication_error', 'invalid x-api-key'),
    overflow: false,
  },
  {
    provider: 'Anthropic credit balance (a 400)',
    source: 'public client test quoting the body (code search: "Your credit balance is too low")',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
    ),
    overflow: false,
  },
  {
    provider: 'OpenRouter 402 credits (asks for fewer max_tokens)',
    source: 'public Go test (code search: "This request requires more credits, or fewer max_tokens")',
    status: 402,
    body: {
      error: {
        code: 402,
        message:
          'This request requires more credits, or fewer max_tokens. You requested up to 131072 tokens, but can only afford 54095. To increase, visit https://openrouter.ai/settings/keys/0123abcd and create a key with a higher limit',
      },
    },
    overflow: false,
  },
  {
    provider: 'OpenRouter 402 prompt tokens over what the key can pay for',
    source: 'public run log (code search: "Prompt tokens limit exceeded: 77084 > 67343")',
    status: 402,
    body: { error: { code: 402, message: 'Prompt tokens limit exceeded: 77084 > 67343' } },
    overflow: false,
  },
  {
    provider: 'Cohere 402',
    source: 'docs.cohere.com/reference/errors',
    status: 402,
    body: {
      message:
        'Please add or update your payment method at https://dashboard.cohere.com/billing?tab=payment to continue',
    },
    overflow: false,
  },
  {
    provider: 'Azure content filter',
    source: 'github.com/openai/openai-python/issues/331',
    status: 400,
    body: {
      error: {
        message:
          'The response was filtered due to the prompt triggering Azure OpenAI’s content management policy. Please modify your prompt and retry. To learn more about our content filtering policies please read our documentation: https://go.microsoft.com/fwlink/?linkid=2198766',
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
      },
    },
    overflow: false,
  },
  {
    provider: 'DeepSeek reasoning_content not passed back',
    source: 'github.com/anomalyco/opencode/issues/24083',
    status: 400,
    body: openAI(
      'The reasoning_content in the thinking mode must be passed back to the API.',
      'invalid_request_error',
      'invalid_request_error',
    ),
    overflow: false,
  },
  // ------------------------------------------------------------------ sizes of other things
  {
    provider: 'Anthropic image over 5 MB',
    source: 'public notes quoting the API error (code search: "image exceeds 5 MB maximum: 6096280 bytes")',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'messages.46.content.9.image.source.base64: image exceeds 5 MB maximum: 6096280 bytes > 5242880 bytes',
    ),
    overflow: false,
  },
  {
    provider: 'Anthropic image dimensions',
    source:
      'public classifier test (code search: "image dimensions exceed max allowed size for many-image requests")',
    status: 400,
    body: anthropic(
      'invalid_request_error',
      'messages.4.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size for many-image requests: 2000 pixels',
    ),
    overflow: false,
  },
  {
    provider: 'Anthropic PDF pages',
    source: 'public classifier comment (code search: "A maximum of 100 PDF pages may be provided")',
    status: 400,
    body: anthropic('invalid_request_error', 'A maximum of 100 PDF pages may be provided.'),
    overflow: false,
  },
  {
    provider: 'nginx request header too large',
    source: 'nginx error page (400 "Request Header Or Cookie Too Large")',
    status: 400,
    body: '<html><head><title>400 Request Header Or Cookie Too Large</title></head></html>',
    overflow: false,
  },
  {
    provider: 'A token bucket refusing a request',
    source: 'public rate-limiter code (code search: "exceeds bucket capacity")',
    body: 'ValueError: Requested tokens (5) exceeds bucket capacity (3)',
    overflow: false,
  },
  {
    provider: 'LiteLLM budget',
    source: 'github.com/BerriAI/litellm/issues/14144',
    status: 400,
    body: {
      error: {
        message:
          'litellm.BadRequestError: OpenAIException - Budget has been exceeded! Current cost: 14.5, Max budget: 100. Received Model Group=meta.llama3-8b-instruct-v1:0\nAvailable Model Group Fallbacks=None',
        type: null,
        param: null,
        code: '400',
      },
    },
    overflow: false,
  },
  {
    provider: 'Ollama out of memory',
    source: 'github.com/continuedev/continue/issues/11478',
    status: 500,
    body: { error: 'model requires more system memory (2.7 GiB) than is available (2.3 GiB)' },
    overflow: false,
  },
  // ------------------------------------------------------------------ timeouts, availability, plain failures
  {
    provider: 'Ollama client timeout (Go)',
    source: 'github.com/nextlevelbuilder/goclaw/issues/926',
    body: 'ollama: context deadline exceeded',
    overflow: false,
  },
  {
    provider: 'Go HTTP client timeout',
    source: 'github.com/rishikanthc/Scriberr/issues/237',
    body: 'failed to make request: Post "http://ollama:11434/api/chat": context deadline exceeded (Client.Timeout exceeded while awaiting headers)',
    overflow: false,
  },
  {
    provider: 'Dify plugin timeout',
    source: 'github.com/langgenius/dify/issues/35485',
    body: { message: 'context deadline exceeded', type: 'server_error' },
    overflow: false,
  },
  {
    provider: 'Ollama request cancelled',
    source: 'github.com/icereed/paperless-gpt/issues/454',
    body: 'Ollama: error getting response from LLM: context canceled',
    overflow: false,
  },
  {
    provider: 'Anthropic 529 overloaded',
    source: 'docs.claude.com/en/api/errors',
    status: 529,
    body: anthropic('overloaded_error', 'Overloaded'),
    overflow: false,
  },
  {
    provider: 'Gemini 503 overloaded',
    source: 'ai.google.dev/gemini-api/docs/troubleshooting (503 UNAVAILABLE)',
    status: 503,
    body: {
      error: {
        code: 503,
        message: 'The model is overloaded. Please try again later.',
        status: 'UNAVAILABLE',
      },
    },
    overflow: false,
  },
  {
    provider: 'OpenAI model not found',
    source: 'platform.openai.com/docs/guides/error-codes (404 model_not_found)',
    status: 404,
    body: openAI(
      'The model `gpt-5-turbo` does not exist or you do not have access to it.',
      'invalid_request_error',
      'model_not_found',
    ),
    overflow: false,
  },
  {
    provider: 'Cohere model not found',
    source: 'docs.cohere.com/reference/errors',
    status: 404,
    body: {
      message:
        "model 'xyz' not found, make sure the correct model ID was used and that you have access to the model.",
    },
    overflow: false,
  },
  {
    provider: 'Cohere too many texts',
    source: 'docs.cohere.com/reference/errors',
    status: 400,
    body: { message: 'invalid request: total number of texts must be at most 96 - received 104' },
    overflow: false,
  },
  {
    provider: 'LiteLLM negatives',
    source: "LiteLLM's is_error_str_context_window_exceeded test cases",
    body: 'The context is large, but acceptable.',
    overflow: false,
  },
  {
    provider: 'LiteLLM negatives (rate limit)',
    source: "LiteLLM's is_error_str_context_window_exceeded test cases",
    body: 'Rate limit reached for requests.',
    overflow: false,
  },
  {
    provider: 'Shell: a command line too long for the OS',
    source: 'E2BIG, strerror(7)',
    body: 'spawn E2BIG: Argument list too long',
    overflow: false,
  },
];
