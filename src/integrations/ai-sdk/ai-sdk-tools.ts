/**
 * ctxkit's read-back tool as an AI SDK tool, for AI SDK 6 and 7 alike (`tool` and `jsonSchema` are the
 * installed `ai`'s; the tool's shape and its text outputs are the same in both). When ctxkit offloads a large tool result (or long
 * arguments, or a summarized transcript), the request keeps a pointer naming `read_offloaded` and a ref;
 * give the model the tool and it can read the content back, a part at a time, inside its own session:
 *
 *   generateText({ model, tools: { ...myTools, ...ctxkitTools({ manager, sessionId }) }, ... })
 *
 * Its answers are sized to the room the window has beside the session's request (`readBackRoom` over
 * `manager.stats`), unless `maxChars` says otherwise. An answer the handler marks as an error (an unknown
 * ref, bad arguments) reaches the model as an error result.
 */
import { jsonSchema, type Tool, tool } from 'ai';
import {
  handleReadOffloaded,
  type ReadOffloadedResult,
  readBackRoom,
  readOffloadedTool,
} from '../../agent/read-offloaded-tool.ts';
import type { ContextManager } from '../../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';

export interface CtxkitToolsOptions {
  manager: Pick<ContextManager, 'readOffloaded' | 'stats'>;
  /** The session the middleware serves for this call (a session reads only its own refs). */
  sessionId: string;
  /**
   * The most characters one answer may take. Unset: the room the window has beside the session's current
   * request, as `readBackRoom(await manager.stats(sessionId))` counts it.
   */
  maxChars?: number;
}

/** The arguments the model sends (see `readOffloadedTool.parameters`). */
export interface ReadOffloadedInput {
  ref: string;
  offset?: number;
  limit?: number;
  search?: string;
  context?: number;
  startLine?: number;
  endLine?: number;
}

export type CtxkitTools = { [READ_OFFLOADED_TOOL]: Tool<ReadOffloadedInput, ReadOffloadedResult> };

export function ctxkitTools(options: CtxkitToolsOptions): CtxkitTools {
  const { manager, sessionId } = options;
  const maxChars = async (): Promise<number | undefined> => {
    if (options.maxChars !== undefined) return options.maxChars;
    return readBackRoom(await manager.stats(sessionId));
  };
  return {
    [READ_OFFLOADED_TOOL]: tool({
      ...(readOffloadedTool.description !== undefined && { description: readOffloadedTool.description }),
      inputSchema: jsonSchema<ReadOffloadedInput>(structuredClone(readOffloadedTool.parameters ?? {})),
      execute: async (input: ReadOffloadedInput): Promise<ReadOffloadedResult> => {
        const room = await maxChars();
        return handleReadOffloaded(manager, sessionId, input, room !== undefined ? { maxChars: room } : {});
      },
      toModelOutput: ({ output }: { output: ReadOffloadedResult }) =>
        output.isError
          ? { type: 'error-text', value: output.content }
          : { type: 'text', value: output.content },
    }),
  };
}
