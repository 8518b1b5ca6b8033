/**
 * ctxkit's read-back tool as a LangChain tool: the pointers ctxkit leaves where it offloaded content name
 * `read_offloaded` and a `ref`; this tool answers them from the session it is bound to, and from no other
 * (another session's ref is answered as not found). Errors (a bad ref, bad arguments) come back as a tool
 * message with `status: 'error'` the model can act on; only a failing store throws.
 */
import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { handleReadOffloaded, readOffloadedTool } from '../../agent/read-offloaded-tool.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import { type LangChainSessionId, type LangChainSessionScope, resolveSessionId } from './session-id.ts';

export interface CtxkitReadOffloadedToolOptions {
  manager: Pick<ContextManager, 'readOffloaded'>;
  /** The session whose content it reads; by default the run's `thread_id`, as the middleware resolves it. */
  sessionId?: LangChainSessionId;
  /**
   * The most characters one answer may take (see `readBackRoom`), or a function of the session giving it.
   * The middleware's own tool sizes each answer to the room its last request left.
   */
  maxChars?: number | ((sessionId: string) => number | undefined);
}

/** What LangChain hands a tool besides its input (`ToolRuntime`), as far as this tool reads it. */
interface ToolCallRuntime {
  toolCallId?: string;
  state?: unknown;
  context?: unknown;
  configurable?: Record<string, unknown>;
  config?: { configurable?: Record<string, unknown> };
}

/** The `read_offloaded` tool bound to a manager and a session, for `createAgent({ tools })`. */
export function ctxkitReadOffloadedTool(options: CtxkitReadOffloadedToolOptions) {
  const { manager } = options;
  return tool(
    async (input: unknown, runtime: unknown) => {
      const run = (runtime ?? {}) as ToolCallRuntime;
      const sessionId = resolveSessionId(options.sessionId, scopeOf(run));
      const maxChars =
        typeof options.maxChars === 'function' ? options.maxChars(sessionId) : options.maxChars;
      const result = await handleReadOffloaded(manager, sessionId, input, {
        ...(maxChars !== undefined && { maxChars }),
      });
      if (!result.isError || !run.toolCallId) return result.content;
      return new ToolMessage({
        content: result.content,
        tool_call_id: run.toolCallId,
        name: READ_OFFLOADED_TOOL,
        status: 'error',
      });
    },
    {
      name: READ_OFFLOADED_TOOL,
      description: readOffloadedTool.description ?? '',
      // A copy: the definition is frozen, and LangChain may annotate the schema it is given.
      schema: structuredClone(readOffloadedTool.parameters ?? { type: 'object', properties: {} }),
    },
  );
}

function scopeOf(run: ToolCallRuntime): LangChainSessionScope {
  const state = run.state;
  return {
    ...(typeof state === 'object' && state !== null && { state: state as LangChainSessionScope['state'] }),
    configurable: run.config?.configurable ?? run.configurable,
    context: run.context,
  };
}
