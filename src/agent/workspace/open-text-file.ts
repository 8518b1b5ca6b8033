/**
 * Opening a file of the workspace to read it as text: confined to the workspace, a regular file (never a
 * directory, device, socket or pipe, which could block), not through a symbolic link swapped in after the
 * check, and not binary (described instead, by size and first bytes).
 */

import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import { BINARY_SNIFF_BYTES, looksBinary } from './text-bytes.ts';
import { count, shownPath, WorkspaceToolError } from './tool-result.ts';
import type { Workspace } from './workspace-paths.ts';

export interface OpenTextFile {
  handle: fs.FileHandle;
  size: number;
  /** The path as the answers show it, relative to the root. */
  relative: string;
  /** The real path opened. */
  real: string;
}

/** Opens a regular file of the workspace for reading, refusing directories, devices, pipes and binary files. */
export async function openTextFile(workspace: Workspace, input: string): Promise<OpenTextFile> {
  const target = await workspace.resolve(input);
  const shown = shownPath(target.relative);
  if (!target.exists) throw new WorkspaceToolError('not_found', `${shown} does not exist`);
  const handle = await fs
    .open(target.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
    .catch((error: unknown) => {
      if ((error as { code?: unknown }).code === 'ELOOP')
        throw new WorkspaceToolError('invalid_path', `${shown} changed into a symbolic link`);
      throw error;
    });
  try {
    const stat = await handle.stat();
    if (stat.isDirectory())
      throw new WorkspaceToolError('not_a_file', `${shown} is a directory: list it with list_files`);
    if (!stat.isFile())
      throw new WorkspaceToolError('not_a_file', `${shown} is not a regular file (a device, socket or pipe)`);
    const head = Buffer.alloc(Math.min(stat.size, BINARY_SNIFF_BYTES));
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    const sniffed = head.subarray(0, bytesRead);
    if (looksBinary(sniffed)) {
      const start = [...sniffed.subarray(0, 16)].map((byte) => byte.toString(16).padStart(2, '0')).join(' ');
      throw new WorkspaceToolError(
        'binary_file',
        `${shown} is a binary file (${count(stat.size)} bytes, starting ${start}): it cannot be shown as text`,
      );
    }
    return { handle, size: stat.size, relative: target.relative, real: target.real };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
