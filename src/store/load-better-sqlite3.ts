import type BetterSqlite3 from 'better-sqlite3';
import { requireCommonJs } from '../core/require-common-js.ts';

let loaded: typeof BetterSqlite3 | undefined;

/**
 * `better-sqlite3`, loaded when a SQLite store is first opened rather than when ctxkit is imported: it is
 * CommonJS that requires Node built-ins and a native addon, which stops an ESM bundle of ctxkit at
 * start-up, and a program that keeps its sessions in memory never needs it.
 */
export function betterSqlite3(): typeof BetterSqlite3 {
  loaded ??= requireCommonJs('better-sqlite3') as typeof BetterSqlite3;
  return loaded;
}
