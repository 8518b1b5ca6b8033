import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { BlobPathEscapeError, BlobRecordInvalidError } from '../core/errors/index.ts';

/**
 * The filesystem blob store's defences, as functions of a session's directory: every path used below it
 * is realpath'd and must stay inside (a symlink out, to another session or anywhere else, is refused with
 * `BlobPathEscapeError`); files are opened by their resolved path with `O_NOFOLLOW`; directories are
 * created one level at a time, each checked before the next; new files are created exclusively and,
 * when durable, fsynced with their directory.
 */

/** Blob files are readable by their owner only: tool outputs can hold secrets. */
export const FS_BLOB_FILE_MODE = 0o600;
export const FS_BLOB_DIR_MODE = 0o700;

export interface SessionDir {
  sessionId: string;
  /** Real path of the session's directory. */
  dir: string;
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}

const isInside = (parent: string, child: string): boolean => child.startsWith(parent + path.sep);

/** Which directory this is, whatever its path: a deleted and re-created one differs. */
export const identityOf = (stat: { dev: number; ino: number }): string => `${stat.dev}:${stat.ino}`;

/**
 * Real path of `relative` inside the session's directory, or undefined if nothing is there.
 * Throws BlobPathEscapeError when it resolves outside, including symlinks that loop or dangle.
 */
export async function resolveInside(session: SessionDir, relative: string): Promise<string | undefined> {
  const absolute = path.join(session.dir, relative);
  let real: string;
  try {
    real = await fs.realpath(absolute);
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ELOOP') throw new BlobPathEscapeError(session.sessionId, relative, absolute);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    // Nothing resolves there. A dangling symlink still names somewhere: refuse it rather than write through it.
    const link = await fs.lstat(absolute).catch(() => undefined);
    if (link?.isSymbolicLink()) {
      throw new BlobPathEscapeError(session.sessionId, relative, await fs.readlink(absolute));
    }
    return undefined;
  }
  if (!isInside(session.dir, real)) throw new BlobPathEscapeError(session.sessionId, relative, real);
  return real;
}

/** Reads a regular file by its resolved path, refusing a symlink swapped in since it was resolved. */
export async function readResolved(session: SessionDir, relative: string, real: string): Promise<Buffer> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if (errorCode(error) === 'ELOOP') throw new BlobPathEscapeError(session.sessionId, relative, real);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) {
      throw new BlobRecordInvalidError(session.sessionId, relative, 'not a regular file');
    }
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** The bytes of a regular file inside the session's directory, or undefined when nothing is there. */
export async function readInside(session: SessionDir, relative: string): Promise<Buffer | undefined> {
  const real = await resolveInside(session, relative);
  if (real === undefined) return undefined;
  try {
    return await readResolved(session, relative, real);
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined;
    throw error;
  }
}

export async function readJson<T>(
  session: SessionDir,
  relative: string,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  const data = await readInside(session, relative);
  if (data === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch (error) {
    throw new BlobRecordInvalidError(session.sessionId, relative, (error as Error).message);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    throw new BlobRecordInvalidError(session.sessionId, relative, z.prettifyError(result.error));
  }
  return result.data;
}

export async function fsyncDir(dir: string, durable: boolean): Promise<void> {
  if (!durable) return;
  const handle = await fs.open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic.
  } finally {
    await handle.close();
  }
}

/** Writes a new file that nobody else can have opened (exclusive create), fsynced when durable. */
export async function writeNewFile(file: string, data: Buffer | string, durable: boolean): Promise<void> {
  const handle = await fs.open(
    file,
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    FS_BLOB_FILE_MODE,
  );
  try {
    await handle.writeFile(data);
    if (durable) await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates `parts` under the session's directory one level at a time, each checked before the next. */
export async function ensureDir(session: SessionDir, ...parts: string[]): Promise<string> {
  let current = session.dir;
  for (let depth = 1; depth <= parts.length; depth++) {
    const relative = path.join(...parts.slice(0, depth));
    const part = parts[depth - 1] as string;
    try {
      await fs.mkdir(path.join(current, part), { mode: FS_BLOB_DIR_MODE });
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
    }
    const real = await resolveInside(session, relative);
    if (real === undefined) throw new BlobRecordInvalidError(session.sessionId, relative, 'vanished');
    if (!(await fs.stat(real)).isDirectory()) {
      throw new BlobRecordInvalidError(session.sessionId, relative, 'not a directory');
    }
    current = real;
  }
  return current;
}

/** Writes `data` to `target` by writing a temporary file and renaming it over the target. */
export async function replaceFile(
  tmpDir: string,
  target: string,
  data: Buffer | string,
  durable: boolean,
): Promise<void> {
  const tmp = path.join(tmpDir, randomUUID());
  try {
    await writeNewFile(tmp, data, durable);
    await fs.rename(tmp, target);
  } catch (error) {
    await fs.rm(tmp, { force: true });
    throw error;
  }
  await fsyncDir(path.dirname(target), durable);
}
