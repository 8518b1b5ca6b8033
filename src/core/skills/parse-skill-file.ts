import { InvalidSkillError } from '../errors/index.ts';
import { yamlModule } from '../load-yaml.ts';
import { skillNameProblem } from './skill-name.ts';

/**
 * One SKILL.md: YAML front matter between `---` lines with the skill's `name` and `description`, then
 * the instructions (the body), which enter the context only when the agent reads the skill. The rules are
 * the Agent Skills convention as deepagents JS applies it (`parseSkillMetadataFromContent`), except that
 * where deepagents warns and goes on (a name unlike its directory, a description over 1024 characters,
 * truncated) this refuses with an error naming the file and the field: a skill the agent sees clipped or
 * under another name is a skill its author never tested.
 */

export const SKILL_FILE = 'SKILL.md';
/** deepagents' MAX_SKILL_DESCRIPTION_LENGTH (the Agent Skills limit). */
export const SKILL_DESCRIPTION_MAX_CHARS = 1_024;
/** deepagents' MAX_SKILL_FILE_SIZE: a SKILL.md (or a file beside it) larger than this is not read. */
export const SKILL_FILE_MAX_BYTES = 10 * 1024 * 1024;
/**
 * Front matter is a few lines of metadata; listing skills reads only this much of each file, so a
 * skills directory of large files costs no more to list than one of small ones.
 */
export const SKILL_FRONT_MATTER_MAX_CHARS = 64 * 1024;

export interface SkillFrontMatter {
  name: string;
  description: string;
}

export interface SkillFile extends SkillFrontMatter {
  /** The instructions after the front matter. */
  body: string;
}

/** Where a SKILL.md is: its path as shown in errors, and the name of the directory holding it. */
export interface SkillFileLocation {
  file: string;
  directory: string;
}

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*(?:\r?\n|$)/gm;
// C0 and C1 controls other than tab and line breaks: never part of a name or a one-line description.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/**
 * The whole SKILL.md checked: its front matter and its body. `content` is the decoded file; a NUL
 * anywhere means it is not a text file.
 */
export function parseSkillFile(content: string, where: SkillFileLocation): SkillFile {
  if (content.includes('\u0000'))
    throw new InvalidSkillError(where.file, 'file', 'holds NUL bytes: it is not a text file');
  const { frontMatter, bodyStart } = splitFrontMatter(content, where.file, true);
  return { ...checkFrontMatter(frontMatter, where), body: content.slice(bodyStart) };
}

/**
 * The front matter of a SKILL.md from the start of the file (at least the first
 * {@link SKILL_FRONT_MATTER_MAX_CHARS} characters, or all of it): what listing needs.
 */
export function parseSkillFrontMatter(head: string, where: SkillFileLocation): SkillFrontMatter {
  const { frontMatter } = splitFrontMatter(head, where.file, false);
  if (frontMatter.includes('\u0000'))
    throw new InvalidSkillError(where.file, 'file', 'holds NUL bytes: it is not a text file');
  return checkFrontMatter(frontMatter, where);
}

function splitFrontMatter(
  content: string,
  file: string,
  whole: boolean,
): { frontMatter: string; bodyStart: number } {
  const text = content.startsWith('\uFEFF') ? content.slice(1) : content;
  const offset = content.length - text.length;
  const opening = OPENING.exec(text);
  if (!opening)
    throw new InvalidSkillError(file, 'front matter', 'is missing: the file must start with a line "---"');
  const closing = new RegExp(CLOSING.source, CLOSING.flags);
  closing.lastIndex = opening[0].length;
  const end = closing.exec(text);
  const limit = opening[0].length + SKILL_FRONT_MATTER_MAX_CHARS;
  if (!end || end.index > limit) {
    const longer = (end && end.index > limit) || (!whole && text.length >= limit);
    throw new InvalidSkillError(
      file,
      'front matter',
      longer
        ? `is longer than ${SKILL_FRONT_MATTER_MAX_CHARS} characters`
        : 'is not closed: end it with a line "---"',
    );
  }
  return {
    frontMatter: text.slice(opening[0].length, end.index),
    bodyStart: offset + end.index + end[0].length,
  };
}

function checkFrontMatter(yaml: string, where: SkillFileLocation): SkillFrontMatter {
  const { file } = where;
  let data: unknown;
  try {
    data = yamlModule().parse(yaml, { maxAliasCount: 100, uniqueKeys: true, prettyErrors: true });
  } catch (error) {
    // The parser throws more than YAMLError (a ReferenceError for an alias bomb): every throw from it is
    // this file's fault, and must not stop the other skills from loading.
    if (!(error instanceof Error)) throw error;
    // Lines counted in the file: the front matter starts on line 2.
    const line = error instanceof yamlModule().YAMLError ? error.linePos?.[0].line : undefined;
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    throw new InvalidSkillError(
      file,
      'front matter',
      `is not valid YAML${line !== undefined ? ` (line ${line + 1})` : ''}: ${reason}`,
    );
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw new InvalidSkillError(file, 'front matter', 'must be a YAML mapping with name and description');
  const record = data as Record<string, unknown>;

  const name = requiredString(record, 'name', file);
  const nameProblem = skillNameProblem(name);
  if (nameProblem) throw new InvalidSkillError(file, 'name', `${JSON.stringify(name)} ${nameProblem}`);
  if (name !== where.directory)
    throw new InvalidSkillError(
      file,
      'name',
      `${JSON.stringify(name)} must be the name of its directory (${JSON.stringify(where.directory)})`,
    );

  const description = requiredString(record, 'description', file);
  const length = [...description].length;
  if (length > SKILL_DESCRIPTION_MAX_CHARS)
    throw new InvalidSkillError(
      file,
      'description',
      `is ${length} characters; at most ${SKILL_DESCRIPTION_MAX_CHARS}`,
    );
  if (CONTROL.test(description)) throw new InvalidSkillError(file, 'description', 'holds control characters');
  return { name, description };
}

function requiredString(record: Record<string, unknown>, field: string, file: string): string {
  const value = record[field];
  if (value === undefined || value === null) throw new InvalidSkillError(file, field, 'is required');
  if (typeof value !== 'string')
    throw new InvalidSkillError(
      file,
      field,
      `must be a string (got ${Array.isArray(value) ? 'a list' : typeof value})`,
    );
  const trimmed = value.trim();
  if (trimmed === '') throw new InvalidSkillError(file, field, 'must not be empty');
  return trimmed;
}
