import { InvalidSkillPathError } from '../errors/index.ts';

/** Longest path inside a skill that is accepted; real ones are a few segments. */
export const SKILL_PATH_MAX_CHARS = 1_024;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The segments of a path inside a skill's directory (`scripts/run.py` → `['scripts', 'run.py']`), or an
 * InvalidSkillPathError. Only plain relative paths with `/` separators pass: no absolute path, drive or
 * backslash, no `.`/`..` or empty segment, no hidden (dot) file, no control character. Symlinks are the
 * file-system source's to refuse; this is the part that needs no disk.
 */
export function skillPathSegments(path: string): string[] {
  if (typeof path !== 'string' || path.length === 0)
    throw new InvalidSkillPathError(String(path), 'must be a non-empty relative path');
  if (path.length > SKILL_PATH_MAX_CHARS)
    throw new InvalidSkillPathError(path.slice(0, 80), `is longer than ${SKILL_PATH_MAX_CHARS} characters`);
  if (CONTROL.test(path)) throw new InvalidSkillPathError(path, 'holds control characters');
  if (path.includes('\\')) throw new InvalidSkillPathError(path, 'must use "/" between directories');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path))
    throw new InvalidSkillPathError(path, "must be relative to the skill's directory");
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..')
      throw new InvalidSkillPathError(path, `must not hold an empty, "." or ".." part`);
    if (segment.startsWith('.')) throw new InvalidSkillPathError(path, 'must not name a hidden file');
  }
  return segments;
}
