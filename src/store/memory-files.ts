import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { InvalidMemoryEntryError, MemoryNoteNotFoundError } from '../core/errors/index.ts';
import type { MemoryEntry, MemorySink } from '../core/memory-sink.ts';
import { DEFAULT_MEMORY_SEARCH_LIMIT, type MemoryIndex, type StoredMemoryEntry } from './memory-index.ts';
import { parseMemoryQuery } from './memory-query.ts';
import {
  DAILY_FILE,
  errorCode,
  MEMORY_DAILY_DIR,
  MEMORY_INDEX_FILE,
  memoryFilePath,
  readMemoryFile,
} from './read-memory-file.ts';

export {
  MEMORY_DAILY_DIR,
  MEMORY_INDEX_FILE,
  MEMORY_READ_MAX_BYTES,
  memoryFilePath,
} from './read-memory-file.ts';

/**
 * Long-term memory as files (cowagent's daily memory file, deepagents's `MEMORY.md` index), searchable
 * through a full-text index (SQLite FTS5 or PostgreSQL full-text search, `MemoryIndex`).
 *
 * One memory directory per agent, by default the data directory itself, never a session's directory:
 * memory outlives sessions (retention removes sessions, never memory) and `/context clear`. Layout:
 *
 * ```
 * <dir>/MEMORY.md               one line per entry: date, time, title, file, session, size (never its text)
 * <dir>/memory/YYYY-MM-DD.md    the entries of that UTC day (from the entry's `at`), in order written
 * ```
 *
 * Each entry in a daily file is a heading, a one-line HTML comment carrying its exact fields (id,
 * session, at, title, text length; invisible when the Markdown is rendered), and its text verbatim. The
 * daily files are the record: the index is rebuilt from them by `reindex()`, and a hand edit or a line
 * that imitates an entry inside an entry's text cannot create or break another entry (the length says
 * where the text ends).
 *
 * `search(sessionId, query)` keeps the MemorySink contract (that session's entries, newest first), so
 * what `/context clear` dropped is still found by the session that cleared it; `searchAll` spans the
 * agent's whole memory.
 */

/** fsync each append: an entry the engine was told is written survives a power cut. */
export const DEFAULT_MEMORY_DURABLE = true;

const ENTRY_MARKER = 'ctxkit-memory';
const HEADER_LINE = new RegExp(`^<!-- ${ENTRY_MARKER} (\\{.*\\}) -->$`, 'gm');

export interface FileMemorySinkOptions {
  /** The agent's memory directory; created on the first write. */
  dir: string;
  index: MemoryIndex;
  /** Entries a search returns at most. */
  searchLimit?: number;
  durable?: boolean;
  /** Ids of new entries. */
  newId?: () => string;
}

export interface MemorySearchOptions {
  limit?: number;
}

export interface MemoryReindexReport {
  files: number;
  entries: number;
  /** Entry headers that could not be read back, by file and line (1-based); their text is not indexed. */
  skipped: Array<{ file: string; line: number; reason: string }>;
}

export interface FileMemorySink extends MemorySink {
  readonly dir: string;
  /** `MEMORY.md` as it is now; undefined before the first note. */
  readIndex(): Promise<string | undefined>;
  /** `MEMORY.md` or a daily file, by the path the index gives it (see `memoryFilePath`). */
  readNote(path: string): Promise<string>;
  search(sessionId: string, query: string, options?: MemorySearchOptions): Promise<StoredMemoryEntry[]>;
  /** Every session's entries: the agent's whole long-term memory. */
  searchAll(query: string, options?: MemorySearchOptions): Promise<StoredMemoryEntry[]>;
  /** Rebuilds the search index from the daily files (after a restore, a hand edit, a lost database). */
  reindex(): Promise<MemoryReindexReport>;
  close(): Promise<void>;
}

/** `YYYY-MM-DD` (UTC) of an epoch-ms time, or undefined outside years 0000–9999. */
function utcDate(at: number): string | undefined {
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return undefined;
  const iso = date.toISOString();
  return /^\d{4}-/.test(iso) ? iso.slice(0, 10) : undefined;
}

const entrySchema = z.object({
  at: z.number().refine((at) => utcDate(at) !== undefined, 'must be an epoch-ms time in years 0000–9999'),
  title: z.string(),
  text: z.string(),
});
const headerSchema = z.object({
  id: z.string().min(1),
  sessionId: z.string(),
  at: z.number().refine((at) => utcDate(at) !== undefined, 'not a valid time'),
  title: z.string(),
  chars: z.int().nonnegative(),
});

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/**
 * JSON that cannot end the HTML comment it sits in, nor span lines: JSON.stringify leaves U+2028 and
 * U+2029 raw, and the header's line-anchored pattern would split on them.
 */
const commentJson = (value: unknown): string =>
  JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('>', '\\u003e')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');

const timeOf = (at: number): string => new Date(at).toISOString().slice(11, 19);

function entryBlock(entry: StoredMemoryEntry): string {
  const header = {
    id: entry.id,
    sessionId: entry.sessionId,
    at: entry.at,
    title: entry.title,
    chars: entry.text.length,
  };
  const heading = `## ${timeOf(entry.at)} UTC · ${oneLine(entry.title) || 'Untitled'} (session ${oneLine(entry.sessionId)})`;
  return `\n${heading}\n<!-- ${ENTRY_MARKER} ${commentJson(header)} -->\n\n${entry.text}\n`;
}

/**
 * An entry's `MEMORY.md` line: what it is called and where it is, never what it says (deepagents: "The
 * memory index MEMORY.md … Individual notes enter only when read"). The index is in every request; a
 * note's text reaches the context only through a search or a read.
 */
function indexLine(entry: StoredMemoryEntry): string {
  const date = entry.file.slice(MEMORY_DAILY_DIR.length + 1, -'.md'.length);
  const size = `${entry.text.length.toLocaleString('en-US')} ${entry.text.length === 1 ? 'char' : 'chars'}`;
  return `- ${date} ${timeOf(entry.at).slice(0, 5)} UTC · ${oneLine(entry.title) || 'Untitled'} · [${entry.file}](${entry.file}) · session ${oneLine(entry.sessionId)} · ${size}\n`;
}

/** Reads the entries of one daily file's content; `file` is its path relative to the memory directory. */
export function parseDailyMemoryFile(
  file: string,
  content: string,
): { entries: StoredMemoryEntry[]; skipped: MemoryReindexReport['skipped'] } {
  const entries: StoredMemoryEntry[] = [];
  const skipped: MemoryReindexReport['skipped'] = [];
  const lineAt = (index: number): number => content.slice(0, index).split('\n').length;
  const header = new RegExp(HEADER_LINE.source, HEADER_LINE.flags);
  let position = 0;
  for (;;) {
    header.lastIndex = position;
    const match = header.exec(content);
    if (!match) break;
    const afterHeader = match.index + match[0].length;
    let parsed: z.infer<typeof headerSchema> | undefined;
    let reason = '';
    try {
      const result = headerSchema.safeParse(JSON.parse(match[1] as string));
      if (result.success) parsed = result.data;
      else reason = z.prettifyError(result.error);
    } catch (error) {
      reason = (error as Error).message;
    }
    if (!parsed) {
      skipped.push({ file, line: lineAt(match.index), reason });
      position = afterHeader;
      continue;
    }
    const start = content.startsWith('\n\n', afterHeader) ? afterHeader + 2 : afterHeader + 1;
    const end = start + parsed.chars;
    let text: string;
    if (end <= content.length && (end === content.length || content[end] === '\n')) {
      text = content.slice(start, end);
      position = end;
    } else {
      // Edited by hand: the text runs to the next entry's heading.
      header.lastIndex = afterHeader;
      const next = header.exec(content);
      let stop = next ? next.index : content.length;
      if (next) {
        const headingStart = content.lastIndexOf('\n', next.index - 2) + 1;
        if (content.startsWith('## ', headingStart)) stop = headingStart;
      }
      text = content.slice(start, stop).replace(/\n+$/, '');
      position = Math.max(start, stop);
    }
    entries.push({
      id: parsed.id,
      sessionId: parsed.sessionId,
      at: parsed.at,
      title: parsed.title,
      text,
      file,
    });
  }
  return { entries, skipped };
}

export function createFileMemorySink(options: FileMemorySinkOptions): FileMemorySink {
  const dir = path.resolve(options.dir);
  const dailyDir = path.join(dir, MEMORY_DAILY_DIR);
  const { index } = options;
  const searchLimit = options.searchLimit ?? DEFAULT_MEMORY_SEARCH_LIMIT;
  const durable = options.durable ?? DEFAULT_MEMORY_DURABLE;
  const newId = options.newId ?? randomUUID;
  let queue: Promise<unknown> = Promise.resolve();

  /** Creates `file` holding `heading` unless it exists: written whole, then linked into place. */
  async function ensureFile(file: string, heading: string): Promise<void> {
    const tmp = path.join(path.dirname(file), `.${randomUUID()}.tmp`);
    await fs.writeFile(tmp, heading, { flag: 'wx' });
    try {
      await fs.link(tmp, file);
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  /** Appends in one write to a regular file (never through a symlink). */
  async function append(file: string, text: string): Promise<void> {
    const handle = await fs.open(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW);
    try {
      await handle.write(text);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async function write(sessionId: string, input: MemoryEntry): Promise<void> {
    const date = utcDate(input.at) as string;
    const file = `${MEMORY_DAILY_DIR}/${date}.md`;
    const entry: StoredMemoryEntry = {
      id: newId(),
      sessionId,
      at: input.at,
      title: input.title,
      text: input.text,
      file,
    };
    await fs.mkdir(dailyDir, { recursive: true });
    const dailyFile = path.join(dir, file);
    await ensureFile(dailyFile, `# Memory ${date}\n`);
    // The files first: they are the record, and if the database is down the search index can be
    // rebuilt from them (`reindex`); the error still reaches the caller.
    await append(dailyFile, entryBlock(entry));
    const indexFile = path.join(dir, MEMORY_INDEX_FILE);
    await ensureFile(indexFile, '# Memory index\n\n');
    await append(indexFile, indexLine(entry));
    await index.add([entry]);
  }

  // The index is asked for before every model call; it is read again only when the file changed.
  let indexCache: { key: string; text: string } | undefined;

  const search = (query: string, sessionId: string | undefined, limit: number | undefined) =>
    index.search({ text: query, parsed: parseMemoryQuery(query), sessionId, limit: limit ?? searchLimit });

  return {
    dir,

    write(sessionId, entry) {
      if (typeof sessionId !== 'string' || sessionId === '') {
        return Promise.reject(new InvalidMemoryEntryError('sessionId', 'must be a non-empty string'));
      }
      const parsed = entrySchema.safeParse(entry);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return Promise.reject(
          new InvalidMemoryEntryError(String(issue?.path.join('.') || 'entry'), issue?.message ?? 'invalid'),
        );
      }
      // One write at a time, so the daily file and MEMORY.md list entries in the same order.
      const next = queue.catch(() => undefined).then(() => write(sessionId, parsed.data));
      queue = next;
      return next;
    },

    search(sessionId, query, searchOptions) {
      return search(query, sessionId, searchOptions?.limit);
    },

    searchAll(query, searchOptions) {
      return search(query, undefined, searchOptions?.limit);
    },

    async readIndex() {
      // A note being written lands in the index before this answers: the request sees it.
      await queue.catch(() => undefined);
      const stat = await fs.lstat(path.join(dir, MEMORY_INDEX_FILE)).catch((error: unknown) => {
        if (errorCode(error) === 'ENOENT') return undefined;
        throw error;
      });
      if (!stat) return undefined;
      if (indexCache && indexCache.key === `${stat.ino}:${stat.size}:${stat.mtimeMs}`) return indexCache.text;
      const read = await readMemoryFile(dir, MEMORY_INDEX_FILE, MEMORY_INDEX_FILE, true);
      indexCache = read;
      return read?.text;
    },

    async readNote(notePath) {
      const relative = memoryFilePath(notePath);
      await queue.catch(() => undefined);
      const read = await readMemoryFile(dir, relative, relative, false);
      if (!read) throw new MemoryNoteNotFoundError(relative);
      return read.text;
    },

    async reindex() {
      await queue.catch(() => undefined);
      let names: string[];
      try {
        names = (await fs.readdir(dailyDir)).filter((name) => DAILY_FILE.test(name)).sort();
      } catch (error) {
        if (errorCode(error) !== 'ENOENT') throw error;
        names = [];
      }
      const byId = new Map<string, StoredMemoryEntry>();
      const skipped: MemoryReindexReport['skipped'] = [];
      for (const name of names) {
        const file = `${MEMORY_DAILY_DIR}/${name}`;
        const handle = await fs.open(
          path.join(dailyDir, name),
          constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
        );
        let content: string;
        try {
          content = await handle.readFile('utf8');
        } finally {
          await handle.close();
        }
        const parsed = parseDailyMemoryFile(file, content);
        for (const entry of parsed.entries) byId.set(entry.id, entry);
        skipped.push(...parsed.skipped);
      }
      await index.replaceAll([...byId.values()]);
      return { files: names.length, entries: byId.size, skipped };
    },

    async close() {
      await queue.catch(() => undefined);
      await index.close();
    },
  };
}
