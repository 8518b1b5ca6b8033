/**
 * The memory note tools over a `MemorySink`: `search_memory` finds notes by words (the sink's query
 * language: all words must match, `"a phrase"`, `-word`, `a or b`), newest first, bounded; `write_memory`
 * keeps a note (a title and a text) for later conversations. The file sink files it in the day's memory
 * file and lists it in `MEMORY.md`, so it shows in the memory index of the next request; `read_memory`
 * reads it whole.
 *
 * A sink that searches the agent's whole memory (`searchAll`, as the file sink does) is searched whole:
 * memory outlives conversations, and the index every request shows lists every conversation's notes. A
 * sink with only the `MemorySink` contract is searched for the calling session's notes.
 */

import { z } from 'zod';
import { READ_MEMORY_TOOL } from '../core/context-index/render-memory-index.ts';
import { CtxkitError } from '../core/errors/index.ts';
import type { MemoryEntry, MemorySink } from '../core/memory-sink.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { safeCutIndex } from '../core/utf16-boundary.ts';
import type { AgentTool } from './agent-tool.ts';
import { clip } from './page-text.ts';
import {
  count,
  failure,
  isResult,
  parseToolArgs,
  plural,
  success,
  type WorkspaceToolResult,
} from './workspace/tool-result.ts';

export const SEARCH_MEMORY_TOOL = 'search_memory';
export const WRITE_MEMORY_TOOL = 'write_memory';

/** Notes a search lists when the call gives no limit, and the most it may ask for. */
export const DEFAULT_SEARCH_MEMORY_LIMIT = 10;
export const MAX_SEARCH_MEMORY_LIMIT = 50;
/** Characters a search answer holds at most (about 5k tokens). */
export const MAX_SEARCH_MEMORY_CHARS = 20_000;
/** Characters of one note's text a search shows; the rest is read with read_memory. */
export const MAX_MEMORY_EXCERPT_CHARS = 1_000;
/** The longest query, title and note text accepted. */
export const MAX_MEMORY_QUERY_CHARS = 1_000;
export const MAX_MEMORY_TITLE_CHARS = 200;
export const MAX_MEMORY_NOTE_CHARS = 20_000;

export const searchMemoryTool: ToolDefinition = Object.freeze({
  name: SEARCH_MEMORY_TOOL,
  description:
    'Search your long-term memory notes (kept across conversations) by words: every word must match; ' +
    '"a phrase" in quotes, -word to exclude, `a or b` for either. Newest notes first.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to find, e.g. "deploy staging".' },
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: MAX_SEARCH_MEMORY_LIMIT,
        description: `Most notes to return (default ${DEFAULT_SEARCH_MEMORY_LIMIT}).`,
      },
    },
    required: ['query'],
    additionalProperties: false,
  }),
});

export const writeMemoryTool: ToolDefinition = Object.freeze({
  name: WRITE_MEMORY_TOOL,
  description:
    'Keep a note in your long-term memory, for later conversations: a decision, a preference the user ' +
    'stated, a fact about the project worth not rediscovering. Give it a short title that says what it ' +
    'is about; the memory index lists notes by title.',
  parameters: Object.freeze({
    type: 'object',
    properties: {
      title: { type: 'string', description: 'A short title, e.g. "Deploys go through staging first".' },
      text: { type: 'string', description: 'The note itself.' },
    },
    required: ['title', 'text'],
    additionalProperties: false,
  }),
});

/** A sink that can search every session's notes (the file sink's `searchAll`). */
interface SearchesAll {
  searchAll(query: string, options?: { limit?: number }): Promise<MemoryEntry[]>;
}

const searchesAll = (sink: MemorySink): sink is MemorySink & SearchesAll =>
  typeof (sink as Partial<SearchesAll>).searchAll === 'function';

export interface MemoryToolsOptions {
  memory: MemorySink;
  /** The time a note is written at (epoch ms); default Date.now. */
  clock?: () => number;
}

const SearchSchema = z.strictObject({
  query: z.string().trim().min(1).max(MAX_MEMORY_QUERY_CHARS),
  limit: z.int().min(1).optional(),
});

const WriteSchema = z.strictObject({
  title: z.string().trim().min(1).max(MAX_MEMORY_TITLE_CHARS),
  text: z.string().trim().min(1).max(MAX_MEMORY_NOTE_CHARS),
});

/** `YYYY-MM-DD HH:MM UTC` of an epoch-ms time. */
function when(at: number): string {
  const date = new Date(at);
  return Number.isNaN(date.getTime())
    ? 'unknown time'
    : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The memory file a note is in, when the sink says (the file sink's entries carry it). */
const fileOf = (entry: MemoryEntry): string | undefined => {
  const file = (entry as { file?: unknown }).file;
  return typeof file === 'string' ? file : undefined;
};

function renderEntry(entry: MemoryEntry): string {
  const file = fileOf(entry);
  const title = entry.title.replace(/\s+/g, ' ').trim() || 'Untitled';
  const heading = `## ${when(entry.at)} · ${title}${file ? ` (${file})` : ''}`;
  if (entry.text.length <= MAX_MEMORY_EXCERPT_CHARS) return `${heading}\n${entry.text}`;
  const shown = entry.text.slice(0, safeCutIndex(entry.text, MAX_MEMORY_EXCERPT_CHARS));
  const rest = entry.text.length - shown.length;
  const more = file
    ? `[… ${count(rest)} more characters: ${READ_MEMORY_TOOL}(${JSON.stringify({ path: file })}) reads the note whole]`
    : `[… ${count(rest)} more characters]`;
  return `${heading}\n${shown}…\n${more}`;
}

export function createSearchMemoryTool(options: MemoryToolsOptions): AgentTool {
  const { memory } = options;
  return {
    definition: searchMemoryTool,
    async run(args, context): Promise<WorkspaceToolResult> {
      const parsed = parseToolArgs(SearchSchema, args, '{"query": "deploy staging"}', 'query');
      if (isResult(parsed)) return parsed;
      const limit = Math.min(parsed.limit ?? DEFAULT_SEARCH_MEMORY_LIMIT, MAX_SEARCH_MEMORY_LIMIT);
      let entries: MemoryEntry[];
      try {
        entries = searchesAll(memory)
          ? await memory.searchAll(parsed.query, { limit: limit + 1 })
          : await memory.search(context.sessionId, parsed.query);
      } catch (error) {
        if (CtxkitError.isInstance(error) && error.code.startsWith('invalid'))
          return failure('invalid_arguments', error.message);
        throw error;
      }
      const quoted = JSON.stringify(clip(parsed.query));
      if (entries.length === 0) return success(`[No memory note matches ${quoted}.]`);
      const blocks: string[] = [];
      let used = 0;
      for (const entry of entries.slice(0, limit)) {
        const block = renderEntry(entry);
        if (blocks.length > 0 && used + block.length + 2 > MAX_SEARCH_MEMORY_CHARS) break;
        blocks.push(block);
        used += block.length + 2;
      }
      // One more than the limit was asked for, to know whether there are more.
      const left = Math.min(entries.length, limit + 1) - blocks.length;
      const more =
        left <= 0
          ? ''
          : entries.length > limit
            ? ' More notes match than are shown: narrow the query.'
            : ` ${plural(left, 'more note')} not shown, to fit: narrow the query.`;
      return success(
        `[${plural(blocks.length, 'memory note')} matching ${quoted}, newest first.${more}]\n\n${blocks.join('\n\n')}`,
      );
    },
  };
}

export function createWriteMemoryTool(options: MemoryToolsOptions): AgentTool {
  const { memory } = options;
  const clock = options.clock ?? Date.now;
  return {
    definition: writeMemoryTool,
    async run(args, context): Promise<WorkspaceToolResult> {
      const parsed = parseToolArgs(
        WriteSchema,
        args,
        '{"title": "Deploys go through staging", "text": "…"}',
        'text',
      );
      if (isResult(parsed)) return parsed;
      const at = clock();
      try {
        await memory.write(context.sessionId, { at, title: parsed.title, text: parsed.text });
      } catch (error) {
        if (CtxkitError.isInstance(error) && error.code === 'invalid_memory_entry')
          return failure('invalid_arguments', error.message);
        throw error;
      }
      const where = memory.readIndex
        ? ` in memory/${new Date(at).toISOString().slice(0, 10)}.md; the memory index (MEMORY.md) lists it`
        : '';
      return success(
        `Saved the memory note ${JSON.stringify(clip(parsed.title))} (${plural(parsed.text.length, 'character')})${where}.`,
      );
    },
  };
}

/** search_memory and write_memory over one sink. */
export function createMemoryTools(options: MemoryToolsOptions): AgentTool[] {
  return [createSearchMemoryTool(options), createWriteMemoryTool(options)];
}
