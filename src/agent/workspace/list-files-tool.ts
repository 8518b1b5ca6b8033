/**
 * `list_files`: the entries of a directory of the workspace, to a depth, optionally only those matching a
 * glob-ish pattern; `.git` and `node_modules` skipped unless asked for; at most `limit` entries. Paths are
 * shown relative to the workspace root, so they can be passed to read_file as they are.
 */

import fs from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import type { AgentTool } from '../agent-tool.ts';
import { globMatcher } from './match-glob.ts';
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

export const LIST_FILES_TOOL = 'list_files';

/** Levels listed when the call gives no depth and no pattern. */
export const DEFAULT_LIST_DEPTH = 3;
/** The deepest a listing goes (and how deep a pattern searches when the call gives no depth). */
export const MAX_LIST_DEPTH = 32;
/** Entries listed when the call gives no limit, and the most it may ask for. */
export const DEFAULT_LIST_FILES_LIMIT = 500;
export const MAX_LIST_FILES_LIMIT = 5_000;

export const listFilesTool: ToolDefinition = Object.freeze({
  name: LIST_FILES_TOOL,
  description:
    'List files and directories in the workspace (directories end with "/", symbolic links show their ' +
    'target). Paths are relative to the workspace root. Give `pattern` to list only matching paths ' +
    '("*.ts" matches names anywhere, "src/**/*.test.ts" paths from `path`). .git and node_modules are ' +
    `skipped unless includeSkipped is true. At most ${DEFAULT_LIST_FILES_LIMIT} entries by default.`,
  parameters: Object.freeze({
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The directory to list (default: the workspace root ".").' },
      pattern: {
        type: 'string',
        description: 'Only paths matching this glob: *, ** (any directories), ?, {a,b}.',
      },
      depth: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIST_DEPTH,
        description: `Levels to go into (default ${DEFAULT_LIST_DEPTH}; with a pattern, all).`,
      },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_LIST_FILES_LIMIT,
        description: `Most entries to list (default ${DEFAULT_LIST_FILES_LIMIT}).`,
      },
      includeSkipped: { type: 'boolean', description: 'Also list inside .git and node_modules.' },
    },
    additionalProperties: false,
  }),
});

const ArgsSchema = z.strictObject({
  path: z.string().min(1).optional(),
  pattern: z.string().min(1).optional(),
  depth: z.int().min(1).max(MAX_LIST_DEPTH).optional(),
  limit: z.int().min(1).optional(),
  includeSkipped: z.boolean().optional(),
});

const EXAMPLE = '{"path": "src", "pattern": "*.ts"}';

export function createListFilesTool(workspace: Workspace): AgentTool {
  return {
    definition: listFilesTool,
    run: (args, context) => answering(() => listFiles(workspace, args, context.signal)),
  };
}

async function listFiles(
  workspace: Workspace,
  args: unknown,
  signal: AbortSignal,
): Promise<WorkspaceToolResult> {
  const parsed = parseToolArgs(ArgsSchema, args, EXAMPLE, 'path');
  if (isResult(parsed)) return parsed;
  const matches = parsed.pattern === undefined ? () => true : globMatcher(parsed.pattern);
  if (typeof matches === 'string') return failure('invalid_arguments', `"pattern": ${matches}`);
  const target = await workspace.resolve(parsed.path ?? '.');
  if (!target.exists) return failure('not_found', `${shownPath(target.relative)} does not exist`);
  if (!(await fs.stat(target.real)).isDirectory())
    return failure('not_a_directory', `${shownPath(target.relative)} is a file: read it with read_file`);
  const limit = Math.min(parsed.limit ?? DEFAULT_LIST_FILES_LIMIT, MAX_LIST_FILES_LIMIT);
  const maxDepth = parsed.depth ?? (parsed.pattern === undefined ? DEFAULT_LIST_DEPTH : MAX_LIST_DEPTH);
  const prefix = target.relative === '.' ? '' : `${target.relative}/`;
  const lines: string[] = [];
  let more = false;
  let closedDirectories = 0;
  const summary = await walkFiles(
    target.real,
    { maxDepth, includeSkipped: parsed.includeSkipped === true, signal, exclude: workspace.isPrivate },
    async (entry) => {
      if (entry.type === 'directory' && entry.depth === maxDepth) closedDirectories++;
      if (!matches(entry.path)) return undefined;
      if (lines.length >= limit) {
        more = true;
        return false;
      }
      const shown = shownPath(prefix + entry.path);
      if (entry.type === 'directory') lines.push(`${shown}/`);
      else if (entry.type === 'symlink') {
        const link = await fs.readlink(entry.absolute).catch(() => '?');
        lines.push(`${shown} -> ${shownPath(link)}`);
      } else lines.push(shown);
      return undefined;
    },
  );
  if (summary.aborted) return failure('aborted', 'the listing was cancelled');
  const label = target.relative === '.' ? 'the workspace root' : shownPath(target.relative);
  const what = parsed.pattern === undefined ? '' : ` matching ${JSON.stringify(parsed.pattern)}`;
  const notes: string[] = [];
  if (more)
    notes.push(
      `Stopped at ${plural(limit, 'entry', 'entries')}: there are more. Narrow it with path, pattern or depth.`,
    );
  else if (summary.truncated)
    notes.push(`Stopped after looking at ${count(summary.entries)} entries: narrow it with path or pattern.`);
  if (closedDirectories > 0 && parsed.pattern === undefined)
    notes.push(`Directories at depth ${maxDepth} are not opened: list them to see inside.`);
  if (summary.skipped.length > 0) {
    const names = summary.skipped.slice(0, 5).map((skipped) => shownPath(prefix + skipped));
    const others = summary.skipped.length > 5 ? ` and ${count(summary.skipped.length - 5)} more` : '';
    notes.push(`Not opened: ${names.join(', ')}${others} (includeSkipped: true lists inside).`);
  }
  if (summary.unreadable.length > 0)
    notes.push(`Could not read ${plural(summary.unreadable.length, 'directory', 'directories')}.`);
  const header = `[${label}: ${plural(lines.length, 'entry', 'entries')}${what}.]`;
  const body = lines.length > 0 ? `\n${lines.join('\n')}` : '';
  const footer = notes.length > 0 ? `\n[${notes.join(' ')}]` : '';
  return success(`${header}${body}${footer}`);
}
