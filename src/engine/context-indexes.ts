import type { Policy } from '../core/policy/policy-schema.ts';
import type { SkillSource, SkillSummary } from '../core/skills/skill-source.ts';
import type { MemorySink } from './memory-sink.ts';

/**
 * What the indexes in every request are made from (seed 002, "What enters the context": the skills index
 * and the memory index), read before each call so a skill added or a note written shows in the next
 * request. Only what the policy shows is read. Rendering and counting are `resolveCallContext`'s.
 */
export interface IndexSources {
  /** Every usable skill's name and description. */
  skills?: readonly SkillSummary[];
  /** MEMORY.md as the memory sink keeps it. */
  memoryIndex?: string;
}

export async function readIndexSources(
  policy: Policy,
  from: { memory: MemorySink; skills: SkillSource | undefined },
): Promise<IndexSources> {
  const { skills, memory } = policy.indexes;
  const [listing, memoryIndex] = await Promise.all([
    skills.show && from.skills ? from.skills.list() : undefined,
    memory.show && from.memory.readIndex ? from.memory.readIndex() : undefined,
  ]);
  return {
    ...(listing && listing.skills.length > 0 ? { skills: listing.skills } : {}),
    ...(memoryIndex !== undefined ? { memoryIndex } : {}),
  };
}
