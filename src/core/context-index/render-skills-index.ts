import type { SkillSummary } from '../skills/skill-source.ts';
import { clipIndexLines } from './clip-index-lines.ts';
import type { RenderedIndex } from './render-memory-index.ts';

/** The tool the agent reads a skill with (`src/agent/read-skill-tool.ts`). */
export const READ_SKILL_TOOL = 'read_skill';

const PREAMBLE = [
  '## Skills',
  '',
  `Each skill below is a set of instructions for one kind of task; only its name and description are shown here. When a task matches a skill, read the skill first with the ${READ_SKILL_TOOL} tool ({"name": "<skill>"}) and follow it; read a file it mentions with {"name": "<skill>", "path": "<file>"}.`,
  '',
].join('\n');

/** One skill as one line: a description spanning lines would read as further entries. */
export function skillIndexLine(skill: SkillSummary): string {
  return `- ${skill.name}: ${skill.description.replace(/\s+/g, ' ').trim()}`;
}

/**
 * The skills index as the request shows it (deepagents: "every skill's name and description. Skill
 * bodies are not in the context until the agent reads one"): one line per skill, in the order given,
 * clipped to `maxTokens` from the end with a notice. No skills show nothing.
 */
export function renderSkillsIndex(
  skills: readonly SkillSummary[],
  options: { maxTokens: number; count: (text: string) => number },
): RenderedIndex {
  if (skills.length === 0) return { text: '', omitted: 0 };
  const framing = options.count(PREAMBLE);
  if (framing >= options.maxTokens) return { text: '', omitted: skills.length };
  const clipped = clipIndexLines(skills.map(skillIndexLine), {
    maxTokens: options.maxTokens - framing,
    headFraction: 1,
    count: options.count,
    notice: (omitted) =>
      `- … and ${omitted} more skill${omitted === 1 ? '' : 's'} not listed here: ${READ_SKILL_TOOL} with no name lists them all.`,
  });
  if (clipped.lines.length === 0) return { text: '', omitted: clipped.omitted };
  return { text: `${PREAMBLE}${clipped.lines.join('\n')}`, omitted: clipped.omitted };
}

/** Every skill, one per line: what `read_skill` with no name answers. */
export function listSkillsText(skills: readonly SkillSummary[]): string {
  if (skills.length === 0) return 'No skills are available.';
  return skills.map(skillIndexLine).join('\n');
}
