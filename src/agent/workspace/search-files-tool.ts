/**
 * `search_files`: the lines of the workspace's text files that hold a text (or, with `regex: true`, match
 * a regular expression), as `path:line: text`. Pure Node, no external binary. Bounded every way: files
 * over a size, binary files, `.git` and `node_modules` are skipped; each answer holds at most `limit`
 * matches and a bounded number of characters; a regular expression is tried on at most the first
 * {@link MAX_REGEX_LINE_CHARS} characters of a line, and runs under a time limit per file (a pattern with
 * catastrophic backtracking, `(a+)+$`, is stopped and the answer says so instead of hanging the agent).
 */

import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import vm from 'node:vm';
import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { safeCutIndex } from '../../core/utf16-boundary.ts';
import type { AgentTool } from '../agent-tool.ts';
import { clip } from '../page-text.ts';
import { globMatcher } from './match-glob.ts';
import { decodeUtf8, looksBinary, withoutNul } from './text-bytes.ts';
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
import { walkFiles } from './walk-files.ts';
import type { Workspace } from './workspace-paths.ts';

export const SEARCH_FILES_TOOL = 'search_files';

/** Matches an answer lists when the call gives no limit, and the most it may ask for. */
export const DEFAULT_SEARCH_FILES_LIMIT = 100;
export const MAX_SEARCH_FILES_LIMIT = 1_000;
/** Characters an answer holds at most (about 5k tokens). */
export const MAX_SEARCH_FILES_CHARS = 20_000;
/** Characters of a matching line shown, around the match. */
export const MAX_SEARCH_EXCERPT_CHARS = 240;
/** Files larger than this are not searched (the answer counts them). */
export const MAX_SEARCH_FILE_BYTES = 8 * 1024 * 1024;
/** A regular expression is tried on a line's first characters only, so one line costs a bounded time. */
export const MAX_REGEX_LINE_CHARS = 2_000;
/** How long a regular expression may run on one file before the search stops. */
export const SEARCH_FILE_TIMEOUT_MS = 2_000;
/** How long a whole search may take before it stops with what it found. */
export const SEARCH_TIME_LIMIT_MS = 30_000;
/** The longest query accepted. */
export const MAX_SEARCH_QUERY_LENGTH = 1_000;

export const searchFilesTool: ToolDefinition = Object.freeze({
  name: SEARCH_FILES_TOOL,
  description:
    'Search the text files of the workspace for lines holding `query` (case-insensitive unless ' +
    'caseSensitive is true); answers "path:line: text". `query` is plain text unless `regex` is true ' +
    '(JavaScript regular expression syntax). Narrow with `path` (a directory or one file) and `glob` ' +
    '("*.ts", "src/**/*.test.ts"). Binary files, files over 8 MB, .git and node_modules are skipped.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      query: { type: 'string', description: 'The text to find (a regular expression with regex: true).' },
      regex: { type: 'boolean', description: 'Take `query` as a regular expression (default false).' },
      caseSensitive: { type: 'boolean', description: 'Match case exactly (default false).' },
      path: { type: 'string', description: 'A directory or file to search (default: the workspace root).' },
      glob: { type: 'string', description: 'Only files whose path matches this glob.' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_SEARCH_FILES_LIMIT,
        description: `Most matches to list (default ${DEFAULT_SEARCH_FILES_LIMIT}).`,
      },
      includeSkipped: { type: 'boolean', description: 'Also search inside .git and node_modules.' },
    },
    required: ['query'],
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({
  query: z.string().min(1).max(MAX_SEARCH_QUERY_LENGTH),
  regex: z.boolean().optional(),
  caseSensitive: z.boolean().optional(),
  path: z.string().min(1).optional(),
  glob: z.string().min(1).optional(),
  limit: z.int().min(1).optional(),
  includeSkipped: z.boolean().optional(),
});

const EXAMPLE = '{"query": "createContextManager", "glob": "*.ts"}';

export interface SearchFilesOptions {
  /** How long a pattern may run on one file (default SEARCH_FILE_TIMEOUT_MS). */
  fileTimeoutMs?: number;
  /** How long a whole search may take (default SEARCH_TIME_LIMIT_MS). */
  timeLimitMs?: number;
}

export function createSearchFilesTool(workspace: Workspace, options: SearchFilesOptions = {}): AgentTool {
  return {
    definition: searchFilesTool,
    run: (args, context) => answering(() => searchFiles(workspace, args, context.signal, options)),
  };
}

/**
 * The line scan, run inside its own V8 context so a runaway regular expression can be interrupted by the
 * context's timeout. Answers five numbers per matching line: line index, line start, line end, match
 * index in the line, match length.
 */
const SCAN = new vm.Script(`(function scan(text, source, flags, lineCap, maxHits) {
  const expression = new RegExp(source, flags);
  const hits = [];
  let start = 0;
  let line = 0;
  while (hits.length < maxHits * 5) {
    let end = text.indexOf('\\n', start);
    if (end === -1) end = text.length;
    const stop = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    const match = expression.exec(text.slice(start, Math.min(stop, start + lineCap)));
    if (match) hits.push(line, start, stop, match.index, match[0].length);
    if (end >= text.length) break;
    start = end + 1;
    line++;
  }
  return hits;
})`);

interface Hit {
  line: number;
  text: string;
  at: number;
  length: number;
}

type ScanOutcome = { hits: Hit[] } | { timedOut: true };

function createScanner(source: string, flags: string, lineCap: number) {
  const context = vm.createContext({});
  const scan = SCAN.runInContext(context) as (
    text: string,
    source: string,
    flags: string,
    lineCap: number,
    maxHits: number,
  ) => number[];
  const call = new vm.Script('scan(text, source, flags, lineCap, maxHits)');
  Object.assign(context, { scan, source, flags, lineCap });
  return (text: string, maxHits: number, timeoutMs: number): ScanOutcome => {
    Object.assign(context, { text, maxHits });
    let numbers: number[];
    try {
      numbers = call.runInContext(context, { timeout: Math.max(1, Math.floor(timeoutMs)) }) as number[];
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return { timedOut: true };
      throw error;
    } finally {
      Object.assign(context, { text: '' });
    }
    const hits: Hit[] = [];
    for (let index = 0; index + 4 < numbers.length; index += 5) {
      const [line, start, end, at, length] = numbers.slice(index, index + 5) as [
        number,
        number,
        number,
        number,
        number,
      ];
      hits.push({ line, text: text.slice(start, end), at, length });
    }
    return { hits };
  };
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The matching line, cut to MAX_SEARCH_EXCERPT_CHARS around the match. */
function excerpt(hit: Hit): string {
  const { text } = hit;
  if (text.length <= MAX_SEARCH_EXCERPT_CHARS) return withoutNul(text);
  const before = Math.min(hit.at, 60);
  const from = safeCutIndex(text, hit.at - before);
  const to = safeCutIndex(text, Math.min(text.length, from + MAX_SEARCH_EXCERPT_CHARS));
  return withoutNul(`${from > 0 ? '…' : ''}${text.slice(from, to)}${to < text.length ? '…' : ''}`);
}

interface FileRead {
  text?: string;
  skipped?: 'binary' | 'large' | 'unreadable';
}

async function readSearchable(absolute: string): Promise<FileRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return { skipped: 'unreadable' };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { skipped: 'unreadable' };
    if (stat.size > MAX_SEARCH_FILE_BYTES) return { skipped: 'large' };
    const bytes = await handle.readFile();
    if (looksBinary(bytes)) return { skipped: 'binary' };
    return { text: decodeUtf8(bytes) };
  } finally {
    await handle.close();
  }
}

async function searchFiles(
  workspace: Workspace,
  args: unknown,
  signal: AbortSignal,
  options: SearchFilesOptions,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'query');
  if (isResult(parsed)) return parsed;
  const flags = parsed.caseSensitive ? '' : 'i';
  const source = parsed.regex ? parsed.query : escapeRegExp(parsed.query);
  try {
    new RegExp(source, flags);
  } catch (error) {
    return failure(
      'invalid_arguments',
      `"query" is not a valid regular expression: ${(error as Error).message} (leave out regex to search the text as it is)`,
    );
  }
  const matches = parsed.glob === undefined ? () => true : globMatcher(parsed.glob);
  if (typeof matches === 'string') return failure('invalid_arguments', `"glob": ${matches}`);
  const target = await workspace.resolve(parsed.path ?? '.');
  if (!target.exists) return failure('not_found', `${shownPath(target.relative)} does not exist`);
  const limit = Math.min(parsed.limit ?? DEFAULT_SEARCH_FILES_LIMIT, MAX_SEARCH_FILES_LIMIT);
  // A literal is linear on any line; a regular expression gets the line cap.
  const scan = createScanner(source, flags, parsed.regex ? MAX_REGEX_LINE_CHARS : Number.MAX_SAFE_INTEGER);
  const deadline = Date.now() + (options.timeLimitMs ?? SEARCH_TIME_LIMIT_MS);
  const fileTimeout = options.fileTimeoutMs ?? SEARCH_FILE_TIMEOUT_MS;
  const lines: string[] = [];
  let used = 0;
  let files = 0;
  let filesWithMatches = 0;
  let full = false;
  let slowFile: string | undefined;
  let outOfTime = false;
  const skipped = { binary: 0, large: 0, unreadable: 0 };

  const searchOne = async (absolute: string, shown: string): Promise<boolean> => {
    if (Date.now() >= deadline) {
      outOfTime = true;
      return false;
    }
    const read = await readSearchable(absolute);
    if (read.skipped) {
      skipped[read.skipped]++;
      return true;
    }
    files++;
    const outcome = scan(
      read.text ?? '',
      limit - lines.length + 1,
      Math.min(fileTimeout, deadline - Date.now()),
    );
    if ('timedOut' in outcome) {
      slowFile = shown;
      return false;
    }
    if (outcome.hits.length > 0) filesWithMatches++;
    for (const hit of outcome.hits) {
      const line = `${shown}:${hit.line + 1}: ${excerpt(hit)}`;
      if (lines.length >= limit || used + line.length + 1 > MAX_SEARCH_FILES_CHARS) {
        full = true;
        return false;
      }
      lines.push(line);
      used += line.length + 1;
    }
    return true;
  };

  const stat = await fs.stat(target.real);
  let walkNote = '';
  let skippedDirectories = 0;
  if (stat.isDirectory()) {
    const prefix = target.relative === '.' ? '' : `${target.relative}/`;
    const summary = await walkFiles(
      target.real,
      {
        maxDepth: Number.MAX_SAFE_INTEGER,
        includeSkipped: parsed.includeSkipped === true,
        signal,
        exclude: workspace.isPrivate,
      },
      (entry) => {
        if (entry.type !== 'file' || !matches(entry.path)) return undefined;
        return searchOne(entry.absolute, shownPath(prefix + entry.path));
      },
    );
    if (summary.aborted) return failure('aborted', 'the search was cancelled');
    if (summary.truncated) walkNote = ` Stopped after looking at ${count(summary.entries)} entries.`;
    skippedDirectories = summary.skipped.length;
  } else {
    const read = await readSearchable(target.real);
    if (read.skipped === 'binary')
      return failure(
        'binary_file',
        `${shownPath(target.relative)} is a binary file: it cannot be searched as text`,
      );
    if (read.skipped === 'large')
      return failure(
        'too_large',
        `${shownPath(target.relative)} is larger than ${count(MAX_SEARCH_FILE_BYTES)} bytes: read it a part at a time with read_file`,
      );
    if (read.skipped) return failure('not_a_file', `${shownPath(target.relative)} is not a regular file`);
    await searchOne(target.real, shownPath(target.relative));
  }

  const what = `${JSON.stringify(clip(parsed.query))}${parsed.regex ? ' (regex)' : ''}`;
  const where = target.relative === '.' ? '' : ` under ${shownPath(target.relative)}`;
  if (slowFile !== undefined && lines.length === 0)
    return failure(
      'timed_out',
      `the pattern ${what} ran longer than ${count(fileTimeout)} ms on ${slowFile} and the search was stopped: ` +
        'simplify it (nested quantifiers like (a+)+ can take exponential time) or search plain text',
    );
  const notes: string[] = [];
  if (full)
    notes.push(
      `Stopped at ${plural(lines.length, 'match', 'matches')}: narrow the search with path or glob.`,
    );
  if (slowFile !== undefined)
    notes.push(`Stopped: the pattern ran longer than ${count(fileTimeout)} ms on ${slowFile}; simplify it.`);
  if (outOfTime) notes.push(`Stopped after ${count(options.timeLimitMs ?? SEARCH_TIME_LIMIT_MS)} ms.`);
  const skippedNote = [
    skippedDirectories > 0
      ? `${plural(skippedDirectories, 'directory', 'directories')} (.git, node_modules; includeSkipped: true searches them)`
      : '',
    skipped.binary > 0 ? plural(skipped.binary, 'binary file') : '',
    skipped.large > 0 ? `${plural(skipped.large, 'file')} over ${count(MAX_SEARCH_FILE_BYTES)} bytes` : '',
    skipped.unreadable > 0 ? plural(skipped.unreadable, 'unreadable file') : '',
  ].filter(Boolean);
  if (skippedNote.length > 0) notes.push(`Not searched: ${skippedNote.join(', ')}.`);
  if (parsed.regex) notes.push(`Lines are matched on their first ${count(MAX_REGEX_LINE_CHARS)} characters.`);
  const found =
    lines.length === 0
      ? `no line matches ${what}`
      : `${plural(lines.length, 'match', 'matches')} for ${what} in ${plural(filesWithMatches, 'file')}`;
  const header = `[${found}; searched ${plural(files, 'file')}${where}.${walkNote}${notes.length > 0 ? ` ${notes.join(' ')}` : ''}]`;
  return success(lines.length > 0 ? `${header}\n${lines.join('\n')}` : header);
}
