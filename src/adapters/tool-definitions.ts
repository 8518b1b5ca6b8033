/**
 * ctxkit's ToolDefinition → the tool shapes of OpenAI Chat Completions and Anthropic Messages, for
 * agents that call those APIs themselves (the bundled clients convert the same way).
 */
import type { ToolDefinition } from '../core/tool-definition.ts';

export interface OpenAIChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: Record<string, unknown>;
}

export function toOpenAITool(tool: ToolDefinition): OpenAIChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      ...(tool.parameters !== undefined && { parameters: structuredClone(tool.parameters) }),
    },
  };
}

/** Anthropic requires an input schema: a tool without parameters takes an empty object. */
export function toAnthropicTool(tool: ToolDefinition): AnthropicTool {
  return {
    name: tool.name,
    ...(tool.description !== undefined && { description: tool.description }),
    input_schema: tool.parameters ? structuredClone(tool.parameters) : { type: 'object', properties: {} },
  };
}
