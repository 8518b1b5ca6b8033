/**
 * `ctxkit/ai-sdk`: ctxkit for the Vercel AI SDK, 6 (`LanguageModelV3`) or 7 (`LanguageModelV4`), whichever
 * is installed. `ctxkitMiddleware` for `wrapLanguageModel` puts every call of a model through a ctxkit
 * session; `ctxkitTools` gives the model ctxkit's read-back tool; the converters turn AI SDK prompts and
 * responses into ctxkit messages and back. Its types name neither version's `@ai-sdk/provider`: the
 * specification types it reads and writes are declared here (`AiSdkV3Prompt`, `AiSdkV4Prompt`, …).
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
} from '../integrations/ai-sdk/ai-sdk-meta.ts';
export {
  type AiSdkWrappedModel,
  CTXKIT_PROVIDER_OPTIONS_KEY,
  type CtxkitCallInfo,
  type CtxkitMiddleware,
  type CtxkitMiddlewareOptions,
  ctxkitMiddleware,
  type SessionIdOption,
  sessionIdFromProviderOptions,
} from '../integrations/ai-sdk/ai-sdk-middleware.ts';
export {
  type AiSdkTranscript,
  fromAiSdkMessage,
  fromAiSdkPrompt,
  TOOL_APPROVAL_KIND,
} from '../integrations/ai-sdk/ai-sdk-prompt.ts';
export {
  fromAiSdkResponse,
  type ResponseMessageOptions,
  usageFromAiSdk,
} from '../integrations/ai-sdk/ai-sdk-response.ts';
export type {
  AiSdkCallOptions,
  AiSdkContent,
  AiSdkGenerateResult,
  AiSdkMessage,
  AiSdkModelInfo,
  AiSdkPrompt,
  AiSdkSpecificationVersion,
  AiSdkStreamPart,
  AiSdkTool,
  AiSdkToolResultOutput,
  AiSdkUsage,
  AiSdkV3Message,
  AiSdkV3Prompt,
  AiSdkV3ToolResultOutput,
  AiSdkV4Message,
  AiSdkV4Prompt,
  AiSdkV4ToolResultOutput,
} from '../integrations/ai-sdk/ai-sdk-spec.ts';
export { toolDefinitionsFromAiSdk } from '../integrations/ai-sdk/ai-sdk-tool-definitions.ts';
export { EXECUTION_DENIED_TEXT } from '../integrations/ai-sdk/ai-sdk-tool-output.ts';
export {
  type CtxkitTools,
  type CtxkitToolsOptions,
  ctxkitTools,
  type ReadOffloadedInput,
} from '../integrations/ai-sdk/ai-sdk-tools.ts';
export {
  type ToAiSdkPromptInput,
  type ToAiSdkPromptOptions,
  toAiSdkPrompt,
} from '../integrations/ai-sdk/ai-sdk-write-prompt.ts';
