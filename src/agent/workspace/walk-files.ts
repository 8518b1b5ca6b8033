/**
 * Walks a directory tree for list_files and search_files: depth first, names sorted (the same tree
 * lists the same way every time), symbolic links reported and never followed (no loops, no way out of
 * the workspace), `.git` and `node_modules` skipped unless asked for, and a bounded number of entries
 * looked at, so a huge tree costs a bounded time.
 */

import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Directory names skipped unless the call asks for them. */
export const SKIPPED_DIRECTORIES: readonly string[] = Object.freeze(['.git', 'node_modules']);

/** Entries a walk looks at, at most: past this the answer says the walk stopped. */
export const MAX_WALK_ENTRIES = 100_000;

export type WalkEntryType = 'file' | 'directory' | 'symlink' | 'other';

export interface WalkEntry {
  /** Relative to the directory walked, `/`-separated. */
  path: string;
  absolute: string;
  type: WalkEntryType;
  /** 1 for the directory's own entries. */
  depth: number;
}

export interface WalkOptions {
  /** Levels below the directory to go into (1: its own entries only). */
  maxDepth: number;
  includeSkipped?: boolean;
  maxEntries?: number;
  signal?: AbortSignal;
  /** Absolute paths never listed nor entered, whatever `includeSkipped` says (the agent's own data). */
  exclude?: (absolute: string) => boolean;
}

export interface WalkSummary {
  /** Entries looked at. */
  entries: number;
  /** Stopped at `maxEntries`. */
  truncated: boolean;
  /** Stopped because the visitor said so. */
  stopped: boolean;
  /** Skipped directories met (`.git`, `node_modules`), by path. */
  skipped: string[];
  /** Directories that could not be read (permissions), by path. */
  unreadable: string[];
  aborted: boolean;
}

const typeOf = (entry: Dirent): WalkEntryType =>
  entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : entry.isFile() ? 'file' : 'other';

/**
 * Calls `visit` for each entry under `dir`, directories before what they hold; `visit` returning
 * `false` ends the walk.
 */
export async function walkFiles(
  dir: string,
  options: WalkOptions,
  visit: (entry: WalkEntry) => boolean | undefined | Promise<boolean | undefined>,
): Promise<WalkSummary> {
  const maxEntries = options.maxEntries ?? MAX_WALK_ENTRIES;
  const summary: WalkSummary = {
    entries: 0,
    truncated: false,
    stopped: false,
    skipped: [],
    unreadable: [],
    aborted: false,
  };

  async function walk(absolute: string, relative: string, depth: number): Promise<boolean> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(absolute, { withFileTypes: true });
    } catch (error) {
      if (depth === 1) throw error;
      summary.unreadable.push(relative);
      return true;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (options.signal?.aborted) {
        summary.aborted = true;
        return false;
      }
      if (summary.entries >= maxEntries) {
        summary.truncated = true;
        return false;
      }
      const entryPath = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const type = typeOf(entry);
      if (!options.includeSkipped && SKIPPED_DIRECTORIES.includes(entry.name)) {
        summary.skipped.push(entryPath);
        continue;
      }
      const entryAbsolute = path.join(absolute, entry.name);
      if (options.exclude?.(entryAbsolute)) continue;
      summary.entries++;
      if ((await visit({ path: entryPath, absolute: entryAbsolute, type, depth })) === false) {
        summary.stopped = true;
        return false;
      }
      if (type === 'directory' && depth < options.maxDepth) {
        if (!(await walk(entryAbsolute, entryPath, depth + 1))) return false;
      }
    }
    return true;
  }

  await walk(dir, '', 1);
  return summary;
}
