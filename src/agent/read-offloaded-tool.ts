/**
 * The read-back tool: what an agent offers its model so every pointer ctxkit leaves can be followed.
 * An offloaded result reads `read_offloaded("large_tool_results/r12")`, a spilled one says "Read it
 * with the read_offloaded tool (ref "…"), a part at a time", a summary names its transcript's ref: the
 * tool's name is the one those pointers use, and its one required argument is that `ref`.
 *
 * Content is read inside the asking session only (refs are relative to it), so another session's ref
 * is answered exactly like an unknown one. A blob larger than `limit` comes back a part at a time, each
 * part ending with the call that reads the next.
 */
import { CtxkitError } from '../core/errors/index.ts';
import type { ToolCallPart, ToolResultPart } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import { argsObject, clip, pageArgs, pageText, pagingProperties, resultPartFor } from './page-text.ts';

/** Characters returned per call when the model asks for no `limit`: about 5k tokens of code or logs. */
export const DEFAULT_READ_OFFLOADED_LIMIT = 20_000;
/** The most a single call may return, whatever `limit` asks: a part must fit beside the rest of the context. */
export const MAX_READ_OFFLOADED_LIMIT = 100_000;

/** The tool's definition, in ctxkit's own shape (`toOpenAITool` / `toAnthropicTool` convert it). */
export const readOffloadedTool: ToolDefinition = Object.freeze({
  name: READ_OFFLOADED_TOOL,
  description:
    'Read content that was moved out of the conversation to save context: an offloaded or spilled tool ' +
    'output, long tool-call arguments, or the transcript behind a summary. Pass the ref the pointer names ' +
    '(e.g. "large_tool_results/r12"). Large content comes back a part at a time: call again with the ' +
    '`offset` the previous part ends with.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      ref: {
        type: 'string',
        description:
          'The ref named in the pointer, e.g. "large_tool_results/r12" or "conversation_history/s1.md".',
      },
      ...pagingProperties({ limit: DEFAULT_READ_OFFLOADED_LIMIT, maxLimit: MAX_READ_OFFLOADED_LIMIT }),
    },
    required: ['ref'],
    additionalProperties: false,
  }),
});

/** Why a read failed, as a stable code (the text of the result says it to the model). */
export type ReadOffloadedErrorCode = 'invalid_arguments' | 'not_found' | 'invalid_ref' | 'integrity';

/** The tool's answer: the content (or a part of it), or an error the model can act on. */
export interface ReadOffloadedResult {
  content: string;
  isError: boolean;
  /** Set on errors. */
  code?: ReadOffloadedErrorCode;
  /** Set on success: the blob's whole length in characters, and where the next part starts (if any). */
  totalChars?: number;
  nextOffset?: number;
}

/** What the handler needs of a ContextManager: its session-scoped reader. */
export interface OffloadedReader {
  readOffloaded(sessionId: string, ref: string): Promise<string>;
}

export interface ReadOffloadedArgs {
  ref: string;
  offset: number;
  limit: number;
}

/**
 * Answers one call of the read-back tool for `sessionId`. `args` is the call's arguments as the model
 * sent them: a JSON text (a `tool-call` part's `args`) or the parsed object; a bare JSON string is taken
 * as the ref, as pointers write it. Bad arguments, unknown refs, another session's refs and corrupted
 * blobs are error results; only a failing store throws.
 */
export async function handleReadOffloaded(
  manager: OffloadedReader,
  sessionId: string,
  args: unknown,
): Promise<ReadOffloadedResult> {
  const parsed = parseReadOffloadedArgs(args);
  if (typeof parsed === 'string') return failure('invalid_arguments', parsed);
  let content: string;
  try {
    content = await manager.readOffloaded(sessionId, parsed.ref);
  } catch (error) {
    const known = knownFailure(error, parsed.ref);
    if (known) return known;
    throw error;
  }
  return page(content, parsed);
}

/** The handler bound to one session: `(args) => result`, for a tool registry. */
export function createReadOffloadedHandler(
  manager: OffloadedReader,
  sessionId: string,
): (args: unknown) => Promise<ReadOffloadedResult> {
  return (args) => handleReadOffloaded(manager, sessionId, args);
}

/** Whether a tool call is a call of the read-back tool. */
export const isReadOffloadedCall = (call: Pick<ToolCallPart, 'name'>): boolean =>
  call.name === READ_OFFLOADED_TOOL;

/** Answers a read-back tool call as the tool-result part to append (same call id and name). */
export async function readOffloadedResultPart(
  manager: OffloadedReader,
  sessionId: string,
  call: ToolCallPart,
): Promise<ToolResultPart> {
  return resultPartFor(call, await handleReadOffloaded(manager, sessionId, call.args));
}

/** The arguments, checked; a string is the message explaining what is wrong with them. */
export function parseReadOffloadedArgs(args: unknown): ReadOffloadedArgs | string {
  const record = argsObject(args, 'ref', EXAMPLE);
  if (typeof record === 'string') return record;
  const unknown = Object.keys(record).filter((key) => !['ref', 'offset', 'limit'].includes(key));
  if (unknown.length > 0) return `unknown argument ${clip(unknown.join(', '))}; expected ref, offset, limit`;
  const { ref } = record;
  if (typeof ref !== 'string' || ref.trim() === '')
    return '"ref" is required: the ref the pointer names, e.g. "large_tool_results/r12"';
  const page = pageArgs(record, { limit: DEFAULT_READ_OFFLOADED_LIMIT, maxLimit: MAX_READ_OFFLOADED_LIMIT });
  if (typeof page === 'string') return page;
  return { ref: ref.trim(), ...page };
}

const EXAMPLE = '{"ref": "large_tool_results/r12"}';

function page(content: string, args: ReadOffloadedArgs): ReadOffloadedResult {
  // Offset 0 of an empty blob is its whole (empty) content; any other offset at or past the end is an error.
  const part = pageText(content, {
    offset: args.offset,
    limit: args.limit,
    label: args.ref,
    nextCall: (offset) =>
      `${READ_OFFLOADED_TOOL}(${JSON.stringify({ ref: args.ref, offset, limit: args.limit })})`,
  });
  if (typeof part === 'string') return failure('invalid_arguments', part);
  return { ...part, isError: false };
}

function knownFailure(error: unknown, ref: string): ReadOffloadedResult | undefined {
  if (!CtxkitError.isInstance(error)) return undefined;
  switch (error.code) {
    case 'blob_not_found':
      // Another session's ref lands here too: refs only mean something inside their own session.
      return failure('not_found', `no offloaded content ${JSON.stringify(ref)} in this conversation`);
    case 'invalid_blob_id':
      return failure(
        'invalid_ref',
        `${JSON.stringify(clip(ref))} is not a ref: refs look like "large_tool_results/r12" or "conversation_history/<name>.md"`,
      );
    case 'blob_integrity':
      return failure('integrity', `the content of ${JSON.stringify(ref)} is damaged and cannot be read`);
    default:
      return undefined;
  }
}

function failure(code: ReadOffloadedErrorCode, message: string): ReadOffloadedResult {
  return { content: `Error: ${message}`, isError: true, code };
}
