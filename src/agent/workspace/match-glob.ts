/**
 * Glob-ish patterns for list_files and search_files: `*` (any characters but `/`), `**` (any
 * directories), `?` (one character), `{a,b}` (either), anything else literal. A pattern without a `/`
 * matches a name anywhere (`*.ts`); one with a `/` matches the path from the directory searched
 * (`src/**\/*.test.ts`).
 */

/** The longest pattern accepted. */
export const MAX_GLOB_LENGTH = 500;

const SPECIAL = /[.+^$()|[\]\\]/g;

/** The pattern as a regular expression over a `/`-separated path; a string explains a bad pattern. */
export function globToRegExp(pattern: string): RegExp | string {
  if (pattern.length > MAX_GLOB_LENGTH) return `the pattern is longer than ${MAX_GLOB_LENGTH} characters`;
  let source = '';
  let braces = 0;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index] as string;
    if (char === '*') {
      if (pattern[index + 1] === '*') {
        index++;
        // `**/` is zero or more whole directories; a bare `**` is anything.
        if (pattern[index + 1] === '/') {
          index++;
          source += '(?:[^/]*/)*';
        } else source += '.*';
      } else source += '[^/]*';
    } else if (char === '?') source += '[^/]';
    else if (char === '{') {
      braces++;
      source += '(?:';
    } else if (char === '}' && braces > 0) {
      braces--;
      source += ')';
    } else if (char === ',' && braces > 0) source += '|';
    else source += char.replace(SPECIAL, '\\$&');
  }
  if (braces > 0) return 'the pattern has a "{" with no "}"';
  return new RegExp(`^${source}$`);
}

/** A test for paths relative to the searched directory; a string explains a bad pattern. */
export function globMatcher(pattern: string): ((relativePath: string) => boolean) | string {
  const trimmed = pattern.replace(/^\.\//, '');
  const expression = globToRegExp(trimmed);
  if (typeof expression === 'string') return expression;
  if (trimmed.includes('/')) return (relativePath) => expression.test(relativePath);
  return (relativePath) => expression.test(relativePath.slice(relativePath.lastIndexOf('/') + 1));
}
