import { describe, expect, it } from 'vitest';
import { globMatcher } from './match-glob.ts';

const matcher = (pattern: string) => {
  const match = globMatcher(pattern);
  if (typeof match === 'string') throw new Error(match);
  return match;
};

describe('glob patterns', () => {
  it('matches names anywhere when the pattern has no slash', () => {
    const ts = matcher('*.ts');
    expect(ts('a.ts')).toBe(true);
    expect(ts('src/deep/b.ts')).toBe(true);
    expect(ts('src/b.tsx')).toBe(false);
    expect(ts('a.ts/readme.md')).toBe(false);
  });

  it('matches paths from the searched directory when it has one, ** spanning directories', () => {
    const tests = matcher('src/**/*.test.ts');
    expect(tests('src/a.test.ts')).toBe(true);
    expect(tests('src/x/y/a.test.ts')).toBe(true);
    expect(tests('lib/src/a.test.ts')).toBe(false);
    expect(matcher('src/*.ts')('src/x/a.ts')).toBe(false);
    expect(matcher('./src/*.ts')('src/a.ts')).toBe(true);
  });

  it('takes ? and {a,b}, and everything else literally', () => {
    expect(matcher('?.md')('a.md')).toBe(true);
    expect(matcher('?.md')('ab.md')).toBe(false);
    const either = matcher('*.{ts,js}');
    expect(either('a.js')).toBe(true);
    expect(either('a.css')).toBe(false);
    expect(matcher('a+(b).txt')('a+(b).txt')).toBe(true);
    expect(matcher('a.txt')('abtxt')).toBe(false);
  });

  it('explains a pattern it cannot read', () => {
    expect(globMatcher('*.{ts,js')).toMatch(/no "}"/);
    expect(globMatcher('*'.repeat(501))).toMatch(/longer than/);
  });
});
