import { describe, expect, it } from 'vitest';
import { SKILL_FILE_MAX_BYTES } from '../core/skills/parse-skill-file.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import type { SkillTree } from './memory-skill-source.ts';

export interface SkillSourceHarness {
  source: SkillSource;
  /** Called after each test, e.g. to remove temporary directories. */
  cleanup?: () => Promise<void>;
}

/** A SKILL.md with this front matter and body. */
export function skillFile(name: string, description: string, body: string): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;
}

const PDF_BODY = '# PDF forms\n\nRun scripts/fill.py with the form and the values.\n';
const USER_BISECT_BODY = '# Bisect (user)\n\nThe user-level version.\n';
const PROJECT_BISECT_BODY = '# Bisect (project)\n\nThis project bisects with `make check`.\n';

/** Two skills directories: the user's, then the project's (later wins on a shared name). */
export const SKILL_TREES: SkillTree[] = [
  {
    'pdf-forms': {
      'SKILL.md': skillFile('pdf-forms', 'Fill in PDF forms from a table of values.', PDF_BODY),
      'scripts/fill.py': 'print("filled")\n',
      'reference/fields.md': '# Fields\n',
    },
    'git-bisect': {
      'SKILL.md': skillFile(
        'git-bisect',
        'Find the commit that broke a test (user version).',
        USER_BISECT_BODY,
      ),
    },
    'broken-yaml': { 'SKILL.md': '---\nname: broken-yaml\ndescription: [unclosed\n---\nbody\n' },
    'wrong-name': { 'SKILL.md': skillFile('other-name', 'A skill filed under another name.', 'body\n') },
    'no-description': { 'SKILL.md': '---\nname: no-description\n---\nbody\n' },
    // No SKILL.md: not a skill, not a problem.
    notes: { 'README.md': '# Notes\n' },
    // Hidden: skipped whatever it holds.
    '.cache': { 'SKILL.md': skillFile('cache', 'Hidden.', 'body\n') },
  },
  {
    'git-bisect': {
      'SKILL.md': skillFile(
        'git-bisect',
        'Find the commit that broke a test (project version).',
        PROJECT_BISECT_BODY,
      ),
    },
    'binary-file': {
      'SKILL.md': skillFile('binary-file', 'Holds a binary file.', 'body\n'),
      'data.bin': 'a\u0000b',
    },
  },
];

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return 'resolved';
}

/**
 * One suite for every SkillSource (in memory, on disk): what listing shows (deepagents's progressive
 * disclosure: every skill's name and description, no body), which directory wins a shared name, what a
 * broken SKILL.md becomes, and which names and paths a read refuses. `make` lays the trees out (one
 * skills directory each, in order) and opens a source over them.
 */
export function describeSkillSourceConformance(
  name: string,
  make: (trees: readonly SkillTree[]) => Promise<SkillSourceHarness>,
): void {
  describe(`skill source conformance: ${name}`, () => {
    const withSource =
      (test: (source: SkillSource) => Promise<void>, trees: readonly SkillTree[] = SKILL_TREES) =>
      async () => {
        const harness = await make(trees);
        try {
          await test(harness.source);
        } finally {
          await harness.cleanup?.();
        }
      };

    it(
      "lists every usable skill's name and description, sorted by name, and no body",
      withSource(async (source) => {
        const listing = await source.list();
        expect(listing.skills).toEqual([
          { name: 'binary-file', description: 'Holds a binary file.' },
          { name: 'git-bisect', description: 'Find the commit that broke a test (project version).' },
          { name: 'pdf-forms', description: 'Fill in PDF forms from a table of values.' },
        ]);
        const text = JSON.stringify(listing);
        for (const body of [PDF_BODY, PROJECT_BISECT_BODY, USER_BISECT_BODY]) {
          expect(text).not.toContain(body.split('\n')[2]);
        }
      }),
    );

    it(
      'lets the later skills directory win a shared name, body and description alike',
      withSource(async (source) => {
        await source.list();
        expect(await source.read('git-bisect')).toBe(PROJECT_BISECT_BODY);
      }),
    );

    it(
      'reports each broken SKILL.md as a problem naming its file and field, and still lists the rest',
      withSource(async (source) => {
        const { problems, skills } = await source.list();
        expect(skills.map((skill) => skill.name)).toContain('pdf-forms');
        const byDirectory = (directory: string) =>
          problems.find((problem) => problem.path.endsWith(`${directory}/SKILL.md`));
        expect(problems).toHaveLength(3);
        expect(byDirectory('broken-yaml')).toMatchObject({ code: 'invalid_skill' });
        expect(byDirectory('broken-yaml')?.message).toMatch(
          /broken-yaml\/SKILL\.md: front matter is not valid YAML/,
        );
        expect(byDirectory('wrong-name')?.message).toMatch(
          /wrong-name\/SKILL\.md: name "other-name" must be the name of its directory \("wrong-name"\)/,
        );
        expect(byDirectory('no-description')?.message).toMatch(
          /no-description\/SKILL\.md: description is required/,
        );
        // Hidden directories and directories without a SKILL.md are not skills and not problems.
        expect(JSON.stringify(problems)).not.toMatch(/\.cache|notes/);
      }),
    );

    it(
      "reads a skill's instructions without its front matter, and files beside it",
      withSource(async (source) => {
        await source.list();
        expect(await source.read('pdf-forms')).toBe(PDF_BODY);
        expect(await source.read('pdf-forms', 'SKILL.md')).toBe(PDF_BODY);
        expect(await source.read('pdf-forms', 'scripts/fill.py')).toBe('print("filled")\n');
        expect(await source.read('pdf-forms', 'reference/fields.md')).toBe('# Fields\n');
      }),
    );

    it(
      "answers a path naming an object's built-in property as a missing file, never reaching a prototype",
      withSource(async (source) => {
        await source.list();
        for (const path of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
          await expect(source.read('pdf-forms', path)).rejects.toMatchObject({
            code: 'skill_file_not_found',
          });
        }
      }),
    );

    it(
      'answers an unknown, broken, hidden or ill-formed skill name with skill_not_found',
      withSource(async (source) => {
        await source.list();
        for (const bad of [
          'nope',
          'broken-yaml',
          'cache',
          '.cache',
          '../pdf-forms',
          'PDF-FORMS',
          '',
          'notes',
        ]) {
          expect(await codeOf(source.read(bad)), bad).toBe('skill_not_found');
        }
      }),
    );

    it(
      "refuses a path that is not plainly inside the skill's directory",
      withSource(async (source) => {
        await source.list();
        const outside = [
          '../git-bisect/SKILL.md',
          'scripts/../../git-bisect/SKILL.md',
          '/etc/passwd',
          'C:/Windows/win.ini',
          'scripts\\fill.py',
          './scripts/fill.py',
          'scripts//fill.py',
          '.env',
          'scripts/.hidden',
          'a\u0000b',
          'x'.repeat(2_000),
        ];
        for (const bad of outside) {
          expect(await codeOf(source.read('pdf-forms', bad)), bad).toBe('invalid_skill_path');
        }
      }),
    );

    it(
      'answers a missing file, or a directory, with skill_file_not_found',
      withSource(async (source) => {
        await source.list();
        expect(await codeOf(source.read('pdf-forms', 'scripts/missing.py'))).toBe('skill_file_not_found');
        expect(await codeOf(source.read('pdf-forms', 'scripts'))).toBe('skill_file_not_found');
        expect(await codeOf(source.read('pdf-forms', 'scripts/fill.py/deeper'))).toBe('skill_file_not_found');
      }),
    );

    it(
      'refuses a file that is not text',
      withSource(async (source) => {
        await source.list();
        expect(await codeOf(source.read('binary-file', 'data.bin'))).toBe('invalid_skill');
      }),
    );

    it(
      'bounds sizes: an oversized SKILL.md is a problem, an oversized file is refused',
      withSource(
        async (source) => {
          const { skills, problems } = await source.list();
          expect(skills.map((skill) => skill.name)).toEqual(['big-data']);
          expect(problems).toHaveLength(1);
          expect(problems[0]?.path).toMatch(/huge-skill\/SKILL\.md$/);
          expect(problems[0]?.message).toMatch(/file is larger than/);
          expect(await codeOf(source.read('big-data', 'data.txt'))).toBe('invalid_skill');
        },
        [
          {
            'huge-skill': {
              'SKILL.md': skillFile('huge-skill', 'Too big.', 'x'.repeat(SKILL_FILE_MAX_BYTES)),
            },
            'big-data': {
              'SKILL.md': skillFile('big-data', 'Has a big file.', 'body\n'),
              'data.txt': 'y'.repeat(SKILL_FILE_MAX_BYTES + 1),
            },
          },
        ],
      ),
    );

    it(
      'lists nothing, and no problem, from an empty skills directory',
      withSource(
        async (source) => {
          expect(await source.list()).toEqual({ skills: [], problems: [] });
          expect(await codeOf(source.read('pdf-forms'))).toBe('skill_not_found');
        },
        [{}],
      ),
    );
  });
}
