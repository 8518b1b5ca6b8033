/**
 * The system prompt as sent: the caller's, then the skills index, then the memory index, in deepagents's
 * order ("the system prompt … the skills index … the memory index … the conversation"), each after a
 * blank line. Appended where deepagents' SkillsMiddleware and MemoryMiddleware append them, and after the
 * caller's prompt, so that prompt stays a byte-stable prefix for prompt caches: a new memory note changes
 * only what follows it.
 */
export function systemWithIndexes(prompt: string, indexes: { skills?: string; memory?: string }): string {
  let system = prompt;
  for (const section of [indexes.skills, indexes.memory]) {
    if (!section) continue;
    system = system ? `${system}\n\n${section}` : section;
  }
  return system;
}
