/** A note for long-term memory: summaries of trimmed turns, overflow emergencies, cleared context (cowagent). */
export interface MemoryEntry {
  at: number;
  title: string;
  text: string;
}

/**
 * Where memory notes go. The persistent one writes the daily memory file `memory/YYYY-MM-DD.md` and
 * indexes it for search; this interface is all the engine needs.
 */
export interface MemorySink {
  write(sessionId: string, entry: MemoryEntry): Promise<void>;
  /** Entries whose text or title mentions every word of the query, newest first. */
  search(sessionId: string, query: string): Promise<MemoryEntry[]>;
  /**
   * The memory index (`MEMORY.md`), one line per note, as the request shows it (deepagents: "The memory
   * index MEMORY.md … Individual notes enter only when read"); undefined when there is none yet. Only a
   * sink that keeps an index implements it: without it, no memory index enters the request. The index is
   * the agent's, not a session's: memory outlives sessions.
   */
  readIndex?(): Promise<string | undefined>;
  /**
   * One memory file by the path the index gives it (`MEMORY.md`, `memory/YYYY-MM-DD.md`): what the
   * `read_memory` tool answers. A path that is not a memory file is an `InvalidMemoryPathError`, a memory
   * file that does not exist a `MemoryNoteNotFoundError`.
   */
  readNote?(path: string): Promise<string>;
}
