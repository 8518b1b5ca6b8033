/**
 * The tools a LangChain model call binds, as ctxkit tool definitions: what `prepare` counts as the request's
 * `tools` region. LangChain tools (zod or JSON schema) go through LangChain's own OpenAI conversion; an
 * OpenAI-style dict is read as it is; a provider's built-in tool (`{ type: 'web_search_preview' }`) is kept
 * whole as the parameters of a definition named after it, so its size is still counted.
 */
import { convertToOpenAITool, isLangChainTool } from '@langchain/core/utils/function_calling';
import type { ToolDefinition } from '../../core/tool-definition.ts';

const cache = new WeakMap<object, ToolDefinition>();

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Definitions of the tools, in order; each tool object is converted once and remembered. */
export function toolDefinitionsFromLangChain(tools: readonly unknown[]): ToolDefinition[] {
  return tools.map((tool) => {
    if (!isRecord(tool)) return { name: String(tool) };
    const cached = cache.get(tool);
    if (cached) return cached;
    const definition = definitionOf(tool);
    cache.set(tool, definition);
    return definition;
  });
}

/** The name a tool is called by (a LangChain tool's `name`, an OpenAI dict's `function.name`). */
export function toolNameOf(tool: unknown): string | undefined {
  if (!isRecord(tool)) return undefined;
  if (typeof tool.name === 'string') return tool.name;
  const fn = tool.function;
  return isRecord(fn) && typeof fn.name === 'string' ? fn.name : undefined;
}

function definitionOf(tool: Record<string, unknown>): ToolDefinition {
  const openai = isLangChainTool(tool) ? (convertToOpenAITool(tool) as unknown) : tool;
  const fn = isRecord(openai) ? openai.function : undefined;
  if (isRecord(fn) && typeof fn.name === 'string') {
    return {
      name: fn.name,
      ...(typeof fn.description === 'string' && fn.description !== '' && { description: fn.description }),
      ...(isRecord(fn.parameters) && { parameters: fn.parameters }),
    };
  }
  const name = toolNameOf(tool) ?? (typeof tool.type === 'string' ? tool.type : 'tool');
  return { name, parameters: tool };
}
