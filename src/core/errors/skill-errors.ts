import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/**
 * A SKILL.md that cannot be used: names the file and the field (`front matter`, `name`, `description`,
 * `file`), so the author knows what to fix.
 */
export class InvalidSkillError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_skill';
  readonly file: string;
  readonly field: string;

  constructor(file: string, field: string, reason: string) {
    super('invalid_skill', `${file}: ${field} ${reason}`, { file, field, reason });
    this.file = file;
    this.field = field;
  }
}

/** No skill by that name among the agent's skills. */
export class SkillNotFoundError extends CtxkitError {
  static override readonly code: ErrorCode = 'skill_not_found';
  constructor(name: string) {
    super('skill_not_found', `no skill named ${JSON.stringify(name)}`, { name });
  }
}

/**
 * A path inside a skill that is not one: absolute, `..`, a hidden or control-character segment, or one
 * that leads out of the skill's directory (a symlink). Paths come from the model and are never trusted.
 */
export class InvalidSkillPathError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_skill_path';
  constructor(path: string, reason: string) {
    super('invalid_skill_path', `skill file path ${JSON.stringify(path)}: ${reason}`, { path, reason });
  }
}

/** A well-formed path inside a skill with no readable text file there. */
export class SkillFileNotFoundError extends CtxkitError {
  static override readonly code: ErrorCode = 'skill_file_not_found';
  constructor(name: string, path: string, reason = 'no such file') {
    super(
      'skill_file_not_found',
      `skill ${JSON.stringify(name)} has no file ${JSON.stringify(path)}: ${reason}`,
      {
        name,
        path,
        reason,
      },
    );
  }
}
