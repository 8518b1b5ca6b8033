import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeBlobStoreConformance, HOSTILE_IDS } from './blob-store.conformance.ts';
import { blobFileName, parseBlobRef, sessionDirName } from './blob-store-ids.ts';
import { createFsBlobStore, type FsBlobStore } from './fs-blob-store.ts';

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const makeTempDir = (): Promise<string> => fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-fs-blob-'));
const exists = (file: string): Promise<boolean> =>
  fs.lstat(file).then(
    () => true,
    () => false,
  );

describeBlobStoreConformance('filesystem', async () => {
  const dataDir = await makeTempDir();
  const store = createFsBlobStore({ dataDir });
  return {
    store,
    tamper: async (sessionId, ref, content) => {
      const { kind, id } = parseBlobRef(ref);
      await fs.writeFile(path.join(store.sessionDir(sessionId), kind, blobFileName(id)), content);
    },
    cleanup: () => fs.rm(dataDir, { recursive: true, force: true }),
  };
});

describe('filesystem blob store', () => {
  let root: string;
  let dataDir: string;
  let outside: string;
  let store: FsBlobStore;
  const session = (id: string): string => path.join(dataDir, 'sessions', id);
  /** Copies a valid record so the only thing wrong with a planted blob is where its content lives. */
  const plantRecord = async (sessionId: string, id: string, content: string): Promise<void> => {
    const dir = path.join(session(sessionId), '.blobs', 'large_tool_results');
    await fs.mkdir(dir, { recursive: true });
    const record = {
      version: 1,
      sessionId,
      kind: 'large_tool_results',
      id,
      sha256: sha256(content),
      bytes: Buffer.byteLength(content),
    };
    await fs.writeFile(path.join(dir, `${id}.json`), JSON.stringify(record));
  };

  beforeEach(async () => {
    root = await makeTempDir();
    dataDir = path.join(root, 'data');
    outside = path.join(root, 'outside');
    await fs.mkdir(outside);
    await fs.writeFile(path.join(outside, 'secret'), 'outside secret');
    store = createFsBlobStore({ dataDir });
  });

  afterEach(async () => {
    await store.close();
    await fs.rm(root, { recursive: true, force: true });
  });

  describe('layout on disk', () => {
    it("keeps content, exactly, under the session's own directory, with its record beside", async () => {
      const content = 'line 1\nline 2 — ü\n';
      await store.put('s1', 'large_tool_results', 'call_1', content);
      await store.put('s1', 'conversation_history', 's1.md', '# history\n');
      expect(await fs.readFile(path.join(session('s1'), 'large_tool_results', 'call_1'), 'utf8')).toBe(
        content,
      );
      expect(await fs.readFile(path.join(session('s1'), 'conversation_history', 's1.md'), 'utf8')).toBe(
        '# history\n',
      );
      const record = JSON.parse(
        await fs.readFile(path.join(session('s1'), '.blobs', 'large_tool_results', 'call_1.json'), 'utf8'),
      );
      expect(record).toEqual({
        version: 1,
        sessionId: 's1',
        kind: 'large_tool_results',
        id: 'call_1',
        sha256: sha256(content),
        bytes: Buffer.byteLength(content),
      });
      expect(JSON.parse(await fs.readFile(path.join(session('s1'), '.session.json'), 'utf8'))).toEqual({
        version: 1,
        sessionId: 's1',
      });
      expect(store.sessionDir('s1')).toBe(session('s1'));
    });

    it('leaves no temporary files behind and makes blobs readable by their owner only', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await store.put('s1', 'large_tool_results', 'a', 'A again');
      expect(await fs.readdir(path.join(session('s1'), '.tmp'))).toEqual([]);
      const mode = (await fs.stat(path.join(session('s1'), 'large_tool_results', 'a'))).mode & 0o777;
      expect(mode).toBe(0o600);
    });

    it('reads what another instance over the same directory wrote', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'shared');
      const other = createFsBlobStore({ dataDir });
      expect(await other.get('s1', 'large_tool_results/a', sha256('shared'))).toBe('shared');
    });

    it('serializes concurrent puts of one blob so its record always matches its content', async () => {
      const contents = Array.from({ length: 20 }, (_, i) => `version ${i} `.repeat(1000));
      await Promise.all(contents.map((content) => store.put('s1', 'conversation_history', 's1.md', content)));
      const read = await store.get('s1', 'conversation_history/s1.md');
      expect(contents).toContain(read);
      expect((await store.stat('s1', 'conversation_history/s1.md'))?.sha256).toBe(sha256(read));
    });
  });

  describe('crash safety', () => {
    it('returns the old content, whole, when a crash left the new record naming what it replaces', async () => {
      await store.put('s1', 'conversation_history', 's1.md', 'old history');
      // The state between the record's rename and the content's: new record, old content, temp file.
      const recordFile = path.join(session('s1'), '.blobs', 'conversation_history', 's1.md.json');
      const record = JSON.parse(await fs.readFile(recordFile, 'utf8'));
      await fs.writeFile(
        recordFile,
        JSON.stringify({
          ...record,
          sha256: sha256('new history'),
          bytes: 11,
          replacing: { sha256: record.sha256, bytes: record.bytes },
        }),
      );
      await fs.writeFile(path.join(session('s1'), '.tmp', 'half-written'), 'new hist');
      expect(await store.get('s1', 'conversation_history/s1.md')).toBe('old history');
      expect(await store.stat('s1', 'conversation_history/s1.md')).toMatchObject({
        sha256: sha256('old history'),
        bytes: 11,
      });
      expect(await store.list('s1')).toHaveLength(1);
      // The state after the content's rename, before the record is rewritten: the new content reads.
      await fs.writeFile(path.join(session('s1'), 'conversation_history', 's1.md'), 'new history');
      expect(await store.get('s1', 'conversation_history/s1.md')).toBe('new history');
      // And a later put settles it.
      await store.put('s1', 'conversation_history', 's1.md', 'newest');
      expect(await store.get('s1', 'conversation_history/s1.md', sha256('newest'))).toBe('newest');
    });

    it('does not see a first put that crashed before its content was renamed into place', async () => {
      await store.put('s1', 'large_tool_results', 'other', 'x');
      await plantRecord('s1', 'pending', 'never landed');
      await expect(store.get('s1', 'large_tool_results/pending')).rejects.toMatchObject({
        code: 'blob_not_found',
      });
      expect((await store.list('s1')).map((info) => info.id)).toEqual(['other']);
      // Nor a content file without a record (a delete that crashed after removing the record).
      await fs.writeFile(path.join(session('s1'), 'large_tool_results', 'orphan'), 'orphan');
      expect(await store.stat('s1', 'large_tool_results/orphan')).toBeUndefined();
    });

    it('refuses a record that is not valid as a typed error', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.writeFile(path.join(session('s1'), '.blobs', 'large_tool_results', 'a.json'), '{"version":1');
      await expect(store.get('s1', 'large_tool_results/a')).rejects.toMatchObject({
        code: 'blob_record_invalid',
      });
      await fs.writeFile(
        path.join(session('s1'), '.blobs', 'large_tool_results', 'a.json'),
        JSON.stringify({ version: 1, sessionId: 's1', kind: 'large_tool_results', id: 'a', sha256: 'x' }),
      );
      await expect(store.stat('s1', 'large_tool_results/a')).rejects.toMatchObject({
        code: 'blob_record_invalid',
      });
    });
  });

  describe('symlinks and traversal', () => {
    it('refuses a blob that is a symlink to a file outside the data directory', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.symlink(path.join(outside, 'secret'), path.join(session('s1'), 'large_tool_results', 'leak'));
      await plantRecord('s1', 'leak', 'outside secret');
      await expect(store.get('s1', 'large_tool_results/leak')).rejects.toMatchObject({
        code: 'blob_path_escape',
        name: 'BlobPathEscapeError',
      });
      await expect(store.stat('s1', 'large_tool_results/leak')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      await expect(store.list('s1')).rejects.toMatchObject({ code: 'blob_path_escape' });
      await expect(store.put('s1', 'large_tool_results', 'leak', 'overwrite')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      await expect(store.delete('s1', 'large_tool_results/leak')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await fs.readFile(path.join(outside, 'secret'), 'utf8')).toBe('outside secret');
    });

    it("refuses a blob that is a symlink to another session's blob", async () => {
      await store.put('s2', 'large_tool_results', 'secret', 'owned by s2');
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.symlink(
        path.join('..', '..', 's2', 'large_tool_results', 'secret'),
        path.join(session('s1'), 'large_tool_results', 'stolen'),
      );
      await plantRecord('s1', 'stolen', 'owned by s2');
      await expect(store.get('s1', 'large_tool_results/stolen')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      // Also through an absolute link, and through a link to s2's record.
      await fs.symlink(
        path.join(session('s2'), 'large_tool_results', 'secret'),
        path.join(session('s1'), 'large_tool_results', 'stolen2'),
      );
      await plantRecord('s1', 'stolen2', 'owned by s2');
      await expect(store.get('s1', 'large_tool_results/stolen2')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      await fs.symlink(
        path.join(session('s2'), '.blobs', 'large_tool_results', 'secret.json'),
        path.join(session('s1'), '.blobs', 'large_tool_results', 'secret.json'),
      );
      await expect(store.get('s1', 'large_tool_results/secret')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await store.get('s2', 'large_tool_results/secret')).toBe('owned by s2');
    });

    it('refuses a kind directory that is a symlink into another session, and writes nothing there', async () => {
      await store.put('s2', 'large_tool_results', 'secret', 'owned by s2');
      await store.put('s1', 'conversation_history', 's1.md', 'H');
      await fs.symlink(
        path.join('..', 's2', 'large_tool_results'),
        path.join(session('s1'), 'large_tool_results'),
      );
      await plantRecord('s1', 'secret', 'owned by s2');
      await expect(store.get('s1', 'large_tool_results/secret')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      await expect(store.put('s1', 'large_tool_results', 'dropped', 'x')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await fs.readdir(path.join(session('s2'), 'large_tool_results'))).toEqual(['secret']);
    });

    it('refuses record and temporary directories that are symlinks outside, writing nothing there', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.rm(path.join(session('s1'), '.tmp'), { recursive: true });
      await fs.symlink(outside, path.join(session('s1'), '.tmp'));
      await expect(store.put('s1', 'large_tool_results', 'b', 'B')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      await store.put('s3', 'large_tool_results', 'a', 'A');
      await fs.rm(path.join(session('s3'), '.blobs'), { recursive: true });
      await fs.symlink(outside, path.join(session('s3'), '.blobs'));
      await expect(store.put('s3', 'large_tool_results', 'b', 'B')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await fs.readdir(outside)).toEqual(['secret']);
    });

    it('re-checks directories it already wrote to: links planted after a put are refused', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await store.put('s2', 'large_tool_results', 'secret', 'owned by s2');
      // The kind directory swapped for a link outside, after this store has written there.
      const kindDir = path.join(session('s1'), 'large_tool_results');
      await fs.rename(kindDir, path.join(root, 'moved-away'));
      await fs.symlink(outside, kindDir);
      await expect(store.put('s1', 'large_tool_results', 'b', 'B')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await fs.readdir(outside)).toEqual(['secret']);
      // The whole session directory swapped for a link to another session's.
      await fs.rename(session('s1'), path.join(root, 's1-moved-away'));
      await fs.symlink('s2', session('s1'));
      await expect(store.put('s1', 'large_tool_results', 'c', 'C')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect((await fs.readdir(path.join(session('s2'), 'large_tool_results'))).sort()).toEqual(['secret']);
    });

    it('writes again after its session directory was deleted and created anew by someone else', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await createFsBlobStore({ dataDir }).deleteSession('s1');
      await store.put('s1', 'large_tool_results', 'b', 'B');
      expect(await store.get('s1', 'large_tool_results/b')).toBe('B');
      await expect(store.get('s1', 'large_tool_results/a')).rejects.toMatchObject({ code: 'blob_not_found' });
      expect(JSON.parse(await fs.readFile(path.join(session('s1'), '.session.json'), 'utf8'))).toEqual({
        version: 1,
        sessionId: 's1',
      });
    });

    it("refuses a session directory that is a symlink, even to another session's directory", async () => {
      await store.put('s2', 'large_tool_results', 'secret', 'owned by s2');
      await fs.symlink('s2', session('evil'));
      await fs.symlink(outside, session('out'));
      for (const id of ['evil', 'out']) {
        await expect(store.get(id, 'large_tool_results/secret')).rejects.toMatchObject({
          code: 'blob_path_escape',
        });
        await expect(store.list(id)).rejects.toMatchObject({ code: 'blob_path_escape' });
        await expect(store.put(id, 'large_tool_results', 'x', 'x')).rejects.toMatchObject({
          code: 'blob_path_escape',
        });
        await expect(store.deleteSession(id)).rejects.toMatchObject({ code: 'blob_path_escape' });
      }
      expect(await store.get('s2', 'large_tool_results/secret')).toBe('owned by s2');
      expect(await fs.readdir(outside)).toEqual(['secret']);
    });

    it('refuses dangling and looping symlinks', async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      const dir = path.join(session('s1'), 'large_tool_results');
      await fs.symlink(path.join(outside, 'not-yet'), path.join(dir, 'dangling'));
      await plantRecord('s1', 'dangling', 'x');
      await expect(store.put('s1', 'large_tool_results', 'dangling', 'x')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
      expect(await exists(path.join(outside, 'not-yet'))).toBe(false);
      await fs.symlink('loop', path.join(dir, 'loop'));
      await plantRecord('s1', 'loop', 'x');
      await expect(store.get('s1', 'large_tool_results/loop')).rejects.toMatchObject({
        code: 'blob_path_escape',
      });
    });

    it("follows a symlink that stays inside the session's own directory", async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.symlink('a', path.join(session('s1'), 'large_tool_results', 'alias'));
      await plantRecord('s1', 'alias', 'A');
      expect(await store.get('s1', 'large_tool_results/alias')).toBe('A');
    });

    it('deletes a session with planted links inside without following them', async () => {
      await store.put('s2', 'large_tool_results', 'secret', 'owned by s2');
      await store.put('s1', 'large_tool_results', 'a', 'A');
      await fs.symlink(outside, path.join(session('s1'), 'large_tool_results', 'dir-link'));
      await fs.symlink(
        path.join(session('s2'), 'large_tool_results'),
        path.join(session('s1'), 'conversation_history'),
      );
      await fs.rm(path.join(session('s1'), '.blobs', 'large_tool_results'), { recursive: true });
      await fs.symlink(
        path.join(session('s2'), '.blobs', 'large_tool_results'),
        path.join(session('s1'), '.blobs', 'large_tool_results'),
      );
      expect(await store.deleteSession('s1')).toBe(0);
      expect(await exists(session('s1'))).toBe(false);
      expect(await fs.readdir(outside)).toEqual(['secret']);
      expect(await store.get('s2', 'large_tool_results/secret')).toBe('owned by s2');
      expect(await fs.readdir(path.join(dataDir, 'sessions'))).toEqual(['s2']);
    });

    it('turns names into file names, so no id reaches outside its session', async () => {
      await expect(store.put('\0', 'large_tool_results', 'x', 'x')).rejects.toMatchObject({
        code: 'invalid_blob_id',
      });
      expect(await exists(dataDir)).toBe(false);
      await store.put('..', 'large_tool_results', '../../../outside/secret', 'mine');
      await expect(
        store.get('s1', `large_tool_results/${path.join(outside, 'secret')}`),
      ).rejects.toMatchObject({ code: 'blob_not_found' });
      expect(await store.get('..', 'large_tool_results/../../../outside/secret')).toBe('mine');
      expect(await fs.readdir(outside)).toEqual(['secret']);
      expect(await fs.readFile(path.join(outside, 'secret'), 'utf8')).toBe('outside secret');
      expect(path.dirname(store.sessionDir('../x'))).toBe(path.join(dataDir, 'sessions'));
    });

    it('gives every id a directory of its own: ASCII, lower case, no leading dot, apart from every other', async () => {
      for (const id of HOSTILE_IDS) await store.put(id, 'large_tool_results', id, id);
      const names = await fs.readdir(path.join(dataDir, 'sessions'));
      expect(names).toHaveLength(HOSTILE_IDS.length);
      expect(new Set(names.map((name) => name.toLowerCase().normalize('NFC'))).size).toBe(HOSTILE_IDS.length);
      for (const name of names) {
        expect(name).toMatch(/^[a-z0-9_~-][a-z0-9._~-]*$/);
        expect(Buffer.byteLength(name)).toBeLessThanOrEqual(200);
      }
      for (const id of HOSTILE_IDS) {
        const dir = store.sessionDir(id);
        expect(dir).toBe(path.join(dataDir, 'sessions', sessionDirName(id)));
        const files = await fs.readdir(path.join(dir, 'large_tool_results'));
        expect(files).toEqual([blobFileName(id)]);
        expect(Buffer.byteLength(blobFileName(id))).toBeLessThanOrEqual(200);
      }
      // Plain lower-case ids keep the directory they always had.
      expect(sessionDirName('s1')).toBe('s1');
      expect(sessionDirName('3f0c2a9e-6b1d-4c51-9d3e-2f1a7b8c9d0e')).toBe(
        '3f0c2a9e-6b1d-4c51-9d3e-2f1a7b8c9d0e',
      );
    });
  });

  describe('names that differ only in case (case-insensitive filesystems)', () => {
    it("never hands one session's directory to a differently-cased session id", async () => {
      await store.put('s1', 'large_tool_results', 'a', 'A');
      // What a case-insensitive filesystem presents for `S1`'s older location: s1's directory.
      await fs.rename(session('s1'), session('S1'));
      await store.put('S1', 'large_tool_results', 'b', 'B');
      expect(store.sessionDir('S1')).not.toBe(session('S1'));
      await expect(store.get('S1', 'large_tool_results/a')).rejects.toMatchObject({ code: 'blob_not_found' });
      expect((await store.list('S1')).map((info) => info.ref)).toEqual(['large_tool_results/b']);
      expect(await store.deleteSession('S1')).toBe(1);
      expect(await exists(session('S1'))).toBe(true);
      expect(await store.get('s1', 'large_tool_results/a').catch(() => 'gone')).toBe('gone');
    });

    it('still reads, lists and deletes what an older version stored under a mixed-case id itself', async () => {
      // An older version kept `Tenant-A`'s blobs in `sessions/Tenant-A`: the same files, under that name.
      await store.put('Tenant-A', 'large_tool_results', 'call_1', 'old result');
      await store.put('Tenant-A', 'conversation_history', 'Tenant-A.md', 'old history');
      await fs.rename(store.sessionDir('Tenant-A'), session('Tenant-A'));
      const reopened = createFsBlobStore({ dataDir });
      expect(await reopened.get('Tenant-A', 'large_tool_results/call_1')).toBe('old result');
      await reopened.put('Tenant-A', 'conversation_history', 'Tenant-A.md', 'new history');
      await reopened.put('Tenant-A', 'large_tool_results', 'call_2', 'new result');
      expect(await reopened.get('Tenant-A', 'conversation_history/Tenant-A.md')).toBe('new history');
      expect((await reopened.list('Tenant-A')).map((info) => info.ref)).toEqual([
        'conversation_history/Tenant-A.md',
        'large_tool_results/call_1',
        'large_tool_results/call_2',
      ]);
      expect(await reopened.stat('Tenant-A', 'large_tool_results/call_1')).toMatchObject({ bytes: 10 });
      await expect(reopened.get('tenant-a', 'large_tool_results/call_1')).rejects.toMatchObject({
        code: 'blob_not_found',
      });
      expect(await reopened.delete('Tenant-A', 'large_tool_results/call_1')).toBe(true);
      expect(await reopened.deleteSession('Tenant-A')).toBe(2);
      expect(await fs.readdir(path.join(dataDir, 'sessions'))).toEqual([]);
    });

    it('never lets one blob id replace or read a differently-cased one', async () => {
      await store.put('s1', 'large_tool_results', 'Call_1', 'upper');
      const dir = session('s1');
      await fs.rename(
        path.join(dir, 'large_tool_results', 'Call_1'),
        path.join(dir, 'large_tool_results', 'call_1'),
      );
      await fs.rename(
        path.join(dir, '.blobs', 'large_tool_results', 'Call_1.json'),
        path.join(dir, '.blobs', 'large_tool_results', 'call_1.json'),
      );
      await expect(store.put('s1', 'large_tool_results', 'call_1', 'lower')).rejects.toMatchObject({
        code: 'blob_name_collision',
      });
      await expect(store.get('s1', 'large_tool_results/call_1')).rejects.toMatchObject({
        code: 'blob_not_found',
      });
      expect(await fs.readFile(path.join(dir, 'large_tool_results', 'call_1'), 'utf8')).toBe('upper');
    });
  });
});
