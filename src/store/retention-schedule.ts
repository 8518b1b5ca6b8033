import { InvalidRetentionError } from '../core/errors/index.ts';
import { DAY_MS, type RetentionOptions, type RetentionReport, sweepIdleSessions } from './retention.ts';

/**
 * cowagent: "Sessions older than 30 days are automatically cleaned up". One call for the agent and the
 * service: `startRetention` sweeps idle sessions at once (on start) and again every `everyMs` (a day)
 * until stopped. Sweeps never overlap; a sweep that fails is reported and the schedule goes on, since
 * the next sweep finishes what the last one left (see `sweepIdleSessions`).
 */

/** How often the sweep runs after the first one. */
export const DEFAULT_RETENTION_EVERY_MS = DAY_MS;
/** The longest delay a Node timer keeps (2^31 − 1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_RETENTION_EVERY_MS = 2 ** 31 - 1;

/** The timer functions the schedule uses: passed in so tests (and hosts with their own loop) control time. */
export interface RetentionTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What one sweep came to: its report, or the error that stopped it. */
export type RetentionSweepOutcome = { ok: true; report: RetentionReport } | { ok: false; error: unknown };

export interface RetentionScheduleOptions extends Omit<RetentionOptions, 'now' | 'dryRun'> {
  /** Epoch ms. */
  clock: () => number;
  /** Between sweeps; default one day. */
  everyMs?: number;
  /** Default: Node's timers, unref'd so a pending sweep never keeps the process alive. */
  timers?: RetentionTimers;
  /** Called after every sweep, the first included. */
  onSweep?: (outcome: RetentionSweepOutcome) => void;
}

export interface RetentionSchedule {
  /** The sweep run on start; never rejects (a failure is `{ ok: false }`). */
  first: Promise<RetentionSweepOutcome>;
  /** No sweep starts after this; one already running finishes. Resolves when it has. */
  stop(): Promise<void>;
}

const nodeTimers: RetentionTimers = {
  setTimeout(run, ms) {
    const handle = setTimeout(run, ms);
    handle.unref();
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

export function startRetention(options: RetentionScheduleOptions): RetentionSchedule {
  const { clock, onSweep, timers = nodeTimers, everyMs = DEFAULT_RETENTION_EVERY_MS, ...sweep } = options;
  if (!Number.isFinite(everyMs) || everyMs <= 0 || everyMs > MAX_RETENTION_EVERY_MS)
    throw new InvalidRetentionError(
      'everyMs',
      `must be a number of milliseconds from 1 to ${MAX_RETENTION_EVERY_MS} (timers clamp longer ones to 1 ms), got ${everyMs}`,
    );
  let stopped = false;
  let pending: unknown;
  let running: Promise<RetentionSweepOutcome> = Promise.resolve({ ok: false, error: undefined });

  const run = async (): Promise<RetentionSweepOutcome> => {
    let outcome: RetentionSweepOutcome;
    try {
      outcome = { ok: true, report: await sweepIdleSessions({ ...sweep, now: clock() }) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    try {
      onSweep?.(outcome);
    } catch {
      // A listener's failure is the listener's; the schedule goes on.
    }
    if (!stopped) pending = timers.setTimeout(tick, everyMs);
    return outcome;
  };
  const tick = () => {
    pending = undefined;
    if (!stopped) running = run();
  };

  running = run();
  return {
    first: running,
    async stop() {
      stopped = true;
      if (pending !== undefined) timers.clearTimeout(pending);
      pending = undefined;
      await running;
    },
  };
}
