import { InvalidTokenCounterError } from '../errors/index.ts';
import type { ToolDefinition } from '../tool-definition.ts';
import type { TokenCounter } from './token-counter.ts';

/**
 * Framing around each tool definition (`{"type":"function","function":{…}}`, or the namespace text
 * OpenAI renders it to): a handful of tokens that no field of the definition accounts for.
 */
export const DEFAULT_TOOL_DEFINITION_OVERHEAD_TOKENS = 8;

export interface ToolDefinitionTokenOptions {
  /** Tokens added per tool. Default {@link DEFAULT_TOOL_DEFINITION_OVERHEAD_TOKENS}. */
  toolOverheadTokens?: number;
}

/**
 * Tokens the tool definitions take in a request (picoclaw's `estimateToolDefsTokens`): name, description
 * and the JSON schema of the parameters, serialized compactly as providers send it.
 */
export function estimateToolDefinitionTokens(
  tools: readonly ToolDefinition[],
  counter: TokenCounter,
  options: ToolDefinitionTokenOptions = {},
): number {
  const overhead = options.toolOverheadTokens ?? DEFAULT_TOOL_DEFINITION_OVERHEAD_TOKENS;
  if (!Number.isFinite(overhead) || overhead < 0) {
    throw new InvalidTokenCounterError('toolOverheadTokens', `must be a finite number ≥ 0, got ${overhead}`);
  }
  let total = 0;
  for (const tool of tools) {
    total += overhead + counter.count(tool.name);
    if (tool.description) total += counter.count(tool.description);
    if (tool.parameters !== undefined) total += counter.count(JSON.stringify(tool.parameters));
  }
  return total;
}

/** Characters the same definitions put in a request, for calibration anchors (see `measureRequest`). */
export function toolDefinitionText(tools: readonly ToolDefinition[]): string[] {
  const pieces: string[] = [];
  for (const tool of tools) {
    pieces.push(tool.name);
    if (tool.description) pieces.push(tool.description);
    if (tool.parameters !== undefined) pieces.push(JSON.stringify(tool.parameters));
  }
  return pieces;
}
