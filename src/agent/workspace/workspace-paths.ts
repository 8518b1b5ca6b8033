/**
 * Path confinement for the workspace tools: every path the model gives is taken relative to the
 * workspace root (an absolute path is accepted when it lies inside the root), and is refused when it
 * resolves outside: by `..`, by an absolute path elsewhere, or through a symbolic link whose real path
 * leaves the root (checked with realpath on the part of the path that exists). A symbolic link that stays
 * inside the root is followed. The tools then work on the real path, so a link cannot be swapped in
 * between the check and a write without the write refusing to follow it (`O_NOFOLLOW`).
 */

import { realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { clip } from '../page-text.ts';
import { WorkspaceToolError } from './tool-result.ts';

/** The longest path accepted (Linux's PATH_MAX). */
export const MAX_WORKSPACE_PATH_LENGTH = 4_096;

export interface ResolvedPath {
  /** Relative to the root, with `/` separators; `.` for the root itself. What the answers show. */
  relative: string;
  /** Absolute: the real path of the part that exists, the rest of the path appended. */
  real: string;
  /** Whether the whole path exists. */
  exists: boolean;
}

export interface Workspace {
  /** The root as given, resolved to an absolute path. */
  readonly root: string;
  /** The root's real path (symbolic links resolved); fails when the root does not exist. */
  realRoot(): Promise<string>;
  /** A path from the model, confined to the root; a WorkspaceToolError says why one is refused. */
  resolve(input: string): Promise<ResolvedPath>;
  /** An absolute path inside the root (the real root) as the answers show it. */
  relativeOf(absolute: string): string;
  /** Whether an absolute path is one of the private ones (or inside one): never listed, read or written. */
  isPrivate(absolute: string): boolean;
}

export interface WorkspaceOptions {
  /**
   * Directories inside the root the tools must not touch: the agent's own data (its sessions, settings and
   * offloaded content of every session) lives there, and a tool that reached it would read other
   * sessions and rewrite its own settings.
   */
  privatePaths?: readonly string[];
}

const isInside = (root: string, candidate: string): string | undefined => {
  const relative = path.relative(root, candidate);
  if (relative === '') return '';
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative))
    return undefined;
  return relative;
};

const toPosix = (relative: string): string => (relative === '' ? '.' : relative.split(path.sep).join('/'));

const errorCode = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

export function createWorkspace(root: string, options: WorkspaceOptions = {}): Workspace {
  const given = path.resolve(root);
  let cachedRealRoot: string | undefined;
  // Both the path as given and its real path: a walk sees one, a resolved path the other.
  const privatePaths = (options.privatePaths ?? []).flatMap((dir) => {
    const absolute = path.resolve(dir);
    let real = absolute;
    try {
      real = realpathSync(absolute);
    } catch {
      // Not there yet: the path as given.
    }
    return real === absolute ? [absolute] : [absolute, real];
  });
  const isPrivate = (absolute: string): boolean =>
    privatePaths.some((dir) => isInside(dir, absolute) !== undefined);

  async function realRoot(): Promise<string> {
    try {
      const real = await fs.realpath(given);
      cachedRealRoot = real;
      return real;
    } catch (error) {
      if (errorCode(error) === 'ENOENT')
        throw new WorkspaceToolError('not_found', `the workspace ${given} does not exist`);
      throw error;
    }
  }

  const outside = (input: string, how: string) =>
    new WorkspaceToolError(
      'outside_workspace',
      `${JSON.stringify(clip(input))} ${how} outside the workspace: paths are relative to the workspace root, and only files inside it can be used`,
    );

  async function resolve(input: string): Promise<ResolvedPath> {
    if (input.includes('\0')) throw new WorkspaceToolError('invalid_path', 'the path contains a NUL byte');
    if (input.length > MAX_WORKSPACE_PATH_LENGTH)
      throw new WorkspaceToolError(
        'invalid_path',
        `the path is longer than ${MAX_WORKSPACE_PATH_LENGTH} characters`,
      );
    const rootReal = await realRoot();
    let relative: string | undefined;
    if (path.isAbsolute(input)) {
      const absolute = path.resolve(input);
      relative = isInside(given, absolute) ?? isInside(rootReal, absolute);
      if (relative === undefined) throw outside(input, 'is');
    } else {
      relative = isInside(rootReal, path.resolve(rootReal, input));
      if (relative === undefined) throw outside(input, 'leads');
    }
    const lexical = path.join(rootReal, relative);
    // The real path of the longest part that exists; what does not exist yet is appended as given.
    const rest: string[] = [];
    let existing = lexical;
    let real: string;
    for (;;) {
      try {
        real = path.join(await fs.realpath(existing), ...rest);
        break;
      } catch (error) {
        const code = errorCode(error);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        const stat = await fs.lstat(existing).catch(() => undefined);
        if (stat?.isSymbolicLink())
          throw new WorkspaceToolError(
            'invalid_path',
            `${JSON.stringify(clip(toPosix(path.relative(rootReal, existing))))} is a symbolic link to something that does not exist`,
          );
        if (existing === rootReal) throw error;
        rest.unshift(path.basename(existing));
        existing = path.dirname(existing);
      }
    }
    if (isInside(rootReal, real) === undefined) throw outside(input, 'leads (through a symbolic link)');
    if (isPrivate(real) || isPrivate(lexical))
      throw new WorkspaceToolError(
        'outside_workspace',
        `${JSON.stringify(clip(input))} is the agent's own data directory, which the workspace tools do not touch`,
      );
    return { relative: toPosix(relative), real, exists: rest.length === 0 };
  }

  return {
    root: given,
    realRoot,
    resolve,
    isPrivate,
    relativeOf(absolute) {
      const base = cachedRealRoot ?? given;
      return toPosix(isInside(base, absolute) ?? path.relative(base, absolute));
    },
  };
}
