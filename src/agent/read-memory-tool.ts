/**
 * The memory read tool (deepagents: "The memory index MEMORY.md … Individual notes enter only when read"):
 * every request shows the memory index, one line per note with the path of the daily file holding it;
 * this tool reads that file, or the whole index when the request shows only part of it. Its name is the
 * one the index's preamble and clip notice use. A path is `MEMORY.md` or `memory/YYYY-MM-DD.md`; anything
 * else, inside the memory directory or out of it, is refused with an error the model can act on.
 */

import { MEMORY_INDEX_PATH, READ_MEMORY_TOOL } from '../core/context-index/render-memory-index.ts';
import { CtxkitError } from '../core/errors/index.ts';
import type { ToolCallPart, ToolResultPart } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { argsObject, clip, pageArgs, pageText, pagingProperties, resultPartFor } from './page-text.ts';

/** Characters returned per call when the model asks for no `limit`: about 5k tokens of notes. */
export const DEFAULT_READ_MEMORY_LIMIT = 20_000;
/** The most a single call may return, whatever `limit` asks. */
export const MAX_READ_MEMORY_LIMIT = 100_000;

/** The tool's definition, in ctxkit's own shape (`toOpenAITool` / `toAnthropicTool` convert it). */
export const readMemoryTool: ToolDefinition = Object.freeze({
  name: READ_MEMORY_TOOL,
  description:
    'Read your long-term memory. The memory index in the system prompt lists one note per line with the ' +
    'file it is in: pass that path (e.g. "memory/2025-03-14.md") to read the notes of that day, or ' +
    `"${MEMORY_INDEX_PATH}" to read the whole index. Long files come back a part at a time: call again ` +
    'with the `offset` the previous part ends with.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: `"${MEMORY_INDEX_PATH}" or a daily file "memory/YYYY-MM-DD.md", as the index names it.`,
      },
      ...pagingProperties({ limit: DEFAULT_READ_MEMORY_LIMIT, maxLimit: MAX_READ_MEMORY_LIMIT }),
    },
    required: ['path'],
    additionalProperties: false,
  }),
});

/** Why a read failed, as a stable code (the text of the result says it to the model). */
export type ReadMemoryErrorCode = 'invalid_arguments' | 'invalid_path' | 'not_found' | 'unavailable';

export interface ReadMemoryResult {
  content: string;
  isError: boolean;
  code?: ReadMemoryErrorCode;
  totalChars?: number;
  nextOffset?: number;
}

/** What the handler needs: the ContextManager's `readMemory`. */
export interface MemoryReader {
  readMemory(path: string): Promise<string>;
}

export interface ReadMemoryArgs {
  path: string;
  offset: number;
  limit: number;
}

/**
 * Answers one call of the memory read tool. `args` as the model sent them: JSON text or the parsed
 * object; a bare JSON string is taken as the path. Bad arguments, paths that are not memory files and
 * days with no notes are error results; only a failing disk throws.
 */
export async function handleReadMemory(reader: MemoryReader, args: unknown): Promise<ReadMemoryResult> {
  const parsed = parseReadMemoryArgs(args);
  if (typeof parsed === 'string') return failure('invalid_arguments', parsed);
  let content: string;
  try {
    content = await reader.readMemory(parsed.path);
  } catch (error) {
    const known = knownFailure(error);
    if (known) return known;
    throw error;
  }
  const paged = pageText(content, {
    ...parsed,
    label: parsed.path,
    nextCall: (offset) =>
      `${READ_MEMORY_TOOL}(${JSON.stringify({ path: parsed.path, offset, limit: parsed.limit })})`,
  });
  if (typeof paged === 'string') return failure('invalid_arguments', paged);
  return { ...paged, isError: false };
}

/** The handler as `(args) => result`, for a tool registry. */
export function createReadMemoryHandler(reader: MemoryReader): (args: unknown) => Promise<ReadMemoryResult> {
  return (args) => handleReadMemory(reader, args);
}

/** Whether a tool call is a call of the memory read tool. */
export const isReadMemoryCall = (call: Pick<ToolCallPart, 'name'>): boolean => call.name === READ_MEMORY_TOOL;

/** Answers a memory read tool call as the tool-result part to append (same call id and name). */
export async function readMemoryResultPart(
  reader: MemoryReader,
  call: ToolCallPart,
): Promise<ToolResultPart> {
  return resultPartFor(call, await handleReadMemory(reader, call.args));
}

const EXAMPLE = '{"path": "memory/2025-03-14.md"}';

/** The arguments, checked; a string is the message explaining what is wrong with them. */
export function parseReadMemoryArgs(args: unknown): ReadMemoryArgs | string {
  const record = argsObject(args, 'path', EXAMPLE);
  if (typeof record === 'string') return record;
  const unknown = Object.keys(record).filter((key) => !['path', 'offset', 'limit'].includes(key));
  if (unknown.length > 0) return `unknown argument ${clip(unknown.join(', '))}; expected path, offset, limit`;
  const { path } = record;
  if (typeof path !== 'string' || path.trim() === '')
    return `"path" is required: "${MEMORY_INDEX_PATH}" or a daily file like "memory/2025-03-14.md"`;
  const page = pageArgs(record, { limit: DEFAULT_READ_MEMORY_LIMIT, maxLimit: MAX_READ_MEMORY_LIMIT });
  if (typeof page === 'string') return page;
  return { path: path.trim(), ...page };
}

function knownFailure(error: unknown): ReadMemoryResult | undefined {
  if (!CtxkitError.isInstance(error)) return undefined;
  switch (error.code) {
    case 'invalid_memory_path':
      return failure('invalid_path', error.message);
    case 'memory_note_not_found':
      return failure('not_found', `${error.message}; the memory index lists the files that exist`);
    case 'memory_unavailable':
      return failure('unavailable', 'this agent has no memory files to read');
    default:
      return undefined;
  }
}

function failure(code: ReadMemoryErrorCode, message: string): ReadMemoryResult {
  return { content: `Error: ${message}`, isError: true, code };
}
