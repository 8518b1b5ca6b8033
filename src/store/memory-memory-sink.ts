import type { MemoryEntry, MemorySink } from '../core/memory-sink.ts';

/**
 * Notes held in memory, per session: for tests and agents without a disk. It keeps no index, so it has
 * no `readIndex` / `readNote` and no memory index enters the request (the file sink has both).
 */
export function createMemoryMemorySink(): MemorySink {
  const entries = new Map<string, MemoryEntry[]>();
  return {
    async write(sessionId, entry) {
      entries.set(sessionId, [...(entries.get(sessionId) ?? []), { ...entry }]);
    },
    async search(sessionId, query) {
      const words = query.toLowerCase().split(/\s+/).filter(Boolean);
      return (entries.get(sessionId) ?? [])
        .filter((entry) => {
          const haystack = `${entry.title}\n${entry.text}`.toLowerCase();
          return words.every((word) => haystack.includes(word));
        })
        .reverse();
    },
  };
}
