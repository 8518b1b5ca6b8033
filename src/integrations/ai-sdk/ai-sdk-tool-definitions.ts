/**
 * The tools of an AI SDK call (either specification version: they are alike) → ctxkit's
 * `ToolDefinition`s, so `prepare` counts them in the request. A function tool is its name, description and
 * input schema; a provider tool (web search, code execution) is its name and id: its definition is the
 * provider's, not in the request as a schema.
 */
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { AiSdkTool } from './ai-sdk-spec.ts';

export function toolDefinitionsFromAiSdk(tools: readonly AiSdkTool[] | undefined): ToolDefinition[] {
  return (tools ?? []).map((tool): ToolDefinition => {
    if (tool.type === 'provider') return { name: tool.name, description: `provider tool ${tool.id}` };
    return {
      name: tool.name,
      ...(tool.description !== undefined && { description: tool.description }),
      parameters: tool.inputSchema as Record<string, unknown>,
    };
  });
}
