import { createHash } from 'node:crypto';
import { InvalidBlobIdError } from '../core/errors/index.ts';
import { idProblem, MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import { BLOB_KINDS, type BlobKind } from './blob-store.ts';

/**
 * Session ids and blob ids are names, never paths. A store accepts any id that is non-empty, well-formed
 * text without NUL and not absurdly long (sessions: `MAX_SESSION_ID_LENGTH`; blobs: `MAX_BLOB_ID_LENGTH`,
 * room for `<session>.md`); a filesystem store turns each into a file or directory name with
 * `sessionDirName` / `blobFileName` below, so no id (`..`, `a/b`, `C:\x`, `.hidden`) can reach outside
 * its session's directory, and two different ids never share a name.
 */

/** The longest blob id accepted, in UTF-16 code units: a session id plus `.md` fits. */
export const MAX_BLOB_ID_LENGTH = 1024;
/**
 * Ids of at most this length made of plain characters (`PLAIN_NAME`) are their own file name; so were all
 * ids this store accepted before any id was: their files are where they always were.
 */
export const MAX_BLOB_NAME_LENGTH = 200;
const PLAIN_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
/** Plain and lower-case: the same name on a case-insensitive filesystem only for the same id. */
const PLAIN_LOWER_NAME = /^[a-z0-9_-][a-z0-9._-]*$/;
/** Readable part of an encoded name. */
const SLUG_LENGTH = 48;
/** Hex digits of the id's sha256 in an encoded name (128 bits). */
const HASH_HEX = 32;
/** Separates an encoded name's slug from its hash; never in a plain name, so the two never meet. */
const HASH_MARK = '~';

export function validateBlobName(field: 'sessionId' | 'id', value: string): void {
  const problem = idProblem(value, field === 'sessionId' ? MAX_SESSION_ID_LENGTH : MAX_BLOB_ID_LENGTH);
  if (problem !== undefined) {
    throw new InvalidBlobIdError(field, typeof value === 'string' ? value : String(value), problem);
  }
}

export function validateBlobKind(value: string): asserts value is BlobKind {
  if (!(BLOB_KINDS as readonly string[]).includes(value)) {
    throw new InvalidBlobIdError('kind', String(value), `must be one of ${BLOB_KINDS.join(', ')}`);
  }
}

/** A blob's ref: `<kind>/<id>`, naming it inside its session (the id may hold anything, slashes too). */
export function blobRef(kind: BlobKind, id: string): string {
  validateBlobKind(kind);
  validateBlobName('id', id);
  return `${kind}/${id}`;
}

/** Splits and checks a ref: a known kind, a slash, and a valid id (everything after the first slash). */
export function parseBlobRef(ref: string): { kind: BlobKind; id: string } {
  const slash = typeof ref === 'string' ? ref.indexOf('/') : -1;
  if (slash === -1) throw new InvalidBlobIdError('ref', String(ref), 'must be <kind>/<id>');
  const kind = ref.slice(0, slash);
  const id = ref.slice(slash + 1);
  if (!(BLOB_KINDS as readonly string[]).includes(kind)) {
    throw new InvalidBlobIdError('ref', ref, `must start with one of ${BLOB_KINDS.join('/, ')}/`);
  }
  try {
    validateBlobName('id', id);
  } catch (error) {
    if (InvalidBlobIdError.isInstance(error))
      throw new InvalidBlobIdError('ref', ref, String(error.details.reason));
    throw error;
  }
  return { kind: kind as BlobKind, id };
}

const hashOf = (raw: string): string =>
  createHash('sha256').update(raw, 'utf8').digest('hex').slice(0, HASH_HEX);

/** `<slug>~<hash>`: ASCII, lower case, no leading dot, at most 81 characters, one per id. */
function encodedName(raw: string): string {
  const slug = raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, SLUG_LENGTH);
  return `${slug}${HASH_MARK}${hashOf(raw)}`;
}

/**
 * The directory name of a session in a filesystem store. Plain lower-case ids of at most
 * `MAX_BLOB_NAME_LENGTH` are their own name (as before); any other id is `<slug>~<sha256 prefix>`: the
 * slug keeps it readable, the hash (of the exact UTF-8, so NFC and NFD spellings differ) keeps it
 * apart. Every name is ASCII lower case, so a case-insensitive or normalizing filesystem cannot merge two
 * of them; plain names have no `~`, so they never meet encoded ones; none starts with a dot.
 */
export function sessionDirName(sessionId: string): string {
  validateBlobName('sessionId', sessionId);
  return sessionId.length <= MAX_BLOB_NAME_LENGTH && PLAIN_LOWER_NAME.test(sessionId)
    ? sessionId
    : encodedName(sessionId);
}

/**
 * Where a session written before any id was accepted kept its blobs: its id itself, for the mixed-case
 * plain ids whose directory name is now encoded. Read (never written) after the new directory; undefined
 * when there is no such older place.
 */
export function legacySessionDirName(sessionId: string): string | undefined {
  return sessionId.length <= MAX_BLOB_NAME_LENGTH &&
    PLAIN_NAME.test(sessionId) &&
    !PLAIN_LOWER_NAME.test(sessionId)
    ? sessionId
    : undefined;
}

/**
 * The file name of a blob inside its session's directory. Plain ids (the names every tool-call id is
 * sanitized to, mixed case included) are their own name, as before; any other id is `<slug>~<hash>`.
 * Blob ids are the engine's, unique per session by construction (`<seq>-<callId>`, `<session>.md`); two
 * that differ only in case on a case-insensitive filesystem are told apart by their records and refused
 * (`BlobNameCollisionError`), never mixed up.
 */
export function blobFileName(id: string): string {
  validateBlobName('id', id);
  return id.length <= MAX_BLOB_NAME_LENGTH && PLAIN_NAME.test(id) ? id : encodedName(id);
}

/**
 * Turns any string (a provider's tool-call id such as `functions.bash:0`, a session name) into a plain
 * blob name, deterministically. Plain names are returned as they are; any other gets its unsafe
 * characters replaced and a hash of the original appended, so two different inputs never share a name.
 */
export function sanitizeBlobId(raw: string): string {
  if (raw.length <= MAX_BLOB_NAME_LENGTH && raw !== '' && PLAIN_NAME.test(raw)) return raw;
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex').slice(0, 12);
  const safe = raw
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^\.+/, '')
    .slice(0, MAX_BLOB_NAME_LENGTH - hash.length - 1);
  return safe === '' ? hash : `${safe}-${hash}`;
}

/** Id of a session's offloaded transcript: `conversation_history/<session>.md` (DESIGN, deepagents). */
export function conversationHistoryId(sessionId: string): string {
  validateBlobName('sessionId', sessionId);
  return `${sessionId}.md`;
}
