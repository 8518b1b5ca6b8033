import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { sweepIdleSessions } from '../store/retention.ts';
import { escapeForTerminal as safe } from './escape-for-terminal.ts';
import { parseCountFlag } from './parse-count-flag.ts';
import { loadConfigFromFlags, type PolicyFlags } from './policy-flags.ts';

export interface PruneFlags extends PolicyFlags {
  dryRun?: boolean;
  dataDir?: string;
  days?: string;
}

/**
 * `ctxkit prune`: removes sessions idle longer than the policy's retention (30 days by default, seed
 * 000) from the embedded stores, with their blobs and trace; memory files stay. `--dry-run` lists them.
 */
export async function pruneCommand(flags: PruneFlags): Promise<void> {
  const config = await loadConfigFromFlags(flags);
  const days =
    parseCountFlag('--days', flags.days, { unit: 'days', zero: 'keep every session' }) ??
    config.policy.retention.maxIdleDays;
  const stores = await openEmbeddedStores(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {});
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
      days === 0
        ? 'retention is off (0 days): nothing removed\n'
        : `${report.removed.length} session(s) idle more than ${days} days ${report.dryRun ? 'would be removed' : 'removed'} from ${safe(stores.dataDir)}\n`,
    );
  } finally {
    await stores.close();
  }
}
