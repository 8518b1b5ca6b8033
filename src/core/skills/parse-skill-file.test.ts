import { describe, expect, it } from 'vitest';
import { InvalidSkillError } from '../errors/index.ts';
import {
  parseSkillFile,
  parseSkillFrontMatter,
  SKILL_DESCRIPTION_MAX_CHARS,
  SKILL_FRONT_MATTER_MAX_CHARS,
} from './parse-skill-file.ts';
import { isValidSkillName, skillNameProblem } from './skill-name.ts';
import { skillPathSegments } from './skill-relative-path.ts';

const WHERE = { file: 'skills/pdf-forms/SKILL.md', directory: 'pdf-forms' };

function failure(content: string, where = WHERE): InvalidSkillError {
  try {
    parseSkillFile(content, where);
  } catch (error) {
    if (InvalidSkillError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('parsed without an error');
}

describe('parseSkillFile', () => {
  it('splits the front matter from the body, which it keeps verbatim', () => {
    const content = '---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n# Steps\n\n1. Open it.\n';
    expect(parseSkillFile(content, WHERE)).toEqual({
      name: 'pdf-forms',
      description: 'Fill PDF forms.',
      body: '# Steps\n\n1. Open it.\n',
    });
  });

  it('accepts CRLF line ends, a byte-order mark, a folded description and extra keys', () => {
    const content =
      '\uFEFF---\r\nname: pdf-forms\r\ndescription: >\r\n  Fill PDF\r\n  forms.\r\nlicense: MIT\r\n---\r\nBody';
    expect(parseSkillFile(content, WHERE)).toMatchObject({ description: 'Fill PDF forms.', body: 'Body' });
  });

  it('names the file and the field of what is wrong', () => {
    const cases: [string, string, RegExp][] = [
      ['# no front matter\n', 'front matter', /is missing: the file must start with a line "---"/],
      ['---\nname: pdf-forms\ndescription: x\n', 'front matter', /is not closed/],
      ['---\nname: pdf-forms\ndescription: [oops\n---\n', 'front matter', /is not valid YAML \(line \d+\)/],
      ['---\n- a\n- b\n---\n', 'front matter', /must be a YAML mapping/],
      ['---\nname: pdf-forms\nname: again\ndescription: x\n---\n', 'front matter', /not valid YAML/],
      ['---\ndescription: x\n---\n', 'name', /name is required/],
      ['---\nname: 12\ndescription: x\n---\n', 'name', /must be a string \(got number\)/],
      ['---\nname: PDF_Forms\ndescription: x\n---\n', 'name', /lowercase letters and digits/],
      [
        '---\nname: other\ndescription: x\n---\n',
        'name',
        /must be the name of its directory \("pdf-forms"\)/,
      ],
      ['---\nname: pdf-forms\n---\n', 'description', /description is required/],
      ['---\nname: pdf-forms\ndescription: "  "\n---\n', 'description', /must not be empty/],
      ['---\nname: pdf-forms\ndescription: [a, b]\n---\n', 'description', /must be a string \(got a list\)/],
      ['---\nname: pdf-forms\ndescription: "bell \\a"\n---\n', 'description', /control characters/],
      [
        `---\nname: pdf-forms\ndescription: ${'d'.repeat(SKILL_DESCRIPTION_MAX_CHARS + 1)}\n---\n`,
        'description',
        /is 1025 characters; at most 1024/,
      ],
      ['---\nname: pdf-forms\ndescription: x\n---\nbody\u0000', 'file', /NUL bytes/],
    ];
    for (const [content, field, message] of cases) {
      const error = failure(content);
      expect(error.code, content).toBe('invalid_skill');
      expect(error.field, content).toBe(field);
      expect(error.file).toBe(WHERE.file);
      expect(error.message, content).toMatch(new RegExp(`^skills/pdf-forms/SKILL\\.md: ${field} `));
      expect(error.message, content).toMatch(message);
    }
  });

  it('refuses YAML alias bombs rather than expanding them', () => {
    const bomb = [
      '---',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'name: pdf-forms',
      'description: x',
      '---',
    ].join('\n');
    expect(failure(bomb).field).toBe('front matter');
  });
});

describe('parseSkillFrontMatter (what listing reads)', () => {
  it('needs only the head of the file', () => {
    const head = '---\nname: pdf-forms\ndescription: Fill PDF forms.\n---\n# Steps (cut here';
    expect(parseSkillFrontMatter(head, WHERE)).toEqual({ name: 'pdf-forms', description: 'Fill PDF forms.' });
  });

  it('says the front matter is too long, not unclosed, when the head ran out before its end', () => {
    const head = `---\nname: pdf-forms\ndescription: x\nnotes: ${'n'.repeat(SKILL_FRONT_MATTER_MAX_CHARS)}`;
    expect(() => parseSkillFrontMatter(head, WHERE)).toThrow(/front matter is longer than 65536 characters/);
    expect(() => parseSkillFrontMatter('---\nname: pdf-forms\n', WHERE)).toThrow(
      /front matter is not closed/,
    );
  });
});

describe('skill names', () => {
  it('are lowercase letters and digits with single hyphens between them, at most 64 characters', () => {
    for (const good of ['pdf-forms', 'a', 'v2', 'données-3', 'x'.repeat(64)])
      expect(isValidSkillName(good), good).toBe(true);
    for (const bad of ['', '-a', 'a-', 'a--b', 'A', 'a_b', 'a b', 'a/b', '..', '.a', 'x'.repeat(65)]) {
      expect(skillNameProblem(bad), bad).toBeDefined();
    }
  });
});

describe('paths inside a skill', () => {
  it('are plain relative paths split on "/"', () => {
    expect(skillPathSegments('scripts/run.py')).toEqual(['scripts', 'run.py']);
  });

  it('refuse anything that could leave the directory or hide, saying why', () => {
    const cases: [string, RegExp][] = [
      ['', /non-empty/],
      ['../x', /"\.\."/],
      ['a/../../x', /"\.\."/],
      ['./a', /"\."/],
      ['a//b', /empty/],
      ['/etc/passwd', /relative/],
      ['C:/x', /relative/],
      ['a\\b', /"\/"/],
      ['.env', /hidden/],
      ['a\nb', /control/],
    ];
    for (const [path, reason] of cases) {
      expect(() => skillPathSegments(path), path).toThrow(reason);
    }
  });
});
