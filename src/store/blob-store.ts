/**
 * Where offloaded content lives: large tool results (`large_tool_results/<id>`, tiancai/deepagents) and
 * summarized transcripts (`conversation_history/<session>.md`, deepagents), each under its session's own
 * namespace and nowhere else. A ref is the blob's path relative to that namespace, so it only ever means
 * something inside the session that asks: offloaded content is readable only by the session that owns it.
 *
 * Names are refused, not repaired, when they could escape (rules and `blobRef`/`sanitizeBlobId` in
 * `blob-store-ids.ts`, errors in `blob-store-errors.ts`); content is text and is checked against its
 * sha256 on every read.
 */

export type BlobKind = 'large_tool_results' | 'conversation_history';

export const BLOB_KINDS: readonly BlobKind[] = ['large_tool_results', 'conversation_history'];

export interface BlobInfo {
  /** `<kind>/<id>`: what pointers, edits and summaries name. */
  ref: string;
  kind: BlobKind;
  id: string;
  /** Hex sha256 of the content as UTF-8. */
  sha256: string;
  /** UTF-8 bytes. */
  bytes: number;
}

export interface BlobStore {
  /**
   * Stores `content` as `<kind>/<id>` in the session, replacing what was there (a transcript offload is
   * rewritten as the summary grows). Throws `InvalidBlobIdError` for an unsafe session id, kind or id.
   */
  put(sessionId: string, kind: BlobKind, id: string, content: string): Promise<BlobInfo>;
  /**
   * The blob's content. Throws `BlobNotFoundError` when this session has no such blob (whoever else
   * does), `InvalidBlobIdError` for a malformed ref, and `BlobIntegrityError` when the content no longer
   * hashes to its recorded sha256 or to `expectedSha256` (e.g. the checksum an evict edit recorded).
   */
  get(sessionId: string, ref: string, expectedSha256?: string): Promise<string>;
  /** The blob's metadata without reading it, or undefined. */
  stat(sessionId: string, ref: string): Promise<BlobInfo | undefined>;
  /** The session's blobs, optionally of one kind, ordered by ref. */
  list(sessionId: string, kind?: BlobKind): Promise<BlobInfo[]>;
  /** Whether there was a blob to delete. */
  delete(sessionId: string, ref: string): Promise<boolean>;
  /** Deletes every blob of the session; returns how many there were. */
  deleteSession(sessionId: string): Promise<number>;
  close(): Promise<void>;
}
