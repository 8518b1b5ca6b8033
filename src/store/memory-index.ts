import type { MemoryEntry } from '../core/memory-sink.ts';
import type { MemoryQuery } from './memory-query.ts';

/** A memory entry as stored: where it came from and which daily file holds it. */
export interface StoredMemoryEntry extends MemoryEntry {
  /** Stable id, written in the daily file beside the entry. */
  id: string;
  sessionId: string;
  /** The daily file, relative to the memory directory: `memory/YYYY-MM-DD.md`. */
  file: string;
}

export interface MemoryIndexSearch {
  /** The raw query as typed (PostgreSQL parses it itself) and as parsed (SQLite renders it). */
  text: string;
  parsed: MemoryQuery;
  /** Only this session's entries; undefined = every session's. */
  sessionId: string | undefined;
  limit: number;
}

/**
 * The full-text index over memory entries: SQLite FTS5 or PostgreSQL full-text search. The daily files
 * are the record; the index can always be rebuilt from them (`FileMemorySink.reindex`).
 */
export interface MemoryIndex {
  /** Adds entries, replacing any with the same id. */
  add(entries: readonly StoredMemoryEntry[]): Promise<void>;
  /**
   * Entries matching the query, newest first (`at`, then insertion order). A query without words
   * (`parsed.clauses` empty) matches every entry.
   */
  search(search: MemoryIndexSearch): Promise<StoredMemoryEntry[]>;
  /** Replaces everything indexed with `entries`, in one transaction. */
  replaceAll(entries: readonly StoredMemoryEntry[]): Promise<void>;
  /** How many entries are indexed. */
  count(): Promise<number>;
  /** Closes the connection if the index opened it. */
  close(): Promise<void>;
}

/** Entries a search returns when the caller does not say. */
export const DEFAULT_MEMORY_SEARCH_LIMIT = 20;
