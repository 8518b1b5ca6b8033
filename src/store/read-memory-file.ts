import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidMemoryPathError } from '../core/errors/index.ts';
import { readBoundedText } from './read-bounded.ts';

/**
 * Reading memory files back (the `read_memory` tool, the memory index in every request): which paths are
 * memory files, and reading one without following a symlink or loading more than a bound. Paths come
 * from the model and are never trusted. Writing them is `memory-files.ts`'s.
 */

export const MEMORY_INDEX_FILE = 'MEMORY.md';
export const MEMORY_DAILY_DIR = 'memory';

/**
 * Bytes of a memory file `readNote` reads at most: a daily file holds one day's notes, far below this;
 * a larger one was not written by ctxkit and is refused rather than loaded whole. `readIndex` reads the
 * newest part of a larger `MEMORY.md` (its tail: each note is appended there).
 */
export const MEMORY_READ_MAX_BYTES = 10 * 1024 * 1024;

/** A daily memory file's name: the UTC day it holds. */
export const DAILY_FILE = /^\d{4}-\d{2}-\d{2}\.md$/;
const MEMORY_PATH_FORMS = `${MEMORY_INDEX_FILE} or a daily file ${MEMORY_DAILY_DIR}/YYYY-MM-DD.md`;

/**
 * The memory file a path names, relative to the memory directory: `MEMORY.md` or
 * `memory/YYYY-MM-DD.md` (a leading `./` is accepted), or an InvalidMemoryPathError saying why not.
 * Nothing else in or out of the memory directory is a memory file, so no other path is ever opened.
 */
export function memoryFilePath(notePath: string): string {
  if (typeof notePath !== 'string' || notePath.trim() === '')
    throw new InvalidMemoryPathError(String(notePath), `must be ${MEMORY_PATH_FORMS}`);
  const shown = notePath.length > 200 ? `${notePath.slice(0, 200)}…` : notePath;
  const relative = notePath.trim().replace(/^\.\//, '');
  if (relative === MEMORY_INDEX_FILE) return relative;
  const [folder, name, ...rest] = relative.split('/');
  if (folder === MEMORY_DAILY_DIR && name !== undefined && rest.length === 0 && DAILY_FILE.test(name))
    return relative;
  if (relative.startsWith('/') || relative.startsWith('\\') || /^[A-Za-z]:/.test(relative))
    throw new InvalidMemoryPathError(shown, `must be relative to the memory directory: ${MEMORY_PATH_FORMS}`);
  if (relative.split(/[/\\]/).includes('..'))
    throw new InvalidMemoryPathError(shown, `must not leave the memory directory: ${MEMORY_PATH_FORMS}`);
  throw new InvalidMemoryPathError(shown, `is not a memory file: ${MEMORY_PATH_FORMS}`);
}

/**
 * A memory file's text (`relative` already checked by memoryFilePath): a regular file opened without
 * following a symlink, inside a memory directory that is not one either; at most `maxBytes`, the
 * newest part (its tail, from a line start) when `tail`, else refused when larger.
 */
export async function readMemoryFile(
  dir: string,
  relative: string,
  shown: string,
  tail: boolean,
): Promise<{ text: string; key: string } | undefined> {
  if (relative.startsWith(`${MEMORY_DAILY_DIR}/`)) {
    const folder = await fs.lstat(path.join(dir, MEMORY_DAILY_DIR)).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (!folder) return undefined;
    if (!folder.isDirectory())
      throw new InvalidMemoryPathError(
        shown,
        `${MEMORY_DAILY_DIR}/ is not a directory inside the memory directory`,
      );
  }
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(
      path.join(dir, relative),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new InvalidMemoryPathError(shown, 'is a symbolic link: memory files are regular files');
    throw error;
  }
  try {
    let stat = await handle.stat();
    if (!stat.isFile()) throw new InvalidMemoryPathError(shown, 'is not a regular file');
    const key = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
    if (stat.size <= MEMORY_READ_MAX_BYTES) {
      const text = await readBoundedText(handle, MEMORY_READ_MAX_BYTES);
      if (text !== undefined) return { text, key };
      // It grew past the bound while being read: read its tail as it is now.
      stat = await handle.stat();
    }
    if (!tail)
      throw new InvalidMemoryPathError(
        shown,
        `is larger than ${MEMORY_READ_MAX_BYTES} bytes: not a memory file ctxkit wrote`,
      );
    const buffer = Buffer.alloc(MEMORY_READ_MAX_BYTES);
    const { bytesRead } = await handle.read(
      buffer,
      0,
      MEMORY_READ_MAX_BYTES,
      Math.max(0, stat.size - MEMORY_READ_MAX_BYTES),
    );
    const text = buffer.subarray(0, bytesRead).toString('utf8');
    const lines = text.slice(text.indexOf('\n') + 1);
    return { text: `# Memory index (its newest ${MEMORY_READ_MAX_BYTES} bytes)\n${lines}`, key };
  } finally {
    await handle.close();
  }
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error
    ? String((error as { code: unknown }).code)
    : undefined;
}
