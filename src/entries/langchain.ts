/**
 * `ctxkit/langchain`: ctxkit inside LangChain.js v1 agents. `ctxkitContextMiddleware` for `createAgent`
 * (the one-line replacement for `summarizationMiddleware`), the `read_offloaded` tool bound to a session,
 * and the message, usage and tool converters they are built on. Needs `langchain` and `@langchain/core`
 * (optional peer dependencies).
 */

export {
  CTXKIT_MIDDLEWARE_NAME,
  type CtxkitContextMiddlewareOptions,
  ctxkitContextMiddleware,
} from '../integrations/langchain/ctxkit-context-middleware.ts';
export {
  type FromLangChainOptions,
  fromLangChainMessage,
  fromLangChainMessages,
  LANGCHAIN_SYSTEM_KIND,
  type ToLangChainOptions,
  toLangChainMessage,
  toLangChainMessages,
  usageFromLangChain,
  usageToLangChain,
} from '../integrations/langchain/langchain-messages.ts';
export {
  createLangChainModelClient,
  type LangChainModelLike,
} from '../integrations/langchain/langchain-model-client.ts';
export { toolDefinitionsFromLangChain } from '../integrations/langchain/langchain-tools.ts';
export {
  type CtxkitReadOffloadedToolOptions,
  ctxkitReadOffloadedTool,
} from '../integrations/langchain/read-offloaded-langchain-tool.ts';
export {
  DERIVED_SESSION_PREFIX,
  FALLBACK_SESSION_ID,
  type LangChainSessionId,
  type LangChainSessionScope,
  resolveSessionId,
} from '../integrations/langchain/session-id.ts';
export {
  type SummarizationKeep,
  type SummarizationOptions,
  type SummarizationTrigger,
  summarizationPolicy,
  UNMAPPED_SUMMARIZATION_OPTIONS,
} from '../integrations/langchain/summarization-options.ts';
