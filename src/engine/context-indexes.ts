import type { MemorySink } from '../core/memory-sink.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { SkillSource, SkillSummary } from '../core/skills/skill-source.ts';

/**
 * What the indexes in every request are made from (deepagents, "What enters the context": the skills index
 * and the memory index), read before each call so a skill added or a note written shows in the next
 * request. Only what the policy shows is read. Rendering and counting are `resolveCallContext`'s.
 */
export interface IndexSources {
  /** Every usable skill's name and description. */
  skills?: readonly SkillSummary[];
  /** MEMORY.md as the memory sink keeps it. */
  memoryIndex?: string;
  /** An index that could not be read: the request goes without it rather than not at all. */
  unavailable?: IndexUnavailable[];
}

export interface IndexUnavailable {
  index: 'skills' | 'memory';
  code: string;
  message: string;
}

const NO_INDEX_SOURCES: IndexSources = Object.freeze({});

export async function readIndexSources(
  policy: Policy,
  from: { memory: MemorySink; skills: SkillSource | undefined },
): Promise<IndexSources> {
  const { skills, memory } = policy.indexes;
  const unavailable: IndexUnavailable[] = [];
  // An index is an extra: a skills directory or a MEMORY.md that cannot be read (a permission, a symlink
  // refused) must not stop the call, the overflow recovery or /context clear.
  const attempt = async <T>(index: IndexUnavailable['index'], read: () => Promise<T>) => {
    try {
      return await read();
    } catch (error) {
      unavailable.push({ index, ...describeFailure(error) });
      return undefined;
    }
  };
  const skillSource = skills.show ? from.skills : undefined;
  const readMemoryIndex = memory.show ? from.memory.readIndex?.bind(from.memory) : undefined;
  // Asked before every call: with nothing to read (no skill source, the memory index off), nothing is awaited.
  if (!skillSource && !readMemoryIndex) return NO_INDEX_SOURCES;
  const [listing, memoryIndex] = await Promise.all([
    skillSource ? attempt('skills', () => skillSource.list()) : undefined,
    readMemoryIndex ? attempt('memory', readMemoryIndex) : undefined,
  ]);
  return {
    ...(listing && listing.skills.length > 0 ? { skills: listing.skills } : {}),
    ...(memoryIndex !== undefined ? { memoryIndex } : {}),
    ...(unavailable.length > 0 ? { unavailable } : {}),
  };
}

function describeFailure(error: unknown): { code: string; message: string } {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'error';
  return { code, message: error instanceof Error ? error.message : String(error) };
}
