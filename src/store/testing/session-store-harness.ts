import type { SessionStore } from '../session-store.ts';

/** How the shared session-store suite gets databases to test: one per test, each opened by handles. */

/** One database for one test: a fresh, empty file, schema or map. */
export interface SessionDatabase {
  /** Opens a new handle (connection, pool) on this database; each handle is closed by the test. */
  open(): Promise<SessionStore>;
  /** Whether what was written survives closing every handle and opening a new one. */
  persistent: boolean;
  /** Durable stores: damage the database as a disk fault, a hand edit or a newer ctxkit would. */
  tamper?: {
    setMessageBody(sessionId: string, seq: number, body: string): Promise<void>;
    setEditBody(sessionId: string, position: number, body: string): Promise<void>;
    /** Writes `text` as the session's stored policy override (`ctxkit_sessions.policy_override`). */
    setPolicyOverride(sessionId: string, text: string): Promise<void>;
    /** Writes `text` as the session's stored last request (`ctxkit_sessions.last_request`). */
    setLastRequest(sessionId: string, text: string): Promise<void>;
    setSchemaVersion(version: number): Promise<void>;
  };
  dispose(): Promise<void>;
}

export interface SessionStoreHarness {
  fresh(): Promise<SessionDatabase>;
  /**
   * Its databases outlive their handles and can be damaged by hand (`persistent` and `tamper` set): the
   * durability tests are registered for it. A store that is its own database has none to run.
   */
  durable?: boolean;
}
