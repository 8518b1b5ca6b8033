import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** The parts of a blob's name that are checked, each named in the error. */
export type BlobNameField = 'sessionId' | 'kind' | 'id' | 'ref';

/**
 * A spill decision recorded against a blob that does not match it: the pointer shown to the model names
 * the planned ref and checksum, so an edit must not point anywhere else.
 */
export class SpillMismatchError extends CtxkitError {
  static override readonly code: ErrorCode = 'spill_mismatch';
  constructor(reason: string, details: Record<string, unknown> = {}) {
    super('spill_mismatch', `spilled tool output: ${reason}`, details);
  }
}

/**
 * A path inside a session's directory that resolves (through a symlink, a symlinked directory or a
 * replaced session directory) to somewhere outside that session's own directory: another session's
 * blob, the rest of the data directory, or anywhere else on the machine. Refused for every operation;
 * nothing is read, written or deleted through it.
 */
export class BlobPathEscapeError extends CtxkitError {
  static override readonly code: ErrorCode = 'blob_path_escape';
  constructor(sessionId: string, relativePath: string, resolved: string) {
    super(
      'blob_path_escape',
      `session ${sessionId}: ${relativePath} resolves outside the session's directory; refused`,
      { sessionId, path: relativePath, resolved },
    );
  }
}

/**
 * Two names that differ only in case landed on the same file (a case-insensitive filesystem: macOS,
 * Windows): the directory or record found belongs to `existing`, not to `requested`. Refused on write;
 * reads treat the other name's blob as not found.
 */
export class BlobNameCollisionError extends CtxkitError {
  static override readonly code: ErrorCode = 'blob_name_collision';
  constructor(sessionId: string, what: 'sessionId' | 'id', requested: string, existing: string) {
    super(
      'blob_name_collision',
      `session ${sessionId}: ${what} ${JSON.stringify(requested)} collides on disk with ${JSON.stringify(existing)}`,
      { sessionId, what, requested, existing },
    );
  }
}

/** A blob's checksum record or a session's marker file that cannot be read back as written. */
export class BlobRecordInvalidError extends CtxkitError {
  static override readonly code: ErrorCode = 'blob_record_invalid';
  constructor(sessionId: string, relativePath: string, reason: string) {
    super('blob_record_invalid', `session ${sessionId}: ${relativePath} is not a valid record: ${reason}`, {
      sessionId,
      path: relativePath,
      reason,
    });
  }
}

/**
 * A session id, kind, blob id or ref that could name something outside the session's own blobs (`..`,
 * an absolute path, a separator, NUL…) or is otherwise not a plain name. Refused, never rewritten:
 * `sanitizeBlobId` is the explicit way to turn an arbitrary string into a valid id.
 */
export class InvalidBlobIdError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_blob_id';
  readonly field: BlobNameField;

  constructor(field: BlobNameField, value: string, reason: string) {
    super('invalid_blob_id', `invalid blob ${field} ${JSON.stringify(value.slice(0, 80))}: ${reason}`, {
      field,
      value,
      reason,
    });
    this.field = field;
  }
}

/**
 * No such blob in this session. Also what a session gets for another session's blob: refs are resolved
 * inside the asking session only, so it cannot even learn whether the other session has one.
 */
export class BlobNotFoundError extends CtxkitError {
  static override readonly code: ErrorCode = 'blob_not_found';
  constructor(sessionId: string, ref: string) {
    super('blob_not_found', `session ${sessionId} has no blob ${ref}`, { sessionId, ref });
  }
}

/** A blob whose content no longer hashes to its recorded sha256, or not to the one the caller expected. */
export class BlobIntegrityError extends CtxkitError {
  static override readonly code: ErrorCode = 'blob_integrity';
  constructor(sessionId: string, ref: string, expected: string, actual: string) {
    super('blob_integrity', `session ${sessionId}, blob ${ref}: sha256 is ${actual}, expected ${expected}`, {
      sessionId,
      ref,
      expected,
      actual,
    });
  }
}
