/**
 * `ctxkit/ai-sdk`: ctxkit for the Vercel AI SDK (6). `ctxkitMiddleware` for `wrapLanguageModel` puts every
 * call of a model through a ctxkit session; `ctxkitTools` gives the model ctxkit's read-back tool; the
 * converters turn AI SDK prompts and responses into ctxkit messages and back.
 */

export {
  AI_SDK_META_KEY,
  type AiSdkDataKind,
  type AiSdkMessageMeta,
  type AiSdkMeta,
  type AiSdkOutputItem,
  type AiSdkOutputMeta,
  type AiSdkPartMeta,
  aiSdkMetaOf,
} from '../adapters/ai-sdk/ai-sdk-meta.ts';
export {
  CTXKIT_PROVIDER_OPTIONS_KEY,
  type CtxkitCallInfo,
  type CtxkitMiddlewareOptions,
  ctxkitMiddleware,
  type SessionIdOption,
  sessionIdFromProviderOptions,
} from '../adapters/ai-sdk/ai-sdk-middleware.ts';
export {
  type AiSdkTranscript,
  fromAiSdkMessage,
  fromAiSdkPrompt,
  TOOL_APPROVAL_KIND,
  type ToAiSdkPromptInput,
  toAiSdkPrompt,
} from '../adapters/ai-sdk/ai-sdk-prompt.ts';
export {
  fromAiSdkResponse,
  type ResponseMessageOptions,
  usageFromAiSdk,
} from '../adapters/ai-sdk/ai-sdk-response.ts';
export { toolDefinitionsFromAiSdk } from '../adapters/ai-sdk/ai-sdk-tool-definitions.ts';
export { EXECUTION_DENIED_TEXT } from '../adapters/ai-sdk/ai-sdk-tool-output.ts';
export {
  type CtxkitTools,
  type CtxkitToolsOptions,
  ctxkitTools,
  type ReadOffloadedInput,
} from '../adapters/ai-sdk/ai-sdk-tools.ts';
