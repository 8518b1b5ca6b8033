import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** A memory entry or session id the sink cannot file: names the field. */
export class InvalidMemoryEntryError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_memory_entry';
  constructor(field: string, reason: string) {
    super('invalid_memory_entry', `memory entry ${field}: ${reason}`, { field, reason });
  }
}

/**
 * A path given to `readNote` that is not a memory file: only `MEMORY.md` and the daily files
 * `memory/YYYY-MM-DD.md` are, inside the memory directory. Paths come from the model and are never trusted.
 */
export class InvalidMemoryPathError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_memory_path';
  readonly path: string;

  constructor(path: string, reason: string) {
    super('invalid_memory_path', `memory path ${JSON.stringify(path)}: ${reason}`, { path, reason });
    this.path = path;
  }
}

/** A well-formed memory path with no memory file there (a day nothing was written). */
export class MemoryNoteNotFoundError extends CtxkitError {
  static override readonly code: ErrorCode = 'memory_note_not_found';
  readonly path: string;

  constructor(path: string, reason = 'no such memory file') {
    super('memory_note_not_found', `memory path ${JSON.stringify(path)}: ${reason}`, { path, reason });
    this.path = path;
  }
}

/** The memory sink keeps no files to read (the in-memory sink): there is no memory index or note. */
export class MemoryUnavailableError extends CtxkitError {
  static override readonly code: ErrorCode = 'memory_unavailable';
  constructor() {
    super('memory_unavailable', 'this agent keeps no memory files to read (its memory sink has no readNote)');
  }
}
