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
import { searchLines, selectLineRange } from './select-lines.ts';

/** Characters returned per call when the model asks for no `limit`: about 5k tokens of code or logs. */
export const DEFAULT_READ_OFFLOADED_LIMIT = 20_000;
/** The most a single call may return, whatever `limit` asks: a part must fit beside the rest of the context. */
export const MAX_READ_OFFLOADED_LIMIT = 100_000;

/** Lines around each match of a `search` when the model asks for no `context`, and the most it may ask. */
export const DEFAULT_SEARCH_CONTEXT = 2;
export const MAX_SEARCH_CONTEXT = 50;

/** The tool's definition, in ctxkit's own shape (`toOpenAITool` / `toAnthropicTool` convert it). */
export const readOffloadedTool: ToolDefinition = Object.freeze({
  name: READ_OFFLOADED_TOOL,
  description:
    'Read content that was moved out of the conversation to save context: an offloaded or spilled tool ' +
    'output, long tool-call arguments, or the transcript behind a summary. Pass the ref the pointer names ' +
    '(e.g. "large_tool_results/r12"). Ask for what you need: `search` returns only the lines holding a ' +
    'text (with `context` lines around them), `startLine`/`endLine` a range of lines. Without them the ' +
    'content comes whole only when it fits, else a part at a time (call again with the `offset` the part ' +
    'ends with). Every answer is sized to fit the context and says how much is left.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      ref: {
        type: 'string',
        description:
          'The ref named in the pointer, e.g. "large_tool_results/r12" or "conversation_history/s1.md".',
      },
      ...pagingProperties({ limit: DEFAULT_READ_OFFLOADED_LIMIT, maxLimit: MAX_READ_OFFLOADED_LIMIT }),
      search: {
        type: 'string',
        description:
          'Return only the lines holding this text (case-insensitive), with their line numbers; with ' +
          '`startLine`, from that line on.',
      },
      context: {
        type: 'integer',
        minimum: 0,
        maximum: MAX_SEARCH_CONTEXT,
        description: `Lines shown before and after each match (default ${DEFAULT_SEARCH_CONTEXT}).`,
      },
      startLine: { type: 'integer', minimum: 1, description: 'First line to return (1-based).' },
      endLine: { type: 'integer', minimum: 1, description: 'Last line to return (default: the end).' },
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
  search?: string;
  context?: number;
  startLine?: number;
  endLine?: number;
}

/** How the answer is sized: `maxChars`, the room the context has for it (see `readBackRoom`). */
export interface ReadOffloadedOptions {
  maxChars?: number;
}

/**
 * Characters a read-back's answer may take beside the request `prepare` returned last: the window less
 * the reply's reserve, the request and a margin for the call itself, at `charsPerToken` (3: code and
 * logs run denser than prose). At least 1,000, so a full context can still read a line or two.
 */
export function readBackRoom(
  stats: { contextWindow: number; maxOutputTokens: number; tokens: { input: number } },
  charsPerToken = 3,
): number {
  const tokens = stats.contextWindow - stats.maxOutputTokens - stats.tokens.input - READ_BACK_CALL_MARGIN;
  const chars = Math.floor(tokens * charsPerToken);
  // Figures that are not numbers (a stats object built by hand) give the floor, never NaN.
  return Number.isFinite(chars) ? Math.max(MIN_READ_BACK_ROOM, chars) : MIN_READ_BACK_ROOM;
}

/** The least room a read-back answer is given, so a full context can still read a line or two. */
export const MIN_READ_BACK_ROOM = 1_000;

/** Tokens kept free for the read-back call and its framing. */
const READ_BACK_CALL_MARGIN = 200;

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
  options: ReadOffloadedOptions = {},
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
  return answer(content, parsed, options);
}

/** The handler bound to one session: `(args) => result`, for a tool registry. */
export function createReadOffloadedHandler(
  manager: OffloadedReader,
  sessionId: string,
  options: ReadOffloadedOptions | (() => ReadOffloadedOptions) = {},
): (args: unknown) => Promise<ReadOffloadedResult> {
  return (args) =>
    handleReadOffloaded(manager, sessionId, args, typeof options === 'function' ? options() : options);
}

/** Whether a tool call is a call of the read-back tool. */
export const isReadOffloadedCall = (call: Pick<ToolCallPart, 'name'>): boolean =>
  call.name === READ_OFFLOADED_TOOL;

/** Answers a read-back tool call as the tool-result part to append (same call id and name). */
export async function readOffloadedResultPart(
  manager: OffloadedReader,
  sessionId: string,
  call: ToolCallPart,
  options: ReadOffloadedOptions = {},
): Promise<ToolResultPart> {
  return resultPartFor(call, await handleReadOffloaded(manager, sessionId, call.args, options));
}

/** The arguments, checked; a string is the message explaining what is wrong with them. */
export function parseReadOffloadedArgs(args: unknown): ReadOffloadedArgs | string {
  const record = argsObject(args, 'ref', EXAMPLE);
  if (typeof record === 'string') return record;
  const unknown = Object.keys(record).filter((key) => !ARGUMENTS.includes(key));
  if (unknown.length > 0)
    return `unknown argument ${clip(unknown.join(', '))}; expected ${ARGUMENTS.join(', ')}`;
  const { ref } = record;
  if (typeof ref !== 'string' || ref.trim() === '')
    return '"ref" is required: the ref the pointer names, e.g. "large_tool_results/r12"';
  const page = pageArgs(record, { limit: DEFAULT_READ_OFFLOADED_LIMIT, maxLimit: MAX_READ_OFFLOADED_LIMIT });
  if (typeof page === 'string') return page;
  const { search, context, startLine, endLine } = record;
  if (search !== undefined && (typeof search !== 'string' || search === ''))
    return '"search" must be a non-empty string';
  if (context !== undefined && (!Number.isInteger(context) || (context as number) < 0))
    return '"context" must be an integer ≥ 0';
  for (const [name, value] of [
    ['startLine', startLine],
    ['endLine', endLine],
  ] as const)
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1))
      return `"${name}" must be an integer ≥ 1`;
  if (search !== undefined && endLine !== undefined)
    return '"endLine" does not go with "search" (pass "startLine" to search from a line on)';
  if (endLine !== undefined && startLine === undefined) return '"endLine" needs "startLine"';
  if (record.offset !== undefined && (search !== undefined || startLine !== undefined))
    return '"offset" pages by characters and does not go with "search" or "startLine"';
  return {
    ref: ref.trim(),
    ...page,
    ...(search !== undefined ? { search: search as string } : {}),
    ...(context !== undefined ? { context: Math.min(context as number, MAX_SEARCH_CONTEXT) } : {}),
    ...(startLine !== undefined ? { startLine: startLine as number } : {}),
    ...(endLine !== undefined ? { endLine: endLine as number } : {}),
  };
}

const ARGUMENTS = ['ref', 'offset', 'limit', 'search', 'context', 'startLine', 'endLine'];

/** `maxChars` as given, or the floor when it is not a number the room could be (NaN, 0, negative). */
function usableRoom(maxChars: number | undefined): number {
  if (maxChars === undefined) return Number.POSITIVE_INFINITY;
  return Number.isFinite(maxChars) && maxChars >= 1 ? Math.floor(maxChars) : MIN_READ_BACK_ROOM;
}

/** A search, a range of lines, or a page, never more than the room the context has (`options.maxChars`). */
function answer(
  content: string,
  args: ReadOffloadedArgs,
  options: ReadOffloadedOptions,
): ReadOffloadedResult {
  const room = Math.max(1, Math.min(args.limit, usableRoom(options.maxChars)));
  if (args.search !== undefined) {
    const found = searchLines(
      content,
      args.search,
      args.context ?? DEFAULT_SEARCH_CONTEXT,
      args.ref,
      room,
      args.startLine,
    );
    return { content: found.content, isError: false, totalChars: content.length };
  }
  if (args.startLine !== undefined) {
    const range = selectLineRange(
      content,
      { startLine: args.startLine, endLine: args.endLine },
      args.ref,
      room,
    );
    if (typeof range === 'string') return failure('invalid_arguments', range);
    return { content: range.content, isError: false, totalChars: content.length };
  }
  return page(content, { ...args, limit: room });
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
