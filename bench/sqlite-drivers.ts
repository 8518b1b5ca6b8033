/**
 * SQLite drivers side by side: better-sqlite3 (what the session store runs on) and Node's built-in
 * `node:sqlite` (DatabaseSync), on the store's schema (its migrations, applied as it applies them), its
 * pragmas (busy_timeout, WAL, synchronous=normal, foreign_keys) and its statements, in one process, each
 * driver on a database file of its own in a temp dir. Per operation: p50 and p99 of one call, and the
 * throughput; then what starting a process costs each driver (its import, its first open, the RSS after
 * loading a 10k-message session), measured in fresh child processes of plain `node`.
 *
 *   npm run bench:sqlite-drivers   (or: npx tsx bench/sqlite-drivers.ts [--scale 0.5] [--children 8] [--cache-size 16000])
 *
 * The operations: a turn's append (one message, one BEGIN IMMEDIATE transaction that reads the session's
 * positions, moves them on and inserts, as `appendMessages` does), an edit's append, a 100-message batch;
 * loading a whole session (`load`) of 1k and of 10k messages and a resume's read (`loadRecent`: the ids
 * aggregate, the edits, the last 1k bodies); point reads; opening the store on an existing file
 * (pragmas, the migration check, preparing every statement) and closing it. Rows are encoded before the
 * clock starts: encoding is the store's work, the same whichever driver runs. The drivers take turns in
 * ABBA rounds, so drift on a shared machine (another job starting) lands on both. `--scale` multiplies
 * every count; the default runs in about 20 s. The drivers' builds differ in their default page cache
 * (better-sqlite3 16 MB, node:sqlite 2 MB) and the store sets none: `--cache-size KiB` gives both one.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Database from 'better-sqlite3';
import type { Edit } from '../src/core/edit.ts';
import type { Message } from '../src/core/message.ts';
import type { PositionedWrite, StoredTokenCount } from '../src/store/session-store.ts';
import {
  CREATE_MIGRATIONS_TABLE,
  MIGRATIONS_TABLE,
  pendingMigrations,
  SESSION_STORE_SCHEMA_VERSION,
  statementsFor,
  TABLE_PREFIX,
} from '../src/store/session-store-migrations.ts';
import { encodeWriteRows, type WriteRows } from '../src/store/session-store-rows.ts';
import { DEFAULT_SQLITE_BUSY_TIMEOUT_MS } from '../src/store/sqlite-session-store.ts';
import { parseFlags } from './parse-flags.ts';
import { median, Progress, percentile, printTable, readCorpus } from './token-bench-support.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const T = TABLE_PREFIX;
const BATCH = 100;
const RECENT_BODIES = 1_000;
/** Every 50th edit stands for a summary or cut: a resume reads those whatever it starts at. */
const CUT_EVERY = 50;
const EDITS_PER_MESSAGE = 0.05;

type SqlValue = string | number | null;

interface Statement {
  run(...params: SqlValue[]): unknown;
  get(...params: SqlValue[]): unknown;
  all(...params: SqlValue[]): unknown[];
}

interface Transaction<A extends unknown[], R> {
  immediate(...args: A): R;
  deferred(...args: A): R;
}

/** What the store asks of its driver, so one workload runs on both. */
interface Connection {
  prepare(sql: string, rows: 'objects' | 'arrays'): Statement;
  exec(sql: string): void;
  pragma(text: string): void;
  /** The first column of `PRAGMA name`'s first row. */
  setting(name: string): unknown;
  transaction<A extends unknown[], R>(work: (...args: A) => R): Transaction<A, R>;
  close(): void;
}

interface Driver {
  name: string;
  open(file: string, timeoutMs: number): Connection;
}

const betterSqlite3: Driver = {
  name: 'better-sqlite3',
  open(file, timeoutMs) {
    const db = new Database(file, { timeout: timeoutMs });
    return {
      prepare: (sql, rows) => {
        const statement = db.prepare<SqlValue[]>(sql);
        return rows === 'arrays' ? statement.raw() : statement;
      },
      exec: (sql) => void db.exec(sql),
      pragma: (text) => void db.pragma(text),
      setting: (name) => db.pragma(name, { simple: true }),
      transaction: <A extends unknown[], R>(work: (...args: A) => R): Transaction<A, R> => {
        const wrapped = db.transaction(work);
        return {
          immediate: (...args) => wrapped.immediate(...args),
          deferred: (...args) => wrapped.deferred(...args),
        };
      },
      close: () => db.close(),
    };
  },
};

/**
 * node:sqlite has no transaction helper: this is the one a port of the store would write, prepared
 * BEGIN/COMMIT statements around the work (what better-sqlite3's helper does in JS too).
 */
const nodeSqlite: Driver = {
  name: 'node:sqlite',
  open(file, timeoutMs) {
    const db = new DatabaseSync(file, { timeout: timeoutMs });
    let control: Record<'immediate' | 'deferred' | 'commit' | 'rollback', Statement> | undefined;
    const controls = () => {
      control ??= {
        immediate: db.prepare('BEGIN IMMEDIATE'),
        deferred: db.prepare('BEGIN DEFERRED'),
        commit: db.prepare('COMMIT'),
        rollback: db.prepare('ROLLBACK'),
      };
      return control;
    };
    const within =
      <A extends unknown[], R>(work: (...args: A) => R, begin: 'immediate' | 'deferred') =>
      (...args: A): R => {
        const { commit, rollback, [begin]: start } = controls();
        start.run();
        try {
          const result = work(...args);
          commit.run();
          return result;
        } catch (error) {
          if (db.isTransaction) rollback.run();
          throw error;
        }
      };
    return {
      prepare: (sql, rows) => {
        const statement = db.prepare(sql);
        if (rows === 'arrays') statement.setReturnArrays(true);
        return statement;
      },
      exec: (sql) => db.exec(sql),
      pragma: (text) => void db.prepare(`PRAGMA ${text}`).all(),
      setting: (name) => {
        const row = db.prepare(`PRAGMA ${name}`).get();
        return row === undefined ? undefined : Object.values(row)[0];
      },
      transaction: (work) => ({ immediate: within(work, 'immediate'), deferred: within(work, 'deferred') }),
      close: () => db.close(),
    };
  },
};

const DRIVERS = [betterSqlite3, nodeSqlite] as const;

/** The store's statements, as sqlite-session-store.ts prepares them on open (its cold start prepares all). */
const STORE_STATEMENTS = {
  positions: [`SELECT message_count, edit_count FROM ${T}sessions WHERE id = ?`, 'objects'],
  session: [
    `SELECT id, created_at, updated_at, message_count, edit_count FROM ${T}sessions WHERE id = ?`,
    'objects',
  ],
  insertSession: [
    `INSERT INTO ${T}sessions (id, created_at, updated_at, message_count, edit_count) VALUES (?, ?, ?, ?, ?)`,
    'objects',
  ],
  updateSession: [
    `UPDATE ${T}sessions SET message_count = ?, edit_count = ?, updated_at = ? WHERE id = ?`,
    'objects',
  ],
  insertMessage: [
    `INSERT INTO ${T}messages (session_id, seq, body, message_id, content_id, tokens) VALUES (?, ?, ?, ?, ?, ?)`,
    'objects',
  ],
  insertEdit: [`INSERT INTO ${T}edits (session_id, position, body, reach) VALUES (?, ?, ?, ?)`, 'objects'],
  messages: [`SELECT seq, body FROM ${T}messages WHERE session_id = ? ORDER BY seq`, 'arrays'],
  messagesFrom: [
    `SELECT seq, body, tokens FROM ${T}messages WHERE session_id = ? AND seq >= ? ORDER BY seq`,
    'arrays',
  ],
  edits: [`SELECT position, body FROM ${T}edits WHERE session_id = ? ORDER BY position`, 'arrays'],
  messageKeys: [
    `SELECT count(*), min(seq), max(seq), json_group_array(message_id ORDER BY seq), json_group_array(content_id ORDER BY seq) FROM ${T}messages WHERE session_id = ?`,
    'arrays',
  ],
  alwaysNeededEdits: [
    `SELECT position, body FROM ${T}edits WHERE session_id = ? AND reach IS NULL ORDER BY position`,
    'arrays',
  ],
  editsReaching: [
    `SELECT position, body FROM ${T}edits WHERE session_id = ? AND reach >= ? ORDER BY position`,
    'arrays',
  ],
  list: [
    `SELECT id, created_at, updated_at, message_count, edit_count FROM ${T}sessions WHERE updated_at < ? ORDER BY updated_at, id LIMIT ?`,
    'objects',
  ],
  deleteMessages: [`DELETE FROM ${T}messages WHERE session_id = ?`, 'objects'],
  deleteEdits: [`DELETE FROM ${T}edits WHERE session_id = ?`, 'objects'],
  deleteSession: [`DELETE FROM ${T}sessions WHERE id = ?`, 'objects'],
  policyOverride: [`SELECT policy_override, policy_updated_at FROM ${T}sessions WHERE id = ?`, 'arrays'],
  updatePolicyOverride: [
    `UPDATE ${T}sessions SET policy_override = ?, policy_updated_at = ?, updated_at = ? WHERE id = ?`,
    'objects',
  ],
  insertWithPolicyOverride: [
    `INSERT INTO ${T}sessions (id, created_at, updated_at, message_count, edit_count, policy_override, policy_updated_at) VALUES (?, ?, ?, 0, 0, ?, ?)`,
    'objects',
  ],
  lastRequest: [`SELECT last_request FROM ${T}sessions WHERE id = ?`, 'arrays'],
  updateLastRequest: [`UPDATE ${T}sessions SET last_request = ? WHERE id = ?`, 'objects'],
} as const satisfies Record<string, readonly [string, 'objects' | 'arrays']>;

/** Not one of the store's: a single message body by key, the text-returning point read. */
const MESSAGE_BY_KEY = `SELECT body FROM ${T}messages WHERE session_id = ? AND seq = ?`;

interface PositionsRow {
  message_count: number;
  edit_count: number;
}

/** The store on one driver: opened, migrated and prepared as createSqliteSessionStore does it. */
class BenchStore {
  readonly db: Connection;
  readonly statements: Record<keyof typeof STORE_STATEMENTS, Statement>;
  readonly messageByKey: Statement;
  readonly #write: Transaction<[string, number, number, WriteRows, number], void>;
  readonly #load: Transaction<[string], unknown>;
  readonly #loadRecent: Transaction<[string, number], unknown>;

  /** `cacheKib`: a page cache set on both drivers alike; unset, each keeps its build's default, as the store does. */
  constructor(driver: Driver, file: string, cacheKib?: number) {
    const db = driver.open(file, DEFAULT_SQLITE_BUSY_TIMEOUT_MS);
    this.db = db;
    db.pragma(`busy_timeout = ${DEFAULT_SQLITE_BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = normal');
    db.pragma('foreign_keys = ON');
    if (cacheKib !== undefined) db.pragma(`cache_size = -${cacheKib}`);
    db.transaction(() => {
      db.exec(CREATE_MIGRATIONS_TABLE);
      const row = db.prepare(`SELECT MAX(version) AS version FROM ${MIGRATIONS_TABLE}`, 'objects').get() as {
        version: number | null;
      };
      const current = row.version ?? 0;
      if (current > SESSION_STORE_SCHEMA_VERSION) throw new Error(`${file}: schema ${current} is newer`);
      const record = db.prepare(
        `INSERT INTO ${MIGRATIONS_TABLE} (version, name, applied_at) VALUES (?, ?, ?)`,
        'objects',
      );
      for (const migration of pendingMigrations(current)) {
        for (const statement of statementsFor(migration, 'sqlite')) db.exec(statement);
        record.run(migration.version, migration.name, Date.now());
      }
    }).immediate();
    const entries = Object.entries(STORE_STATEMENTS).map(([name, [sql, rows]]) => [
      name,
      db.prepare(sql, rows),
    ]);
    this.statements = Object.fromEntries(entries) as Record<keyof typeof STORE_STATEMENTS, Statement>;
    this.messageByKey = db.prepare(MESSAGE_BY_KEY, 'arrays');
    const s = this.statements;

    this.#write = db.transaction(
      (sessionId: string, expectedSeq: number, expectedEdits: number, rows: WriteRows, at: number) => {
        const existing = s.positions.get(sessionId) as PositionsRow | undefined;
        const messages = existing?.message_count ?? 0;
        const edits = existing?.edit_count ?? 0;
        if (messages !== expectedSeq || edits !== expectedEdits)
          throw new Error(`${sessionId}: at ${messages}/${edits}, expected ${expectedSeq}/${expectedEdits}`);
        const next = [messages + rows.messages.length, edits + rows.edits.length] as const;
        if (existing) s.updateSession.run(next[0], next[1], at, sessionId);
        else s.insertSession.run(sessionId, at, at, next[0], next[1]);
        rows.messages.forEach((body, offset) => {
          s.insertMessage.run(
            sessionId,
            messages + offset,
            body,
            rows.messageIds[offset] ?? null,
            rows.contentIds[offset] ?? null,
            rows.tokens[offset] ?? null,
          );
        });
        rows.edits.forEach((body, offset) => {
          s.insertEdit.run(sessionId, edits + offset, body, rows.editReach[offset] ?? null);
        });
      },
    );
    this.#load = db.transaction((sessionId: string) => {
      const row = s.session.get(sessionId);
      if (row === undefined) return undefined;
      return { row, messages: s.messages.all(sessionId), edits: s.edits.all(sessionId) };
    });
    this.#loadRecent = db.transaction((sessionId: string, logStart: number) => {
      const row = s.session.get(sessionId);
      if (row === undefined) return undefined;
      return {
        row,
        keys: s.messageKeys.get(sessionId),
        always: s.alwaysNeededEdits.all(sessionId),
        reaching: s.editsReaching.all(sessionId, logStart),
        recent: s.messagesFrom.all(sessionId, logStart),
      };
    });
  }

  write(sessionId: string, expectedSeq: number, expectedEdits: number, rows: WriteRows): void {
    this.#write.immediate(sessionId, expectedSeq, expectedEdits, rows, Date.now());
  }

  load(sessionId: string, messages: number): void {
    const read = this.#load.deferred(sessionId) as { messages: unknown[] } | undefined;
    if (read?.messages.length !== messages) throw new Error(`${sessionId}: loaded ${read?.messages.length}`);
  }

  loadRecent(sessionId: string, logStart: number, bodies: number): void {
    const read = this.#loadRecent.deferred(sessionId, logStart) as { recent: unknown[] } | undefined;
    if (read?.recent.length !== bodies) throw new Error(`${sessionId}: read ${read?.recent.length} bodies`);
  }

  close(): void {
    this.db.close();
  }
}

/** One append: its rows and the positions the writer expects. */
interface Write {
  rows: WriteRows;
  seq: number;
  edits: number;
}

/** Session rows, encoded once by the store's own encoder and shared by both drivers. */
interface Workload {
  turns: Write[];
  edits: Write[];
  batches: Write[];
  /** The sessions loaded, each written as 100-message batches with its edits. */
  loadable: Map<string, { messages: number; writes: Write[] }>;
  bodyChars: number;
}

const tokenCount = (seq: number): StoredTokenCount => ({
  key: 'o200k:ctxkit-v1',
  breakdown: {
    text: 40 + (seq % 900),
    reasoning: 0,
    toolCalls: 12,
    toolResults: 0,
    media: 0,
    overhead: 4,
    total: 56 + (seq % 900),
  },
});

function messagesFrom(corpus: readonly Message[], from: number, count: number): Message[] {
  return Array.from({ length: count }, (_, offset) => {
    const seq = from + offset;
    const source = corpus[seq % corpus.length] as Message;
    return { ...source, id: `m${seq}`, seq };
  });
}

/** A truncated old tool result: the edit ctxkit writes most. */
function truncation(position: number, target: number): Edit {
  return {
    id: `e${position}`,
    at: 1_700_000_000_000 + position,
    layer: 'truncate-old',
    reason: 'old_result_limit',
    tokensBefore: 90_000,
    tokensAfter: 89_400,
    type: 'truncate-result',
    target,
    content: `${'head of the tool output '.repeat(12)}\n[… 4,000 characters cut …]\n${'tail '.repeat(40)}`,
    originalChars: 4_600,
  };
}

function encode(
  sessionId: string,
  messages: readonly Message[],
  edits: readonly Edit[],
  seq: number,
  editCount: number,
): WriteRows {
  const write: PositionedWrite = {
    messages,
    contentIds: messages.map((message) => `c${message.seq}`),
    tokens: messages.map((message) => tokenCount(message.seq)),
    edits,
    expectedSeq: seq,
    expectedEditCount: editCount,
  };
  return encodeWriteRows(sessionId, write);
}

/** `messages` messages in 100-message writes, with an edit per 20 messages in writes of their own. */
function sessionWrites(corpus: readonly Message[], sessionId: string, messages: number): Write[] {
  const writes: Write[] = [];
  let edits = 0;
  for (let seq = 0; seq < messages; seq += BATCH) {
    const count = Math.min(BATCH, messages - seq);
    writes.push({ rows: encode(sessionId, messagesFrom(corpus, seq, count), [], seq, edits), seq, edits });
    const due = Math.floor((seq + count) * EDITS_PER_MESSAGE) - edits;
    if (due <= 0) continue;
    const batch = Array.from({ length: due }, (_, offset) => truncation(edits + offset, seq + offset * 20));
    const rows = encode(sessionId, [], batch, seq + count, edits);
    rows.editReach = rows.editReach.map((reach, offset) =>
      (edits + offset) % CUT_EVERY === 0 ? null : reach,
    );
    writes.push({ rows, seq: seq + count, edits });
    edits += due;
  }
  return writes;
}

function buildWorkload(corpus: readonly Message[], counts: Counts): Workload {
  const turns = Array.from({ length: counts.turns }, (_, seq) => ({
    rows: encode('turns', messagesFrom(corpus, seq, 1), [], seq, 0),
    seq,
    edits: 0,
  }));
  const edits = Array.from({ length: counts.edits }, (_, position) => ({
    rows: encode('turns', [], [truncation(position, position % counts.turns)], counts.turns, position),
    seq: counts.turns,
    edits: position,
  }));
  const batches = Array.from({ length: counts.batches }, (_, index) => ({
    rows: encode('batched', messagesFrom(corpus, index * BATCH, BATCH), [], index * BATCH, 0),
    seq: index * BATCH,
    edits: 0,
  }));
  const loadable = new Map(
    [1_000, 10_000].map((messages) => {
      const id = `s${messages / 1_000}k`;
      return [id, { messages, writes: sessionWrites(corpus, id, messages) }] as const;
    }),
  );
  const tenK = loadable.get('s10k')?.writes ?? [];
  const bodyChars = tenK.flatMap((write) => write.rows.messages).reduce((sum, body) => sum + body.length, 0);
  return { turns, edits, batches, loadable, bodyChars };
}

interface Counts {
  turns: number;
  edits: number;
  batches: number;
  load1k: number;
  load10k: number;
  recent: number;
  pointReads: number;
  opens: number;
}

const BASE_COUNTS: Counts = {
  turns: 2_000,
  edits: 1_000,
  batches: 200,
  load1k: 150,
  load10k: 50,
  recent: 60,
  pointReads: 20_000,
  opens: 100,
};

/** One measured operation: `run(i)` is call number i (0-based, per driver) on that driver's store. */
interface Operation {
  name: string;
  /** What one call moves, for the throughput column. */
  unit: string;
  perCall: number;
  calls: number;
  /** Calls that allocate megabytes: the young generation is emptied before each, untimed. */
  settle?: boolean;
  start(driver: Driver, store: BenchStore, file: string): (call: number) => void;
}

interface Measured {
  operation: string;
  driver: string;
  samples: number[];
  /** The process's CPU time over the calls, ms: what a busy machine's descheduling does not inflate. */
  cpuMs: number;
  unit: string;
  perCall: number;
}

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options: { type: 'minor' | 'major' }) => void;

/**
 * A scavenge, so a load does not pay for the nursery the call before it (perhaps the other driver's)
 * filled. Major collections stay in: a load that promotes megabytes of rows causes them itself.
 */
function collectYoung(): void {
  gc({ type: 'minor' });
}

/**
 * ABBA: half the first driver's calls, half the second's, the rest of the second's, the rest of the
 * first's, so a slowdown partway through (a neighbour's job) is shared rather than pinned on one.
 */
function measure(
  operation: Operation,
  stores: ReadonlyMap<Driver, { store: BenchStore; file: string }>,
): Measured[] {
  const [first, second] = DRIVERS;
  const order = [first, second, second, first];
  const progress = new Progress(operation.name, operation.calls * DRIVERS.length);
  const runners = new Map(
    DRIVERS.map((driver) => {
      const at = stores.get(driver);
      if (!at) throw new Error(`no store for ${driver.name}`);
      return [
        driver,
        { run: operation.start(driver, at.store, at.file), next: 0, samples: [] as number[], cpuMs: 0 },
      ];
    }),
  );
  for (const [round, driver] of order.entries()) {
    const runner = runners.get(driver);
    if (!runner) continue;
    const until = round < 2 ? Math.round(operation.calls / 2) : operation.calls;
    for (; runner.next < until; runner.next++) {
      if (operation.settle) collectYoung();
      const cpu = process.cpuUsage();
      const started = performance.now();
      runner.run(runner.next);
      runner.samples.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      runner.cpuMs += (used.user + used.system) / 1_000;
      progress.tick();
    }
  }
  progress.done();
  return DRIVERS.map((driver) => ({
    operation: operation.name,
    driver: driver.name,
    samples: runners.get(driver)?.samples ?? [],
    cpuMs: runners.get(driver)?.cpuMs ?? Number.NaN,
    unit: operation.unit,
    perCall: operation.perCall,
  }));
}

function operations(workload: Workload, counts: Counts, cacheKib: number | undefined): Operation[] {
  const sessionIds = ['turns', 'batched', 's1k', 's10k'];
  const tenK = workload.loadable.get('s10k')?.messages ?? 0;
  const write =
    (entries: readonly Write[], sessionId: string) =>
    (_driver: Driver, store: BenchStore) =>
    (call: number) => {
      const entry = entries[call];
      if (entry) store.write(sessionId, entry.seq, entry.edits, entry.rows);
    };
  return [
    {
      name: 'append 1 message (a turn)',
      unit: 'msg/s',
      perCall: 1,
      calls: counts.turns,
      start: write(workload.turns, 'turns'),
    },
    {
      name: 'append 1 edit',
      unit: 'edits/s',
      perCall: 1,
      calls: counts.edits,
      start: write(workload.edits, 'turns'),
    },
    {
      name: `append ${BATCH} messages`,
      unit: 'msg/s',
      perCall: BATCH,
      calls: counts.batches,
      start: write(workload.batches, 'batched'),
    },
    {
      name: 'load 1k-message session',
      unit: 'loads/s',
      perCall: 1,
      calls: counts.load1k,
      settle: true,
      start: (_driver, store) => () => store.load('s1k', 1_000),
    },
    {
      name: 'load 10k-message session',
      unit: 'loads/s',
      perCall: 1,
      calls: counts.load10k,
      settle: true,
      start: (_driver, store) => () => store.load('s10k', tenK),
    },
    {
      name: `loadRecent 10k (last ${RECENT_BODIES / 1_000}k bodies)`,
      unit: 'loads/s',
      perCall: 1,
      calls: counts.recent,
      settle: true,
      start: (_driver, store) => () => store.loadRecent('s10k', tenK - RECENT_BODIES, RECENT_BODIES),
    },
    {
      name: 'point read: positions',
      unit: 'reads/s',
      perCall: 1,
      calls: counts.pointReads,
      start: (_driver, store) => (call) => {
        if (store.statements.positions.get(sessionIds[call % sessionIds.length] ?? 'turns') === undefined)
          throw new Error('positions: no row');
      },
    },
    {
      name: 'point read: a message body',
      unit: 'reads/s',
      perCall: 1,
      calls: counts.pointReads,
      // A stride through the 10k session, so reads are not one cached row.
      start: (_driver, store) => (call) => {
        if (store.messageByKey.get('s10k', (call * 7_919) % tenK) === undefined)
          throw new Error('message: no row');
      },
    },
    {
      name: 'open store + close (existing file)',
      unit: 'opens/s',
      perCall: 1,
      calls: counts.opens,
      start: (driver, _store, file) => () => new BenchStore(driver, file, cacheKib).close(),
    },
  ];
}

/**
 * Runs in a fresh `node` per sample: the driver's import and first open (`open`), then, in `read` mode,
 * the 10k session's bodies read whole. Plain node, not tsx: its loader would sit in every import.
 */
const CHILD_SCRIPT = `
import { createRequire } from 'node:module';
const [driver, mode, file, sessionId] = process.argv.slice(1);
const report = { rssBoot: process.memoryUsage.rss() };
let open;
const started = performance.now();
if (driver.startsWith('better-sqlite3')) {
  const Database = driver.endsWith('(require)')
    ? createRequire(import.meta.url)('better-sqlite3')
    : (await import('better-sqlite3')).default;
  open = (path) => {
    const db = new Database(path);
    return { all: (sql, ...params) => db.prepare(sql).raw().all(...params), close: () => db.close() };
  };
} else if (driver === 'node:sqlite') {
  const { DatabaseSync } = await import('node:sqlite');
  open = (path) => {
    const db = new DatabaseSync(path);
    const all = (sql, ...params) => {
      const statement = db.prepare(sql);
      statement.setReturnArrays(true);
      return statement.all(...params);
    };
    return { all, close: () => db.close() };
  };
}
report.importMs = performance.now() - started;
if (open) {
  const opening = performance.now();
  const db = open(file);
  db.all('SELECT count(*) FROM ${T}sessions');
  report.firstOpenMs = performance.now() - opening;
  report.rssOpen = process.memoryUsage.rss();
  if (mode === 'read') {
    const reading = performance.now();
    const rows = db.all('SELECT seq, body FROM ${T}messages WHERE session_id = ? ORDER BY seq', sessionId);
    report.readMs = performance.now() - reading;
    report.rssRead = process.memoryUsage.rss();
    if (rows.length === 0) throw new Error('no rows');
  }
  db.close();
}
const cpu = process.cpuUsage();
report.cpuMs = (cpu.user + cpu.system) / 1000;
process.stdout.write(JSON.stringify(report));
`;

interface ChildReport {
  rssBoot: number;
  /** The process's own CPU time (user + system) up to its last line: less swayed by a busy machine than its wall time. */
  cpuMs: number;
  importMs: number;
  firstOpenMs?: number;
  rssOpen?: number;
  readMs?: number;
  rssRead?: number;
}

interface StartupSample extends ChildReport {
  /** From spawning the process to its exit. */
  wallMs: number;
  warned: boolean;
}

type ChildMode = 'open' | 'read';

function startChild(driver: string, mode: ChildMode, file: string): StartupSample {
  const started = performance.now();
  const child = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', CHILD_SCRIPT, driver, mode, file, 's10k'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`${driver} child exited ${child.status}: ${child.stderr}`);
  return {
    ...(JSON.parse(child.stdout) as ChildReport),
    wallMs,
    warned: child.stderr.includes('ExperimentalWarning'),
  };
}

const BARE_NODE = '(no driver)';

/** How the store loads better-sqlite3 (createRequire, at first open): one CommonJS load, no ESM wrapper. */
const BETTER_SQLITE3_REQUIRED = 'better-sqlite3 (require)';
const STARTUP_ROWS = [betterSqlite3.name, BETTER_SQLITE3_REQUIRED, nodeSqlite.name];

/** Samples by `driver/mode`; a bare node (no import) as the baseline. */
function startup(files: ReadonlyMap<string, string>, runs: number): Map<string, StartupSample[]> {
  const jobs: [string, ChildMode][] = [
    [BARE_NODE, 'open'],
    [BETTER_SQLITE3_REQUIRED, 'open'],
    ...DRIVERS.flatMap((driver) => [
      [driver.name, 'open'] as [string, ChildMode],
      [driver.name, 'read'] as [string, ChildMode],
    ]),
  ];
  const samples = new Map<string, StartupSample[]>();
  const progress = new Progress('fresh processes', runs * jobs.length);
  for (let run = 0; run < runs; run++) {
    // Alternating who goes first keeps the OS's file cache from favouring one driver.
    for (const [driver, mode] of run % 2 === 0 ? jobs : [...jobs].reverse()) {
      const key = `${driver}/${mode}`;
      const file = files.get(driver) ?? files.get(betterSqlite3.name) ?? '';
      samples.set(key, [...(samples.get(key) ?? []), startChild(driver, mode, file)]);
      progress.tick();
    }
  }
  progress.done();
  return samples;
}

const MB = 1024 * 1024;
const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;
const signed = (value: number, format: (value: number) => string): string =>
  value < 0 ? `−${format(-value)}` : `+${format(value)}`;
const rate = (value: number): string => Math.round(value).toLocaleString('en-US');

/** µs below a millisecond, ms above, so a point read and a 10k load read alike. */
function duration(ms: number): string {
  if (Number.isNaN(ms)) return '—';
  if (ms < 1) return `${(ms * 1_000).toFixed(1)} µs`;
  return `${ms.toFixed(2)} ms`;
}

const medianOf = (samples: readonly StartupSample[], pick: (sample: StartupSample) => number | undefined) =>
  median(samples.map(pick).filter((value): value is number => value !== undefined));

function printSettings(stores: ReadonlyMap<Driver, { store: BenchStore }>): void {
  const names = ['journal_mode', 'synchronous', 'busy_timeout', 'foreign_keys', 'cache_size', 'page_size'];
  printTable(
    ['driver', 'SQLite', ...names, 'threadsafe'],
    [...stores].map(([driver, { store }]) => {
      const version = store.db.prepare('SELECT sqlite_version()', 'arrays').get() as unknown[];
      return [
        driver.name,
        String(version[0]),
        ...names.map((name) => String(store.db.setting(name))),
        String(
          (store.db.prepare('PRAGMA compile_options', 'arrays').all() as unknown[][])
            .map((row) => String(row[0]))
            .find((option) => option.startsWith('THREADSAFE='))
            ?.slice('THREADSAFE='.length),
        ),
      ];
    }),
  );
}

async function main(): Promise<void> {
  const flags = parseFlags(process.argv.slice(2));
  const scale = Number(flags.get('scale') ?? 1);
  const children = Number(flags.get('children') ?? 8);
  const cacheFlag = flags.get('cache-size');
  const cacheKib = cacheFlag === undefined ? undefined : Number(cacheFlag);
  if (!(scale > 0) || !Number.isInteger(children) || children < 1)
    throw new Error('--scale takes a positive number, --children a positive integer');
  if (cacheKib !== undefined && !(Number.isInteger(cacheKib) && cacheKib > 0))
    throw new Error('--cache-size takes a page cache size in KiB');
  const counts = Object.fromEntries(
    Object.entries(BASE_COUNTS).map(([name, count]) => [name, Math.max(4, Math.round(count * scale))]),
  ) as unknown as Counts;

  const corpus = readCorpus().flatMap((session) => session.transcript.messages);
  const encoding = new Progress('encoding rows', 1);
  const workload = buildWorkload(corpus, counts);
  encoding.tick();
  encoding.done();

  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-bench-sqlite-drivers-'));
  const started = performance.now();
  try {
    const stores = new Map(
      DRIVERS.map((driver) => {
        const file = join(dir, `${driver.name.replace(/\W/g, '-')}.db`);
        return [driver, { store: new BenchStore(driver, file, cacheKib), file }] as const;
      }),
    );
    const filling = new Progress('writing the 1k and 10k sessions', DRIVERS.length);
    for (const { store } of stores.values()) {
      for (const [sessionId, session] of workload.loadable)
        for (const write of session.writes) store.write(sessionId, write.seq, write.edits, write.rows);
      filling.tick();
    }
    filling.done();

    const results = operations(workload, counts, cacheKib).flatMap((operation) => measure(operation, stores));

    console.log(
      `\nSQLite drivers on the session store's schema, pragmas and statements (${process.version}, ${process.platform}-${process.arch}); files in ${tmpdir()}, WAL; page cache: ${cacheKib === undefined ? "each build's default (the store sets none)" : `${cacheKib} KiB on both`}\n`,
    );
    printSettings(stores);
    const peakRss = process.resourceUsage().maxRSS * 1024;
    for (const { store } of stores.values()) store.close();

    console.log(
      `\nMessage bodies: corpus messages, JSON of ${Math.round(workload.bodyChars / 10_000).toLocaleString('en-US')} characters on average (the 10k session: ${(workload.bodyChars / 1e6).toFixed(1)} M characters); one edit per ${1 / EDITS_PER_MESSAGE} messages. One call timed at a time (p50, p99: wall clock; CPU per call: the process's user + system time, a mean, about 1 µs of it the clock reads around the call); the drivers take turns (ABBA).\n`,
    );
    const base = new Map(
      results
        .filter((result) => result.driver === betterSqlite3.name)
        .map((result) => [result.operation, result]),
    );
    printTable(
      [
        'operation',
        'driver',
        'calls',
        'p50',
        'p99',
        'throughput',
        'CPU per call',
        'vs better-sqlite3: p50',
        'CPU',
      ],
      results.map((result) => {
        const p50 = percentile(result.samples, 0.5);
        const total = result.samples.reduce((sum, sample) => sum + sample, 0);
        const cpu = result.cpuMs / result.samples.length;
        const reference = base.get(result.operation);
        const ratio = (value: number, of: number | undefined) =>
          result.driver === betterSqlite3.name || of === undefined ? '' : `${(value / of).toFixed(2)}×`;
        return [
          result.operation,
          result.driver,
          String(result.samples.length),
          duration(p50),
          duration(percentile(result.samples, 0.99)),
          `${rate((result.samples.length * result.perCall) / (total / 1_000))} ${result.unit}`,
          duration(cpu),
          ratio(p50, reference && percentile(reference.samples, 0.5)),
          ratio(cpu, reference && reference.cpuMs / reference.samples.length),
        ];
      }),
    );
    console.log(
      `\nThis process (both drivers, the encoded rows, the corpus): peak RSS ${mb(peakRss)}; the measured part took ${((performance.now() - started) / 1_000).toFixed(1)} s.`,
    );

    const files = new Map([...stores].map(([driver, { file }]) => [driver.name, file]));
    const startupSamples = startup(files, children);
    const baseline = startupSamples.get(`${BARE_NODE}/open`) ?? [];
    const baseRss = medianOf(baseline, (sample) => sample.rssBoot);
    const baseWall = medianOf(baseline, (sample) => sample.wallMs);
    const baseCpu = medianOf(baseline, (sample) => sample.cpuMs);
    console.log(
      `\nStarting a process: a fresh \`node\` per sample (${children} each, medians). Import (\`await import()\`, or \`require\` as the store loads better-sqlite3), then the first open of the database (better-sqlite3 loads its addon there), then exit; the read is another process that also reads the 10k session's bodies whole. Against a bare node: ${mb(baseRss)} RSS, ${baseCpu.toFixed(1)} ms CPU, ${baseWall.toFixed(1)} ms from spawn to exit.\n`,
    );
    printTable(
      [
        'driver',
        'import',
        'first open',
        'process CPU',
        'spawn to exit',
        'RSS after open',
        'read 10k bodies',
        'RSS after the read',
        'ExperimentalWarning',
      ],
      STARTUP_ROWS.map((driver) => {
        const opened = startupSamples.get(`${driver}/open`) ?? [];
        const read = startupSamples.get(`${driver}/read`) ?? [];
        const wall = medianOf(opened, (sample) => sample.wallMs);
        const cpu = medianOf(opened, (sample) => sample.cpuMs);
        const rss = (value: number) =>
          Number.isNaN(value) ? '—' : `${mb(value)} (${signed(value - baseRss, mb)})`;
        const ms = (value: number) => `${value.toFixed(1)} ms`;
        return [
          driver,
          duration(medianOf(opened, (sample) => sample.importMs)),
          duration(medianOf(opened, (sample) => sample.firstOpenMs)),
          `${ms(cpu)} (${signed(cpu - baseCpu, ms)})`,
          `${ms(wall)} (${signed(wall - baseWall, ms)})`,
          rss(medianOf(opened, (sample) => sample.rssOpen)),
          duration(medianOf(read, (sample) => sample.readMs)),
          rss(medianOf(read, (sample) => sample.rssRead)),
          [...opened, ...read].some((sample) => sample.warned) ? 'printed' : 'none',
        ];
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
