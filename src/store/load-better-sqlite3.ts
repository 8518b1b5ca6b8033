import type BetterSqlite3 from 'better-sqlite3';
import { requireAtFirstUse } from '../core/require-common-js.ts';

/** `better-sqlite3`, needed only when a SQLite store is opened. */
export const betterSqlite3: () => typeof BetterSqlite3 = requireAtFirstUse('better-sqlite3');
