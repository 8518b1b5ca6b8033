import { InvalidInputError } from '../core/errors/index.ts';
import { toolInjectionOf } from '../core/tool-definition.ts';
import type { PrepareRequest } from './call-context.ts';

/**
 * Checks what a library caller hands `prepare` or `stats` before anything is remembered of it (the
 * session keeps the last system prompt and tools), so a bad value is an `InvalidInputError` naming its
 * field (`request.tools[2].name`) and the session is left as it was. Cheap: it runs before every call.
 */
export function validatePrepareRequest(request: unknown): asserts request is PrepareRequest | undefined {
  if (request === undefined) return;
  if (typeof request !== 'object' || request === null || Array.isArray(request))
    throw invalid('request', `must be an object like { system, tools, model }, got ${describe(request)}`);
  const { system, tools, model, contextWindow, maxOutputTokens } = request as Record<string, unknown>;
  if (system !== undefined && typeof system !== 'string')
    throw invalid('request.system', `must be a string, got ${describe(system)}`);
  if (model !== undefined && (typeof model !== 'string' || model === ''))
    throw invalid('request.model', `must be a non-empty string, got ${describe(model)}`);
  for (const [key, value] of [
    ['contextWindow', contextWindow],
    ['maxOutputTokens', maxOutputTokens],
  ] as const) {
    if (value !== undefined && !(typeof value === 'number' && Number.isSafeInteger(value) && value > 0))
      throw invalid(`request.${key}`, `must be a positive whole number of tokens, got ${describe(value)}`);
  }
  if (tools === undefined) return;
  if (!Array.isArray(tools))
    throw invalid('request.tools', `must be an array of tools, got ${describe(tools)}`);
  tools.forEach((tool: unknown, index) => {
    const path = `request.tools[${index}]`;
    if (typeof tool !== 'object' || tool === null || Array.isArray(tool))
      throw invalid(path, `must be a tool object with a name, got ${describe(tool)}`);
    const { name, description, parameters } = tool as Record<string, unknown>;
    if (typeof name !== 'string' || name === '')
      throw invalid(`${path}.name`, `must be a non-empty string, got ${describe(name)}`);
    if (description !== undefined && typeof description !== 'string')
      throw invalid(`${path}.description`, `must be a string, got ${describe(description)}`);
    if (
      parameters !== undefined &&
      (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters))
    )
      throw invalid(`${path}.parameters`, `must be a JSON Schema object, got ${describe(parameters)}`);
    toolInjectionOf(tool as Parameters<typeof toolInjectionOf>[0], index);
  });
}

function invalid(field: string, reason: string): InvalidInputError {
  return new InvalidInputError(reason, { field });
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.slice(0, 40))})`;
  if (typeof value === 'number') return `the number ${value}`;
  return typeof value;
}
