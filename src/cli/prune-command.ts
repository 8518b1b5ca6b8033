import { existsSync } from 'node:fs';
import { escapeForTerminal as safe } from '../core/escape-for-terminal.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { sweepIdleSessions } from '../store/retention.ts';
import { DEFAULT_DATA_DIR, sqliteSessionStorePath } from '../store/sqlite-session-store.ts';
import { parseCountFlag } from './parse-count-flag.ts';
import { loadConfigFromFlags, type PolicyFlags } from './policy-flags.ts';

export interface PruneFlags extends PolicyFlags {
  dryRun?: boolean;
  /** `--data`: the data directory of the embedded stores. */
  data?: string;
  days?: string;
}

/**
 * `ctxkit prune`: removes sessions idle longer than the policy's retention (30 days by default, seed
 * cowagent) from the embedded stores, with their blobs and trace; memory files stay. `--dry-run` lists them.
 * A missing data directory or database is nothing to prune: neither is created. The stores have no
 * read-only open, so a dry run over an existing database still opens it as a writer (WAL, schema).
 */
export async function pruneCommand(flags: PruneFlags): Promise<void> {
  const config = await loadConfigFromFlags(flags);
  const days =
    parseCountFlag('--days', flags.days, { unit: 'days', zero: 'keep every session' }) ??
    config.policy.retention.maxIdleDays;
  const dataDir = flags.data ?? DEFAULT_DATA_DIR;
  if (days === 0) {
    process.stdout.write('retention is off (0 days): nothing removed\n');
    return;
  }
  // Opening the stores creates the data directory and the database: with neither there is no session
  // to prune, and a prune (a dry run above all) must not leave them behind.
  if (!existsSync(dataDir)) {
    process.stdout.write(`nothing to prune: no data directory ${safe(dataDir)}\n`);
    return;
  }
  if (!existsSync(sqliteSessionStorePath({ dataDir }))) {
    process.stdout.write(`nothing to prune: no session store in ${safe(dataDir)}\n`);
    return;
  }
  const stores = await openEmbeddedStores({ dataDir });
  try {
    const report = await sweepIdleSessions({
      sessions: stores.store,
      blobs: stores.blobs,
      trace: stores.trace,
      now: Date.now(),
      maxIdleDays: days,
      dryRun: flags.dryRun === true,
    });
    const verb = report.dryRun ? 'would remove' : 'removed';
    for (const session of report.removed) {
      process.stdout.write(
        `${verb} ${safe(session.sessionId)}: idle ${session.idleDays} days, ${session.messages} messages, ${session.edits} edits, ${session.blobs} blobs, ${session.traceEvents} trace events\n`,
      );
    }
    for (const failure of report.failures) {
      process.stderr.write(
        `could not remove ${safe(failure.sessionId)}: ${safe(failure.message)} (${safe(failure.code)})\n`,
      );
    }
    process.stdout.write(
      `${report.removed.length} session(s) idle more than ${days} days ${report.dryRun ? 'would be removed' : 'removed'} from ${safe(stores.dataDir)}\n`,
    );
  } finally {
    await stores.close();
  }
}
