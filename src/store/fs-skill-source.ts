import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import {
  CtxkitError,
  InvalidInputError,
  InvalidSkillError,
  InvalidSkillPathError,
  SkillFileNotFoundError,
  SkillNotFoundError,
} from '../core/errors/index.ts';
import {
  parseSkillFile,
  parseSkillFrontMatter,
  SKILL_FILE,
  SKILL_FILE_MAX_BYTES,
  SKILL_FRONT_MATTER_MAX_CHARS,
  type SkillFrontMatter,
} from '../core/skills/parse-skill-file.ts';
import { isValidSkillName } from '../core/skills/skill-name.ts';
import { skillPathSegments } from '../core/skills/skill-relative-path.ts';
import type { SkillListing, SkillProblem, SkillSource } from '../core/skills/skill-source.ts';
import { readBoundedText } from './read-bounded.ts';

/**
 * Skills on disk, the convention agents share: each skills directory holds one directory per skill,
 * `<dir>/<skill>/SKILL.md` with YAML front matter (`name`, `description`) and the instructions, beside
 * any files the instructions mention. When two directories hold a skill of one name, the later one wins
 * (deepagents: user skills, then project skills). Directories and dot-entries without a SKILL.md are
 * skipped; a broken SKILL.md, an unreadable or missing skills directory, a skill reached through a
 * symlink that leads out of its skills directory are problems in the listing, never fatal: the other
 * skills still load.
 *
 * A listing is reused for `refreshMs` (a second); after that the disk is listed again (a directory read,
 * and per skill a realpath and a few stats), reading a SKILL.md's head again only when it changed. Reads
 * take names and paths from the model:
 * a name must be a listed skill, a path must stay inside that skill's directory, symlinks included.
 */

/**
 * Bytes of a SKILL.md read to list it: enough for {@link SKILL_FRONT_MATTER_MAX_CHARS} characters of any
 * script (at most 4 bytes each), and the opening line.
 */
const HEAD_BYTES = SKILL_FRONT_MATTER_MAX_CHARS * 4 + 16;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A path as shown in problems: control characters escaped, so a hostile name cannot drive a terminal. */
function printable(file: string): string {
  return file.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

const inside = (root: string, target: string): boolean =>
  target === root || target.startsWith(root.endsWith(path.sep) ? root : `${root}${path.sep}`);

interface CatalogEntry {
  /** The skill's directory, real path (symlinks resolved). */
  real: string;
  /** Its SKILL.md as shown in errors. */
  file: string;
  directory: string;
  description: string;
}

interface HeadCache {
  key: string;
  /** The parsed front matter, or the error parsing it gave. */
  parsed: SkillFrontMatter | CtxkitError;
}

export interface FsSkillSourceOptions {
  /**
   * A listing younger than this is answered from memory: `list()` runs before every call of every
   * session, and a skills directory changes at a person's pace. 0 reads the disk every time.
   */
  refreshMs?: number;
  /** Epoch ms, for the refresh. */
  clock?: () => number;
}

/** How long a listing is reused: a skill added or edited shows within a second. */
export const DEFAULT_SKILL_LIST_REFRESH_MS = 1_000;

export function createFsSkillSource(
  dirs: readonly string[],
  options: FsSkillSourceOptions = {},
): SkillSource {
  if (!Array.isArray(dirs) || dirs.some((dir) => typeof dir !== 'string' || dir === ''))
    throw new InvalidInputError('must be an array of directory paths, e.g. ["./skills"]', {
      field: 'createFsSkillSource(dirs)',
    });
  const roots = dirs.map((dir) => path.resolve(dir));
  const refreshMs = options.refreshMs ?? DEFAULT_SKILL_LIST_REFRESH_MS;
  const clock = options.clock ?? Date.now;
  let listed: { at: number; listing: Promise<SkillListing> } | undefined;
  const heads = new Map<string, HeadCache>();
  let catalog = new Map<string, CatalogEntry>();

  /** Reads `file` (a real path) only if it is a regular file no larger than the cap. */
  async function openRegular(file: string, shown: string, onMissing: () => Error) {
    let handle: fs.FileHandle;
    try {
      handle = await fs.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ENOENT' || code === 'ENOTDIR') throw onMissing();
      if (code === 'ELOOP')
        throw new InvalidSkillPathError(shown, 'is a symbolic link that could not be followed');
      throw error;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw onMissing();
      if (stat.size > SKILL_FILE_MAX_BYTES)
        throw new InvalidSkillError(shown, 'file', `is larger than ${SKILL_FILE_MAX_BYTES} bytes`);
      return { handle, stat };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async function readText(file: string, shown: string, onMissing: () => Error): Promise<string> {
    const { handle } = await openRegular(file, shown, onMissing);
    try {
      const text = await readBoundedText(handle, SKILL_FILE_MAX_BYTES);
      if (text === undefined)
        throw new InvalidSkillError(shown, 'file', `is larger than ${SKILL_FILE_MAX_BYTES} bytes`);
      if (text.includes('\u0000')) throw new InvalidSkillError(shown, 'file', 'is not a text file');
      return text;
    } finally {
      await handle.close();
    }
  }

  /** One skill directory's front matter, read again only when its SKILL.md changed. */
  async function frontMatterOf(real: string, file: string, directory: string): Promise<SkillFrontMatter> {
    const skillFile = path.join(real, SKILL_FILE);
    const missing = () => new SkillFileNotFoundError(directory, SKILL_FILE);
    const stat = await fs.lstat(skillFile);
    const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}:${file}`;
    const cached = heads.get(skillFile);
    if (cached?.key === key) {
      if (CtxkitError.isInstance(cached.parsed)) throw cached.parsed;
      return cached.parsed;
    }
    let parsed: SkillFrontMatter | CtxkitError;
    try {
      if (stat.isSymbolicLink())
        throw new InvalidSkillError(file, 'file', 'is a symbolic link: a SKILL.md must be a regular file');
      const { handle } = await openRegular(skillFile, file, missing);
      try {
        const buffer = Buffer.alloc(Math.min(HEAD_BYTES, SKILL_FILE_MAX_BYTES));
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
        parsed = parseSkillFrontMatter(buffer.subarray(0, bytesRead).toString('utf8'), { file, directory });
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (!CtxkitError.isInstance(error)) throw error;
      parsed = error;
    }
    heads.set(skillFile, { key, parsed });
    if (CtxkitError.isInstance(parsed)) throw parsed;
    return parsed;
  }

  async function listRoot(
    root: string,
    found: Map<string, CatalogEntry>,
    problems: SkillProblem[],
  ): Promise<void> {
    let realRoot: string;
    let entries: import('node:fs').Dirent[];
    try {
      realRoot = await fs.realpath(root);
      entries = await fs.readdir(realRoot, { withFileTypes: true });
    } catch (error) {
      const code = errorCode(error);
      problems.push({
        path: printable(root),
        code: code === 'ENOENT' ? 'missing_directory' : 'unreadable',
        message:
          code === 'ENOENT'
            ? `skills directory ${printable(root)} does not exist`
            : code === 'ENOTDIR'
              ? `skills directory ${printable(root)} is not a directory`
              : `skills directory ${printable(root)} cannot be read (${code ?? 'error'})`,
      });
      return;
    }
    const names = entries
      .filter((entry) => !entry.name.startsWith('.') && (entry.isDirectory() || entry.isSymbolicLink()))
      .map((entry) => entry.name)
      .sort();
    for (const directory of names) {
      const file = printable(path.join(root, directory, SKILL_FILE));
      let real: string;
      try {
        real = await fs.realpath(path.join(realRoot, directory));
        if (!(await fs.stat(real)).isDirectory()) continue;
        // A symlinked skill may sit anywhere inside its skills directory, never outside it.
        if (!inside(realRoot, real) || real === realRoot) {
          problems.push({
            path: printable(path.join(root, directory)),
            code: 'outside_root',
            message: `${printable(path.join(root, directory))} leads out of its skills directory; skipped`,
          });
          continue;
        }
        if (!(await fs.lstat(path.join(real, SKILL_FILE)).catch(() => undefined))) continue;
      } catch (error) {
        if (errorCode(error) === 'ENOENT') continue;
        problems.push({
          path: printable(path.join(root, directory)),
          code: 'unreadable',
          message: `${printable(path.join(root, directory))} cannot be read (${errorCode(error) ?? 'error'})`,
        });
        continue;
      }
      try {
        const { name, description } = await frontMatterOf(real, file, directory);
        // Later directories win; within one, names are directory names and so unique.
        found.set(name, { real, file, directory, description });
      } catch (error) {
        if (!CtxkitError.isInstance(error)) {
          problems.push({
            path: file,
            code: 'unreadable',
            message: `${file} cannot be read (${errorCode(error) ?? 'error'})`,
          });
          continue;
        }
        problems.push({ path: file, code: error.code, message: error.message });
      }
    }
  }

  /** The listing, from memory when fresh; concurrent callers share one read of the disk. */
  function list(): Promise<SkillListing> {
    const now = clock();
    if (listed !== undefined && now - listed.at < refreshMs)
      return listed.listing.then((listing) => structuredClone(listing));
    const listing = listFromDisk();
    listed = { at: now, listing };
    // A failed read is not kept: the next call tries the disk again.
    listing.catch(() => {
      if (listed?.listing === listing) listed = undefined;
    });
    return listing.then((fresh) => structuredClone(fresh));
  }

  async function listFromDisk(): Promise<SkillListing> {
    const found = new Map<string, CatalogEntry>();
    const problems: SkillProblem[] = [];
    for (const root of roots) await listRoot(root, found, problems);
    catalog = found;
    return {
      skills: [...found.entries()]
        .map(([name, skill]) => ({ name, description: skill.description }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      problems,
    };
  }

  return {
    list,

    async read(name, relativePath) {
      if (typeof name !== 'string' || !isValidSkillName(name)) throw new SkillNotFoundError(String(name));
      // A skill added since the last listing is found without waiting for the next one.
      if (!catalog.has(name)) {
        listed = undefined;
        await list();
      }
      const skill = catalog.get(name);
      if (!skill) throw new SkillNotFoundError(name);
      if (relativePath === undefined || relativePath === SKILL_FILE) {
        const content = await readText(
          path.join(skill.real, SKILL_FILE),
          skill.file,
          () => new SkillNotFoundError(name),
        );
        return parseSkillFile(content, { file: skill.file, directory: skill.directory }).body;
      }
      const segments = skillPathSegments(relativePath);
      const target = path.join(skill.real, ...segments);
      let real: string;
      try {
        real = await fs.realpath(target);
      } catch (error) {
        const code = errorCode(error);
        if (code === 'ENOENT' || code === 'ENOTDIR') throw new SkillFileNotFoundError(name, relativePath);
        if (code === 'ELOOP') throw new InvalidSkillPathError(relativePath, 'is a symbolic link loop');
        throw error;
      }
      // Resolved, the path must still be inside the skill's own directory: a symlink out is refused.
      if (!inside(skill.real, real) || real === skill.real)
        throw new InvalidSkillPathError(relativePath, "leads out of the skill's directory");
      return readText(
        real,
        `${skill.directory}/${segments.join('/')}`,
        () => new SkillFileNotFoundError(name, relativePath),
      );
    },
  };
}
