/**
 * The shape of a session's last request as every store keeps it: the system prompt, the tools, the model
 * and the window settings the session's last call gave (what the engine remembers between calls and
 * measures `stats` with), as JSON text, so every process sharing the store measures the same call.
 *
 * One encoding for every store and for the engine comparing what it wrote with what is stored: known
 * fields only, in a fixed order (a tool as `name`, `description`, `parameters`, `injection`), so equal
 * requests are equal text. Reading checks the text with a zod schema: a damaged value is a
 * `CorruptSessionError`, never a crash later. Fields this version does not know are left out, not refused.
 */

import { z } from 'zod';
import { InvalidAppendError } from '../core/errors/index.ts';
import { TOOL_INJECTION_MODES, type ToolDefinition } from '../core/tool-definition.ts';
import { parseSessionJsonColumn } from './session-json-column.ts';

/** A session's last request as stored (the engine's `PrepareRequest` fields, all JSON-safe). */
export interface StoredLastRequest {
  system?: string;
  tools?: ToolDefinition[];
  model?: string;
  contextWindow?: number;
  maxOutputTokens?: number;
}

const tokensSchema = z.int().positive().max(Number.MAX_SAFE_INTEGER);

const storedToolSchema = z.object({
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
  injection: z.enum(TOOL_INJECTION_MODES).optional(),
});

const storedLastRequestSchema = z.object({
  system: z.string().optional(),
  tools: z.array(storedToolSchema).optional(),
  model: z.string().min(1).optional(),
  contextWindow: tokensSchema.optional(),
  maxOutputTokens: tokensSchema.optional(),
});

/**
 * The request as the JSON text the stores keep (`ctxkit_sessions.last_request`), checked: what could
 * not be read back is an `InvalidAppendError` naming the field, before anything is stored.
 */
export function encodeLastRequest(sessionId: string, request: StoredLastRequest): string {
  const refuse = (reason: string) =>
    new InvalidAppendError(sessionId, `the last request cannot be stored: ${reason}`);
  let text: string | undefined;
  try {
    text = JSON.stringify(canonicalRequest(request));
  } catch (error) {
    throw refuse(`it is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (text === undefined) throw refuse('it is not an object');
  // What is checked is what will be read back: the text, parsed.
  const parsed = storedLastRequestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw refuse(describe(parsed.error));
  return text;
}

/** The stored text back as a request; undefined when the session has none. */
export function decodeLastRequest(sessionId: string, text: unknown): StoredLastRequest | undefined {
  const column = parseSessionJsonColumn(sessionId, 'last_request', text);
  if (column === undefined) return undefined;
  const { value, corrupt } = column;
  const parsed = storedLastRequestSchema.safeParse(value);
  if (!parsed.success) throw corrupt(`is not a request: ${describe(parsed.error)}`);
  return canonicalRequest(parsed.data);
}

/**
 * Known fields only, in the stored order, leaving out what is undefined: the object whose
 * `JSON.stringify` is the stored text. Anything else passes as it is, for the schema to refuse.
 */
function canonicalRequest(request: StoredLastRequest): StoredLastRequest {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) return request;
  const out: StoredLastRequest = {};
  if (request.system !== undefined) out.system = request.system;
  if (request.tools !== undefined)
    out.tools = Array.isArray(request.tools) ? request.tools.map(canonicalTool) : request.tools;
  if (request.model !== undefined) out.model = request.model;
  if (request.contextWindow !== undefined) out.contextWindow = request.contextWindow;
  if (request.maxOutputTokens !== undefined) out.maxOutputTokens = request.maxOutputTokens;
  return out;
}

function canonicalTool(tool: ToolDefinition): ToolDefinition {
  if (typeof tool !== 'object' || tool === null || Array.isArray(tool)) return tool;
  const out: ToolDefinition = { name: tool.name };
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.parameters !== undefined) out.parameters = tool.parameters;
  if (tool.injection !== undefined) out.injection = tool.injection;
  return out;
}

function describe(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`)
    .join('; ');
}
