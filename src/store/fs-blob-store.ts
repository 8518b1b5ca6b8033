import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  BlobIntegrityError,
  BlobNameCollisionError,
  BlobNotFoundError,
  BlobPathEscapeError,
  BlobRecordInvalidError,
} from '../core/errors/index.ts';
import { BLOB_KINDS, type BlobInfo, type BlobKind, type BlobStore } from './blob-store.ts';
import {
  blobFileName,
  blobRef,
  legacySessionDirName,
  parseBlobRef,
  sessionDirName,
  validateBlobKind,
  validateBlobName,
} from './blob-store-ids.ts';
import {
  ensureDir,
  errorCode,
  FS_BLOB_DIR_MODE,
  fsyncDir,
  identityOf,
  readInside,
  readJson,
  replaceFile,
  resolveInside,
  type SessionDir,
  writeNewFile,
} from './fs-session-paths.ts';

export { FS_BLOB_DIR_MODE, FS_BLOB_FILE_MODE } from './fs-session-paths.ts';

/**
 * A BlobStore on the filesystem. Layout, under `dataDir`:
 *
 * ```
 * sessions/<session dir>/                  `sessionDirName(id)`: the id itself when plain lower case, else `<slug>~<hash>`
 *   .session.json                        which session owns this directory (exact id, case and all)
 *   large_tool_results/<blob file>       `blobFileName(id)`: the content, as UTF-8, exactly what was put
 *   conversation_history/<blob file>     (`<session>.md`, encoded the same way)
 *   .blobs/<kind>/<blob file>.json       its record: exact ids, sha256, UTF-8 bytes
 *   .tmp/                                writes in progress (same filesystem, so renames are atomic)
 * ```
 *
 * Any id is accepted and none is ever a path: directory and file names are computed from ids
 * (`blob-store-ids.ts`), never start with a dot (so hidden names cannot collide with blobs), and the
 * marker and records carry the exact ids, so a name that two ids could share (a hash collision, two blob
 * ids differing only in case on a case-insensitive filesystem) is refused, never mixed up. A session
 * with a mixed-case plain id (`S1`) that an older version stored under `sessions/S1` is still read
 * there (`legacySessionDirName`), after its own directory; its new blobs go to its own directory.
 *
 * Defences, in order: names are computed before any path is built (no `..`, separators, absolute
 * paths, leading dots, NUL); the session's directory must be a real directory (its realpath is exactly
 * `<realpath(dataDir)>/sessions/<session dir>`); every file or directory used below it is realpath'd and must
 * stay inside that directory (a symlink to another session's blob or to anywhere else is refused with
 * `BlobPathEscapeError`); files are then opened by their resolved path with `O_NOFOLLOW`; directories are
 * created one level at a time, each checked before the next, so `mkdir` never follows a planted link out.
 * On case-insensitive filesystems `S1` and `s1` share a directory: the marker and each record carry the
 * exact names, so a write under the other spelling is refused (`BlobNameCollisionError`) and a read
 * finds nothing. Residual: a process that can rename directories inside the data directory between the
 * check and the open (a race, not a planted link) is outside this store's threat model.
 *
 * Crash safety: content goes to `.tmp/` first (written, fsynced) and is renamed into place, so a blob
 * is never half-written. The record is written (also by rename) before the content: when it replaces
 * content, it names the content it replaces (`replacing`) until the rename is done, so after a crash at
 * any point a read returns either the old or the new content, whole and checked, never an error. A
 * first put makes its two renames durable together: a record without its content, or content without a
 * record, is no blob (neither read nor listed), so a crash in between loses only that put.
 */

export const SESSIONS_DIR_NAME = 'sessions';
export const SESSION_MARKER_NAME = '.session.json';
export const BLOB_RECORDS_DIR_NAME = '.blobs';
export const BLOB_TEMP_DIR_NAME = '.tmp';
const TRASH_PREFIX = '.trash-';
const RECORD_SUFFIX = '.json';

/** fsync content, records and directories on every write: a put that returned survives a power cut. */
export const DEFAULT_FS_BLOB_DURABLE = true;

export interface FsBlobStoreOptions {
  /** The data directory; sessions live in `<dataDir>/sessions/`. Created on the first write. */
  dataDir: string;
  durable?: boolean;
}

export interface FsBlobStore extends BlobStore {
  readonly dataDir: string;
  /** `<dataDir>/sessions/<session>`, whether or not it exists yet. */
  sessionDir(sessionId: string): string;
}

const sha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
const digestSchema = z.object({ sha256: sha256Schema, bytes: z.number().int().nonnegative() });
const kindSchema = z.enum(BLOB_KINDS as readonly [BlobKind, ...BlobKind[]]);
const recordSchema = z.object({
  version: z.literal(1),
  sessionId: z.string(),
  kind: kindSchema,
  id: z.string(),
  sha256: sha256Schema,
  bytes: z.number().int().nonnegative(),
  /** Present while a put that replaces content is in flight: the content being replaced. */
  replacing: digestSchema.optional(),
});
const markerSchema = z.object({ version: z.literal(1), sessionId: z.string() });

type BlobRecord = z.infer<typeof recordSchema>;
type Digest = z.infer<typeof digestSchema>;

/** Where a put of one kind writes, as verified (real paths), and which directory the session's was. */
interface WriteDirs {
  session: SessionDir;
  kind: BlobKind;
  tmp: string;
  content: string;
  records: string;
  identity: string;
}

const sha256Of = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

export function createFsBlobStore(options: FsBlobStoreOptions): FsBlobStore {
  const dataDir = path.resolve(options.dataDir);
  const durable = options.durable ?? DEFAULT_FS_BLOB_DURABLE;
  const sessionsPath = path.join(dataDir, SESSIONS_DIR_NAME);
  let realSessionsRoot: string | undefined;
  const putQueues = new Map<string, Promise<unknown>>();
  const writeDirs = new Map<string, WriteDirs>();

  async function sessionsRoot(create: boolean): Promise<string | undefined> {
    if (create) await fs.mkdir(sessionsPath, { recursive: true, mode: FS_BLOB_DIR_MODE });
    if (realSessionsRoot !== undefined) return realSessionsRoot;
    try {
      realSessionsRoot = await fs.realpath(sessionsPath);
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return undefined;
      throw error;
    }
    return realSessionsRoot;
  }

  /**
   * The session's directory: a real directory, named exactly, whose marker names this session. Undefined
   * when it does not exist, or (on a case-insensitive filesystem) belongs to a differently-cased session
   * and `create` is false; refused when it is a symlink or the marker names another session and `create`.
   * `dirName` is the session's own directory name unless a legacy location is asked for (reads only).
   */
  async function openSession(
    sessionId: string,
    create: boolean,
    dirName: string = sessionDirName(sessionId),
  ): Promise<SessionDir | undefined> {
    validateBlobName('sessionId', sessionId);
    const root = await sessionsRoot(create);
    if (root === undefined) return undefined;
    const dir = path.join(root, dirName);
    if (create) {
      try {
        await fs.mkdir(dir, { mode: FS_BLOB_DIR_MODE });
      } catch (error) {
        if (errorCode(error) !== 'EEXIST') throw error;
      }
    }
    const relative = path.join(SESSIONS_DIR_NAME, dirName);
    let real: string;
    try {
      real = await fs.realpath(dir);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'ELOOP') throw new BlobPathEscapeError(sessionId, relative, dir);
      if (code !== 'ENOENT') throw error;
      const link = await fs.lstat(dir).catch(() => undefined);
      if (link?.isSymbolicLink()) throw new BlobPathEscapeError(sessionId, relative, await fs.readlink(dir));
      return undefined;
    }
    if (real !== dir) {
      // A case-insensitive filesystem found a directory spelled differently: another session's.
      if (real.toLowerCase() !== dir.toLowerCase()) throw new BlobPathEscapeError(sessionId, relative, real);
      if (create) throw new BlobNameCollisionError(sessionId, 'sessionId', sessionId, path.basename(real));
      return undefined;
    }
    if (!(await fs.stat(real)).isDirectory()) return undefined;
    const session: SessionDir = { sessionId, dir: real };

    const marker = await readJson(session, SESSION_MARKER_NAME, markerSchema);
    if (marker !== undefined) {
      if (marker.sessionId === sessionId) return session;
      if (create) throw new BlobNameCollisionError(sessionId, 'sessionId', sessionId, marker.sessionId);
      return undefined;
    }
    if (!create) return session;
    // Claim the directory: written whole, then linked into place, which fails if another writer won.
    const tmpDir = await ensureDir(session, BLOB_TEMP_DIR_NAME);
    const tmp = path.join(tmpDir, randomUUID());
    await writeNewFile(tmp, `${JSON.stringify({ version: 1, sessionId })}\n`, durable);
    try {
      await fs.link(tmp, path.join(real, SESSION_MARKER_NAME));
    } catch (error) {
      if (errorCode(error) !== 'EEXIST') throw error;
      return openSession(sessionId, create, dirName);
    } finally {
      await fs.rm(tmp, { force: true });
    }
    await fsyncDir(real, durable);
    return session;
  }

  const contentPath = (kind: BlobKind, id: string): string => path.join(kind, blobFileName(id));
  const recordPath = (kind: BlobKind, id: string): string =>
    path.join(BLOB_RECORDS_DIR_NAME, kind, `${blobFileName(id)}${RECORD_SUFFIX}`);

  /**
   * The session's directories to read, its own first: the older location of a mixed-case plain id's
   * blobs (see `legacySessionDirName`) comes second when it exists.
   */
  async function sessionsToRead(sessionId: string): Promise<SessionDir[]> {
    validateBlobName('sessionId', sessionId);
    const found: SessionDir[] = [];
    const own = await openSession(sessionId, false);
    if (own) found.push(own);
    const legacy = legacySessionDirName(sessionId);
    if (legacy !== undefined) {
      const old = await openSession(sessionId, false, legacy);
      if (old && old.dir !== own?.dir) found.push(old);
    }
    return found;
  }

  /** The first of the session's directories that records this blob, with its record. */
  async function findRecord(
    sessionId: string,
    kind: BlobKind,
    id: string,
  ): Promise<{ session: SessionDir; record: BlobRecord } | undefined> {
    for (const session of await sessionsToRead(sessionId)) {
      const record = await readRecord(session, kind, id);
      if (record) return { session, record };
    }
    return undefined;
  }

  /** The record of exactly this blob, or undefined (none, or a differently-cased name's). */
  async function readRecord(
    session: SessionDir,
    kind: BlobKind,
    id: string,
  ): Promise<BlobRecord | undefined> {
    const record = await readJson(session, recordPath(kind, id), recordSchema);
    if (record === undefined) return undefined;
    if (record.sessionId !== session.sessionId || record.kind !== kind || record.id !== id) return undefined;
    return record;
  }

  /** Reads a blob's content and which recorded digest it matches; undefined when the file is gone. */
  async function readContent(
    session: SessionDir,
    record: BlobRecord,
  ): Promise<{ data: Buffer; actual: string; matches: Digest | undefined } | undefined> {
    const data = await readInside(session, contentPath(record.kind, record.id));
    if (data === undefined) return undefined;
    const actual = sha256Of(data);
    const matches =
      actual === record.sha256
        ? { sha256: record.sha256, bytes: record.bytes }
        : record.replacing !== undefined && actual === record.replacing.sha256
          ? record.replacing
          : undefined;
    return { data, actual, matches };
  }

  /** The info of a recorded blob whose content exists, without reading it unless a put was interrupted. */
  async function infoOf(session: SessionDir, record: BlobRecord): Promise<BlobInfo | undefined> {
    const base = { ref: blobRef(record.kind, record.id), kind: record.kind, id: record.id };
    if (record.replacing === undefined) {
      const real = await resolveInside(session, contentPath(record.kind, record.id));
      return real === undefined ? undefined : { ...base, sha256: record.sha256, bytes: record.bytes };
    }
    const content = await readContent(session, record);
    if (content === undefined) return undefined;
    const digest = content.matches ?? { sha256: record.sha256, bytes: record.bytes };
    return { ...base, sha256: digest.sha256, bytes: digest.bytes };
  }

  /** The records of a kind in a session directory: each names its exact id, whose file name must be this one. */
  async function recordsOf(session: SessionDir, kind: BlobKind): Promise<BlobRecord[]> {
    const dir = await resolveInside(session, path.join(BLOB_RECORDS_DIR_NAME, kind));
    if (dir === undefined) return [];
    const names = await fs.readdir(dir).catch((error: unknown) => {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return [] as string[];
      throw error;
    });
    const records: BlobRecord[] = [];
    for (const name of names) {
      if (!name.endsWith(RECORD_SUFFIX) || name.startsWith('.')) continue;
      const fileName = name.slice(0, -RECORD_SUFFIX.length);
      const record = await readJson(session, path.join(BLOB_RECORDS_DIR_NAME, kind, name), recordSchema);
      if (
        record === undefined ||
        record.sessionId !== session.sessionId ||
        record.kind !== kind ||
        validName(record.id) !== fileName
      ) {
        continue;
      }
      records.push(record);
    }
    return records;
  }

  const validName = (id: string): string | undefined => {
    try {
      return blobFileName(id);
    } catch {
      return undefined;
    }
  };

  /**
   * The directories a put of `kind` writes into, checked in full (session marker, each level created and
   * resolved) the first time, then reused while a cheap re-check holds: each still resolves to the path it
   * was verified at, and the session's directory is the same one (not a symlink, not re-created). A link
   * planted since then fails the re-check, and the full checks run again and refuse it.
   */
  async function dirsForPut(sessionId: string, kind: BlobKind): Promise<WriteDirs> {
    const key = `${sessionId}\u0000${kind}`;
    const known = writeDirs.get(key);
    if (known !== undefined && (await stillInPlace(known))) return known;
    writeDirs.delete(key);
    const session = await openSession(sessionId, true);
    if (session === undefined) throw new BlobRecordInvalidError(sessionId, sessionId, 'vanished');
    const tmp = await ensureDir(session, BLOB_TEMP_DIR_NAME);
    const content = await ensureDir(session, kind);
    const records = await ensureDir(session, BLOB_RECORDS_DIR_NAME, kind);
    const dirs: WriteDirs = {
      session,
      kind,
      tmp,
      content,
      records,
      identity: identityOf(await fs.lstat(session.dir)),
    };
    writeDirs.set(key, dirs);
    return dirs;
  }

  async function stillInPlace(dirs: WriteDirs): Promise<boolean> {
    const under = (...parts: string[]) => fs.realpath(path.join(dirs.session.dir, ...parts));
    try {
      const [tmp, content, records, sessionStat] = await Promise.all([
        under(BLOB_TEMP_DIR_NAME),
        under(dirs.kind),
        under(BLOB_RECORDS_DIR_NAME, dirs.kind),
        fs.lstat(dirs.session.dir),
      ]);
      return (
        tmp === dirs.tmp &&
        content === dirs.content &&
        records === dirs.records &&
        sessionStat.isDirectory() &&
        identityOf(sessionStat) === dirs.identity
      );
    } catch {
      return false;
    }
  }

  async function put(sessionId: string, kind: BlobKind, id: string, content: string): Promise<BlobInfo> {
    const {
      session,
      tmp: tmpDir,
      content: contentDir,
      records: recordDir,
    } = await dirsForPut(sessionId, kind);
    const [existingRecord] = await Promise.all([
      readJson(session, recordPath(kind, id), recordSchema),
      // An existing target that escapes is refused before anything is written.
      resolveInside(session, contentPath(kind, id)),
    ]);
    if (existingRecord !== undefined && existingRecord.id !== id) {
      throw new BlobNameCollisionError(sessionId, 'id', id, existingRecord.id);
    }
    let replacing: Digest | undefined;
    if (existingRecord !== undefined) {
      const current = await readContent(session, existingRecord);
      if (current !== undefined) replacing = { sha256: current.actual, bytes: current.data.length };
    }

    const data = Buffer.from(content, 'utf8');
    const info: BlobInfo = { ref: blobRef(kind, id), kind, id, sha256: sha256Of(data), bytes: data.length };
    const record: BlobRecord = { version: 1, sessionId, kind, id, sha256: info.sha256, bytes: info.bytes };
    const fileName = blobFileName(id);
    const recordFile = path.join(recordDir, `${fileName}${RECORD_SUFFIX}`);
    const tmpContent = path.join(tmpDir, randomUUID());
    const tmpRecord = path.join(tmpDir, randomUUID());
    const replacesRecord = existingRecord !== undefined;
    try {
      // Both written out of sight at once, then the record is put in place before the content.
      await Promise.all([
        writeNewFile(tmpContent, data, durable),
        writeNewFile(tmpRecord, `${JSON.stringify({ ...record, replacing })}\n`, durable),
      ]);
      await fs.rename(tmpRecord, recordFile);
      // A new record must be durable before the content it replaces is: an old record over new content
      // would read as corrupt. A first put has nothing to protect (either half alone is not a blob).
      if (replacesRecord) await fsyncDir(recordDir, durable);
      await fs.rename(tmpContent, path.join(contentDir, fileName));
    } catch (error) {
      await Promise.all([fs.rm(tmpContent, { force: true }), fs.rm(tmpRecord, { force: true })]);
      throw error;
    }
    await Promise.all([
      fsyncDir(contentDir, durable),
      replacesRecord ? undefined : fsyncDir(recordDir, durable),
    ]);
    if (replacing !== undefined)
      await replaceFile(tmpDir, recordFile, `${JSON.stringify(record)}\n`, durable);
    return info;
  }

  return {
    dataDir,

    sessionDir(sessionId) {
      return path.join(sessionsPath, sessionDirName(sessionId));
    },

    async put(sessionId, kind, id, content) {
      validateBlobName('sessionId', sessionId);
      validateBlobKind(kind);
      const ref = blobRef(kind, id);
      // One put at a time per blob in this process, so their record and content renames cannot interleave.
      const key = `${sessionId}\u0000${ref}`;
      const previous = putQueues.get(key) ?? Promise.resolve();
      const next = previous.catch(() => undefined).then(() => put(sessionId, kind, id, content));
      putQueues.set(key, next);
      try {
        return await next;
      } finally {
        if (putQueues.get(key) === next) putQueues.delete(key);
      }
    },

    async get(sessionId, ref, expectedSha256) {
      validateBlobName('sessionId', sessionId);
      const { kind, id } = parseBlobRef(ref);
      const found = await findRecord(sessionId, kind, id);
      const content = found && (await readContent(found.session, found.record));
      if (!content) throw new BlobNotFoundError(sessionId, ref);
      if (content.matches === undefined) {
        throw new BlobIntegrityError(sessionId, ref, found?.record.sha256 ?? '', content.actual);
      }
      if (expectedSha256 !== undefined && content.actual !== expectedSha256) {
        throw new BlobIntegrityError(sessionId, ref, expectedSha256, content.actual);
      }
      return content.data.toString('utf8');
    },

    async stat(sessionId, ref) {
      validateBlobName('sessionId', sessionId);
      const { kind, id } = parseBlobRef(ref);
      const found = await findRecord(sessionId, kind, id);
      return found ? infoOf(found.session, found.record) : undefined;
    },

    async list(sessionId, kind) {
      validateBlobName('sessionId', sessionId);
      if (kind !== undefined) validateBlobKind(kind);
      const infos = new Map<string, BlobInfo>();
      for (const session of await sessionsToRead(sessionId)) {
        for (const each of kind === undefined ? BLOB_KINDS : [kind]) {
          for (const record of await recordsOf(session, each)) {
            const ref = blobRef(record.kind, record.id);
            if (infos.has(ref)) continue;
            const info = await infoOf(session, record);
            if (info) infos.set(ref, info);
          }
        }
      }
      return [...infos.values()].sort((a, b) => (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
    },

    async delete(sessionId, ref) {
      validateBlobName('sessionId', sessionId);
      const { kind, id } = parseBlobRef(ref);
      let deleted = false;
      for (const session of await sessionsToRead(sessionId)) {
        const record = await readRecord(session, kind, id);
        if (!record) continue;
        const content = await resolveInside(session, contentPath(kind, id));
        // The record first: a crash in between leaves an unrecorded file, which no read or list returns.
        await fs.rm(path.join(session.dir, recordPath(kind, id)), { force: true });
        if (content !== undefined) {
          await fs.rm(path.join(session.dir, contentPath(kind, id)), { force: true });
          deleted = true;
        }
      }
      return deleted;
    },

    async deleteSession(sessionId) {
      validateBlobName('sessionId', sessionId);
      for (const kind of BLOB_KINDS) writeDirs.delete(`${sessionId}\u0000${kind}`);
      const refs = new Set<string>();
      for (const session of await sessionsToRead(sessionId)) {
        for (const kind of BLOB_KINDS) {
          // Planted links inside are not followed to count, and are removed with the rest.
          const records = await recordsOf(session, kind).catch(() => [] as BlobRecord[]);
          for (const record of records) refs.add(blobRef(record.kind, record.id));
        }
        // Out of sight in one rename, then removed; rm unlinks symlinks inside without following them.
        const root = path.dirname(session.dir);
        const trash = path.join(root, `${TRASH_PREFIX}${randomUUID()}`);
        await fs.rename(session.dir, trash);
        await fs.rm(trash, { recursive: true, force: true });
      }
      return refs.size;
    },

    async close() {},
  };
}
