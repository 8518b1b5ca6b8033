import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { UNSAFE_BLOB_NAMES } from './blob-store.conformance.ts';
import {
  blobFileName,
  blobRef,
  conversationHistoryId,
  legacySessionDirName,
  MAX_BLOB_NAME_LENGTH,
  parseBlobRef,
  sanitizeBlobId,
  sessionDirName,
  validateBlobName,
} from './blob-store-ids.ts';

describe('blob names and refs', () => {
  it('builds and parses refs', () => {
    expect(blobRef('large_tool_results', 'call_1')).toBe('large_tool_results/call_1');
    expect(parseBlobRef('conversation_history/s1.md')).toEqual({ kind: 'conversation_history', id: 's1.md' });
    expect(conversationHistoryId('s1')).toBe('s1.md');
    expect(blobRef('large_tool_results', '../x')).toBe('large_tool_results/../x');
    expect(parseBlobRef('large_tool_results/a/b')).toEqual({ kind: 'large_tool_results', id: 'a/b' });
    expect(() => blobRef('large_tool_results', '')).toThrow(
      expect.objectContaining({ code: 'invalid_blob_id' }),
    );
  });

  it('keeps valid ids as they are and makes any other string a valid, distinct id', () => {
    expect(sanitizeBlobId('toolu_01ABC')).toBe('toolu_01ABC');
    const kimi = sanitizeBlobId('functions.bash:0');
    expect(kimi).toMatch(/^functions\.bash_0-[0-9a-f]{12}$/);
    expect(sanitizeBlobId('functions.bash:0')).toBe(kimi);
    expect(sanitizeBlobId('a/b')).not.toBe(sanitizeBlobId('a_b'));
    for (const unsafe of UNSAFE_BLOB_NAMES)
      expect(() => validateBlobName('id', sanitizeBlobId(unsafe))).not.toThrow();
  });

  it('sanitizes every string to a valid id, injectively in practice', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ maxLength: 300 }), (a, b) => {
        const id = sanitizeBlobId(a);
        expect(() => validateBlobName('id', id)).not.toThrow();
        expect(id.length).toBeLessThanOrEqual(MAX_BLOB_NAME_LENGTH);
        if (a !== b) expect(sanitizeBlobId(b)).not.toBe(id);
      }),
    );
  });

  it('maps every session id to a safe directory name of its own, case- and normalization-proof', () => {
    const wellFormed = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 300 })
      .filter((id) => !id.includes('\0'));
    fc.assert(
      fc.property(wellFormed, wellFormed, (a, b) => {
        const name = sessionDirName(a);
        expect(name).toMatch(/^[a-z0-9_~-][a-z0-9._~-]*$/);
        expect(name.length).toBeLessThanOrEqual(MAX_BLOB_NAME_LENGTH);
        if (a !== b) expect(sessionDirName(b).toLowerCase()).not.toBe(name.toLowerCase());
        const file = blobFileName(a);
        expect(file).toMatch(/^[A-Za-z0-9_~-][A-Za-z0-9._~-]*$/);
        if (a !== b) expect(blobFileName(b)).not.toBe(file);
      }),
    );
    expect(sessionDirName('s1')).toBe('s1');
    expect(sessionDirName('S1')).toMatch(/^s1~[0-9a-f]{32}$/);
    expect(sessionDirName('caf\u00e9')).not.toBe(sessionDirName('cafe\u0301'));
    expect(legacySessionDirName('S1')).toBe('S1');
    expect(legacySessionDirName('s1')).toBeUndefined();
    expect(legacySessionDirName('a b')).toBeUndefined();
    expect(blobFileName('toolu_01ABC')).toBe('toolu_01ABC');
  });
});
