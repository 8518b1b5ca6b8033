/**
 * `read_file`: a text file of the workspace, with line numbers, a range of lines at a time
 * (`startLine`/`endLine`), or raw from a byte `offset` (for a line too long to show whole). The file is
 * read in chunks and only what is shown is held, so a 50 MB file costs the room of one answer; every
 * answer says where it sits in the file and how much is left. Binary files are described, not shown.
 */

import type fs from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { safeCutIndex } from '../../core/utf16-boundary.ts';
import type { AgentTool } from '../agent-tool.ts';
import { openTextFile } from './open-text-file.ts';
import { decodeUtf8, utf8CompleteLength, utf8CutStart, withoutNul } from './text-bytes.ts';
import {
  answering,
  count,
  failure,
  isResult,
  parseToolArgs,
  plural,
  shownPath,
  success,
  type WorkspaceToolResult,
} from './tool-result.ts';
import type { Workspace } from './workspace-paths.ts';

export const READ_FILE_TOOL = 'read_file';

/** Characters an answer holds when the call gives no `limit`: about 5k tokens of code. */
export const DEFAULT_READ_FILE_LIMIT = 20_000;
/** The most one answer holds, whatever `limit` asks. */
export const MAX_READ_FILE_LIMIT = 100_000;
/** Files up to this size are read to the end to count their lines; past it, what is left is told in bytes. */
export const MAX_LINE_COUNT_BYTES = 64 * 1024 * 1024;

const CHUNK_BYTES = 64 * 1024;

export const readFileTool: ToolDefinition = Object.freeze({
  name: READ_FILE_TOOL,
  description:
    'Read a text file of the workspace, with line numbers ("12: text"). Give startLine/endLine for a ' +
    'range of lines; long files come back a part at a time, each saying how much is left and where to go ' +
    'on. A line too long to show whole is cut, and the answer gives the byte `offset` its rest starts at: ' +
    'pass `offset` to read raw text from there. Binary files are not shown.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The file, relative to the workspace root.' },
      startLine: { type: 'integer', minimum: 1, description: 'First line to return (1-based; default 1).' },
      endLine: { type: 'integer', minimum: 1, description: 'Last line to return (default: as many as fit).' },
      offset: {
        type: 'integer',
        minimum: 0,
        description: 'Byte offset to read raw text from, without line numbers (not with startLine/endLine).',
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_READ_FILE_LIMIT,
        description: `Most characters to return (default ${DEFAULT_READ_FILE_LIMIT}).`,
      },
    },
    required: ['path'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({
  path: z.string().min(1),
  startLine: z.int().min(1).optional(),
  endLine: z.int().min(1).optional(),
  offset: z.int().min(0).optional(),
  limit: z.int().min(1).optional(),
});
type ReadFileArgs = z.infer<typeof ArgsSchema>;

const EXAMPLE = '{"path": "src/index.ts", "startLine": 1, "endLine": 200}';

export function createReadFileTool(workspace: Workspace): AgentTool {
  return {
    definition: readFileTool,
    run: (args, context) => answering(() => readFile(workspace, args, context.signal)),
  };
}

async function readFile(
  workspace: Workspace,
  args: unknown,
  signal: AbortSignal,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'path');
  if (isResult(parsed)) return parsed;
  if (parsed.offset !== undefined && (parsed.startLine !== undefined || parsed.endLine !== undefined))
    return failure(
      'invalid_arguments',
      '"offset" reads raw text and does not go with "startLine" or "endLine"',
    );
  if (parsed.endLine !== undefined && parsed.endLine < (parsed.startLine ?? 1))
    return failure(
      'invalid_arguments',
      `"endLine" ${parsed.endLine} is before "startLine" ${parsed.startLine ?? 1}`,
    );
  const file = await openTextFile(workspace, parsed.path);
  try {
    const limit = Math.min(parsed.limit ?? DEFAULT_READ_FILE_LIMIT, MAX_READ_FILE_LIMIT);
    const label = shownPath(file.relative);
    if (file.size === 0) return success(`[${label}: empty file.]`);
    if (parsed.offset !== undefined)
      return await readRaw(file.handle, file.size, label, parsed.offset, limit);
    return await readLines(file.handle, file.size, label, parsed, limit, signal);
  } finally {
    await file.handle.close();
  }
}

async function readRaw(
  handle: fs.FileHandle,
  size: number,
  label: string,
  offset: number,
  limit: number,
): Promise<WorkspaceToolResult> {
  if (offset >= size)
    return failure(
      'invalid_arguments',
      `offset ${count(offset)} is past the end of ${label} (${count(size)} bytes)`,
    );
  // A few bytes more than the room, so a start inside a character can move on to the next one.
  const buffer = Buffer.alloc(Math.min(limit + 3, size - offset));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
  const start = utf8CutStart(buffer.subarray(0, bytesRead), 0);
  let bytes = buffer.subarray(start, Math.min(bytesRead, start + limit));
  const atEnd = offset + start + bytes.length >= size;
  if (!atEnd) bytes = bytes.subarray(0, utf8CompleteLength(bytes) || bytes.length);
  const from = offset + start;
  const to = from + bytes.length;
  const next =
    to < size
      ? ` ${count(size - to)} bytes left: next ${READ_FILE_TOOL}(${JSON.stringify({ path: label, offset: to, limit })}).`
      : ' This is the end.';
  return success(
    `[${label}: bytes ${count(from)}–${count(to)} of ${count(size)}.${next}]\n${withoutNul(decodeUtf8(bytes))}`,
  );
}

async function readLines(
  handle: fs.FileHandle,
  size: number,
  label: string,
  args: ReadFileArgs,
  room: number,
  signal: AbortSignal,
): Promise<WorkspaceToolResult> {
  const startLine = args.startLine ?? 1;
  const endLine = args.endLine;
  const countAll = size <= MAX_LINE_COUNT_BYTES;
  // The bytes kept of one line: enough to fill the room whatever its characters' widths.
  const lineCap = room * 4 + 4;
  const out: string[] = [];
  let used = 0;
  let lineNo = 1;
  let lineStart = 0;
  let current: Buffer[] = [];
  let currentBytes = 0;
  let currentCut = false;
  let lastShown = startLine - 1;
  /** Where the line after the last one shown starts. */
  let afterShown = 0;
  let cut: { line: number; restAt: number } | undefined;
  let stoppedForRoom = false;
  let done = false;
  let position = 0;
  let eof = false;

  const finishLine = (): void => {
    let bytes = Buffer.concat(current, currentBytes);
    if (!currentCut && bytes[bytes.length - 1] === 13) bytes = bytes.subarray(0, -1);
    // NULs are replaced only once the text is placed, so the byte offset of a cut stays exact.
    const text = decodeUtf8(currentCut ? bytes.subarray(0, utf8CompleteLength(bytes)) : bytes);
    current = [];
    currentBytes = 0;
    const lineLabel = `${lineNo}: `;
    const separator = out.length > 0 ? 1 : 0;
    if (!currentCut && used + separator + lineLabel.length + text.length <= room) {
      out.push(lineLabel + withoutNul(text));
      used += separator + lineLabel.length + text.length;
      lastShown = lineNo;
    } else {
      done = true;
      if (out.length > 0) stoppedForRoom = true;
      else {
        const shown = text.slice(0, safeCutIndex(text, Math.max(1, room - lineLabel.length - 1)));
        out.push(`${lineLabel}${withoutNul(shown)}…`);
        lastShown = lineNo;
        cut = { line: lineNo, restAt: lineStart + Buffer.byteLength(shown) };
      }
    }
    currentCut = false;
  };

  const buffer = Buffer.alloc(CHUNK_BYTES);
  reading: for (;;) {
    if (signal.aborted) return failure('aborted', 'the read was cancelled');
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) {
      eof = true;
      break;
    }
    const chunk = buffer.subarray(0, bytesRead);
    let at = 0;
    while (at < chunk.length) {
      const newline = chunk.indexOf(10, at);
      const end = newline === -1 ? chunk.length : newline;
      if (!done && lineNo >= startLine) {
        const take = Math.min(end - at, lineCap - currentBytes);
        if (take < end - at) currentCut = true;
        if (take > 0) {
          current.push(Buffer.from(chunk.subarray(at, at + take)));
          currentBytes += take;
        }
      }
      if (newline === -1) break;
      if (!done && lineNo >= startLine) {
        finishLine();
        if (lastShown === lineNo) afterShown = position + newline + 1;
      }
      lineNo++;
      lineStart = position + newline + 1;
      at = newline + 1;
      if (!done && endLine !== undefined && lineNo > endLine) done = true;
      if (done && !countAll) {
        position += bytesRead;
        break reading;
      }
    }
    position += bytesRead;
  }
  // The last line, when the file does not end with a line break.
  const lastLineOpen = eof && lineStart < size;
  if (lastLineOpen && !done && lineNo >= startLine) {
    finishLine();
    if (lastShown === lineNo) afterShown = size;
  }
  const totalLines = eof ? (lastLineOpen ? lineNo : lineNo - 1) : undefined;
  if (totalLines !== undefined && startLine > totalLines)
    return failure(
      'invalid_arguments',
      totalLines === 0
        ? `${label} has no lines`
        : `startLine ${count(startLine)} is past the end of ${label} (${plural(totalLines, 'line')})`,
    );
  const of = totalLines !== undefined ? ` of ${count(totalLines)}` : '';
  const shownEnd = Math.max(startLine, lastShown);
  const range =
    shownEnd === startLine
      ? `line ${count(startLine)}${of}`
      : `lines ${count(startLine)}–${count(shownEnd)}${of}`;
  let more: string;
  if (cut)
    more = ` Line ${count(cut.line)} is longer than the room: its rest starts at byte offset ${count(cut.restAt)} (pass "offset"). The lines after it start at startLine ${count(cut.line + 1)}.`;
  else if (stoppedForRoom)
    more = ` Shown up to line ${count(lastShown)} to fit: go on with startLine ${count(lastShown + 1)}.`;
  else if (totalLines !== undefined && lastShown >= totalLines) more = ' This is the end.';
  else more = '';
  if (!more.endsWith('This is the end.')) {
    const after = totalLines !== undefined ? `${plural(totalLines - lastShown, 'more line')}, ` : '';
    more += ` ${after}${count(size - afterShown)} bytes after line ${count(lastShown)}.`;
  }
  return success(`[${label}: ${range}.${more}]\n${out.join('\n')}`);
}
