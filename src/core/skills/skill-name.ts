/**
 * The Agent Skills naming rule, as deepagents JS enforces it (`validateSkillName`): 1–64 characters,
 * lowercase letters (any script) and digits, single hyphens between them, and the same as the directory
 * the SKILL.md sits in. The name is also what the model passes back to read a skill, so a strict rule
 * keeps that handle unambiguous and free of path syntax.
 */
export const SKILL_NAME_MAX_LENGTH = 64;

const LOWER_OR_DIGIT = /^[\p{Ll}\p{Nd}]$/u;

/** Why `name` is not a valid skill name, or undefined when it is. */
export function skillNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if ([...name].length > SKILL_NAME_MAX_LENGTH) return `must be at most ${SKILL_NAME_MAX_LENGTH} characters`;
  if (name.startsWith('-') || name.endsWith('-') || name.includes('--'))
    return 'must be lowercase letters and digits with single hyphens between them';
  for (const char of name) {
    if (char !== '-' && !LOWER_OR_DIGIT.test(char))
      return 'must be lowercase letters and digits with single hyphens between them';
  }
  return undefined;
}

export function isValidSkillName(name: string): boolean {
  return skillNameProblem(name) === undefined;
}
