import {
  CtxkitError,
  InvalidSkillError,
  SkillFileNotFoundError,
  SkillNotFoundError,
} from '../core/errors/index.ts';
import { parseSkillFile, SKILL_FILE, SKILL_FILE_MAX_BYTES } from '../core/skills/parse-skill-file.ts';
import { isValidSkillName } from '../core/skills/skill-name.ts';
import { skillPathSegments } from '../core/skills/skill-relative-path.ts';
import type { SkillListing, SkillProblem, SkillSource } from '../core/skills/skill-source.ts';

/** A skills directory held in memory: skill directory name → path inside it → file content. */
export type SkillTree = Readonly<Record<string, Readonly<Record<string, string>>>>;

/**
 * Skills without a disk, for tests and for agents that ship their skills inside the program: each tree
 * stands for one skills directory, later trees winning on a shared name, with the same rules as
 * `createFsSkillSource` (one suite checks both, `skill-source.conformance.ts`).
 */
export function createMemorySkillSource(...trees: SkillTree[]): SkillSource {
  const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');
  const catalog = new Map<string, { tree: number; directory: string; description: string }>();
  const problems: SkillProblem[] = [];
  trees.forEach((tree, treeIndex) => {
    for (const directory of Object.keys(tree).sort()) {
      if (directory.startsWith('.')) continue;
      const content = ownFile(tree[directory], SKILL_FILE);
      if (content === undefined) continue;
      const file = `skills[${treeIndex}]/${directory}/${SKILL_FILE}`;
      try {
        if (utf8Bytes(content) > SKILL_FILE_MAX_BYTES)
          throw new InvalidSkillError(file, 'file', `is larger than ${SKILL_FILE_MAX_BYTES} bytes`);
        const parsed = parseSkillFile(content, { file, directory });
        catalog.set(parsed.name, { tree: treeIndex, directory, description: parsed.description });
      } catch (error) {
        if (!CtxkitError.isInstance(error)) throw error;
        problems.push({ path: file, code: error.code, message: error.message });
      }
    }
  });
  const listing: SkillListing = {
    skills: [...catalog.entries()]
      .map(([name, skill]) => ({ name, description: skill.description }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    problems,
  };

  return {
    async list() {
      return structuredClone(listing);
    },

    async read(name, path) {
      const skill = typeof name === 'string' && isValidSkillName(name) ? catalog.get(name) : undefined;
      if (!skill) throw new SkillNotFoundError(String(name));
      const files = trees[skill.tree]?.[skill.directory] ?? {};
      if (path === undefined || path === SKILL_FILE) {
        const content = ownFile(files, SKILL_FILE) ?? '';
        return parseSkillFile(content, {
          file: `${skill.directory}/${SKILL_FILE}`,
          directory: skill.directory,
        }).body;
      }
      const relative = skillPathSegments(path).join('/');
      const content = ownFile(files, relative);
      if (content === undefined) throw new SkillFileNotFoundError(name, path);
      if (utf8Bytes(content) > SKILL_FILE_MAX_BYTES)
        throw new InvalidSkillError(
          `${skill.directory}/${relative}`,
          'file',
          `is larger than ${SKILL_FILE_MAX_BYTES} bytes`,
        );
      if (content.includes('\u0000'))
        throw new InvalidSkillError(`${skill.directory}/${relative}`, 'file', 'is not a text file');
      return content;
    },
  };
}

/**
 * A file of a tree by name, its own keys only: a path the model sends (`constructor`, `__proto__`) must
 * never reach an object's prototype.
 */
function ownFile(files: Readonly<Record<string, string>> | undefined, name: string): string | undefined {
  if (files === undefined || !Object.hasOwn(files, name)) return undefined;
  const content = files[name];
  return typeof content === 'string' ? content : undefined;
}
