import { describe, expect, it } from 'vitest';
import { assistant, numbered, user } from '../testing/build-messages.ts';
import { createMemorySessionStore } from './memory-session-store.ts';
import { DAY_MS } from './retention.ts';
import { type RetentionSweepOutcome, type RetentionTimers, startRetention } from './retention-schedule.ts';
import type { SessionStore } from './session-store.ts';

const START = Date.UTC(2025, 6, 1, 12, 0, 0);

/** Timers a test advances by hand. */
function manualTimers(): RetentionTimers & { due: { run: () => void; ms: number }[]; fire(): void } {
  const due: { run: () => void; ms: number }[] = [];
  return {
    due,
    setTimeout(run, ms) {
      const entry = { run, ms };
      due.push(entry);
      return entry;
    },
    clearTimeout(handle) {
      const at = due.indexOf(handle as (typeof due)[number]);
      if (at >= 0) due.splice(at, 1);
    },
    fire() {
      const next = due.shift();
      if (!next) throw new Error('no timer is due');
      next.run();
    },
  };
}

async function write(sessions: SessionStore, id: string, at: number): Promise<void> {
  await sessions.appendMessages(id, numbered([user(`hello ${id}`), assistant('hi')]), 0, at);
}

const ids = async (sessions: SessionStore) => (await sessions.list()).map((s) => s.id).sort();

describe('startRetention (cowagent: "Sessions older than 30 days are automatically cleaned up")', () => {
  it('sweeps on start, then once a day, each time against the clock of that moment', async () => {
    const sessions = createMemorySessionStore();
    let now = START;
    await write(sessions, 'old', START - 31 * DAY_MS);
    await write(sessions, 'aging', START - 29 * DAY_MS);
    await write(sessions, 'fresh', START - DAY_MS);
    const timers = manualTimers();
    const outcomes: RetentionSweepOutcome[] = [];
    const schedule = startRetention({
      sessions,
      clock: () => now,
      timers,
      maxIdleDays: 30,
      onSweep: (outcome) => outcomes.push(outcome),
    });
    const first = await schedule.first;
    expect(first.ok && first.report.removed.map((entry) => entry.sessionId)).toEqual(['old']);
    expect(await ids(sessions)).toEqual(['aging', 'fresh']);
    expect(timers.due.map((entry) => entry.ms)).toEqual([DAY_MS]);

    // Two days later `aging` is 31 days idle; `fresh` is 3.
    now += 2 * DAY_MS;
    timers.fire();
    await waitUntil(() => outcomes.length === 2);
    expect(await ids(sessions)).toEqual(['fresh']);
    expect(timers.due).toHaveLength(1);

    await schedule.stop();
    expect(timers.due).toHaveLength(0);
  });

  it('a failed sweep is reported, and the schedule goes on', async () => {
    const sessions = createMemorySessionStore();
    const failing: SessionStore = {
      ...sessions,
      list: () => Promise.reject(new Error('database is locked')),
    };
    const timers = manualTimers();
    const schedule = startRetention({ sessions: failing, clock: () => START, timers });
    const first = await schedule.first;
    expect(first.ok).toBe(false);
    expect(!first.ok && (first.error as Error).message).toBe('database is locked');
    expect(timers.due).toHaveLength(1);
    await schedule.stop();
  });

  it('stop() during a sweep lets it finish and schedules nothing after it', async () => {
    const sessions = createMemorySessionStore();
    await write(sessions, 'old', START - 40 * DAY_MS);
    const timers = manualTimers();
    const schedule = startRetention({ sessions, clock: () => START, timers });
    await schedule.stop();
    expect(await ids(sessions)).toEqual([]);
    expect(timers.due).toHaveLength(0);
  });

  it('refuses an interval that is not a positive number of milliseconds a timer can keep', () => {
    const sessions = createMemorySessionStore();
    for (const everyMs of [0, -1, Number.NaN, 30 * DAY_MS]) {
      expect(() => startRetention({ sessions, clock: () => START, everyMs })).toThrow(
        expect.objectContaining({ code: 'invalid_retention', message: expect.stringMatching(/everyMs/) }),
      );
    }
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  for (let tries = 0; tries < 100 && !done(); tries++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}
