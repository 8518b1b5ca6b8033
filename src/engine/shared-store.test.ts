/**
 * `sharedStore`: processes that take turns on one session (a fleet). A session another process has been
 * serving is not "restored after a restart" when this one loads it, and a summary a call starts in the
 * background is applied within that call, so nothing of the session lives in one process's memory alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { mergePolicy, PRESETS } from '../core/policy/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { createSqliteSessionStore } from '../store/sqlite-session-store.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

// cowagent: restore keeps recent turns as text only; trimming summarizes the trimmed turns in the background.
const POLICY: Policy = mergePolicy(PRESETS.cowagent, { trim: { maxTurns: 4 } });

function database(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-shared-'));
  dirs.push(dir);
  return join(dir, 'sessions.db');
}

async function open(path: string, sharedStore: boolean) {
  const events: ContextEvent[] = [];
  const manager = createContextManager({
    policy: POLICY,
    contextWindow: 32_000,
    store: await createSqliteSessionStore({ path }),
    sharedStore,
  });
  manager.on((event) => events.push(event));
  return { manager, events };
}

async function toolTurn(manager: Awaited<ReturnType<typeof open>>['manager'], index: number) {
  await manager.append('s', [
    user(`turn ${index}`),
    callsTo([`c${index}`, 'read']),
    result(`c${index}`, `result ${index}`, { name: 'read' }),
    assistant(`done ${index}`),
  ]);
}

it('goes on with a session another process was serving, without the restart restore', async () => {
  const path = database();
  const a = await open(path, true);
  const b = await open(path, true);
  for (let index = 0; index < 3; index++) await toolTurn(a.manager, index);
  const { log: before, edits: editsBefore } = await a.manager.history('s');
  // b started before the session was written: it was live, not resumed after a restart.
  const prepared = await b.manager.prepare('s', { system: 'sys' });
  const { edits } = await b.manager.history('s');
  expect(edits).toHaveLength(editsBefore.length);
  expect(prepared.messages.some((message) => message.role === 'tool')).toBe(true);
  expect((await b.manager.history('s')).log).toHaveLength(before.length);
  // A process started after the last write resumes it as the policy says: tool calls left out.
  const restarted = await open(path, true);
  const resumed = await restarted.manager.prepare('s', { system: 'sys' });
  expect((await restarted.manager.history('s')).edits.length).toBeGreaterThan(editsBefore.length);
  expect(resumed.messages.some((message) => message.role === 'tool')).toBe(false);
});

it('applies the summary of a trim within the call that trimmed, leaving nothing in the background', async () => {
  const shared = await open(database(), true);
  let trims = 0;
  for (let index = 0; index < 8; index++) {
    await toolTurn(shared.manager, index);
    const { events } = await shared.manager.prepare('s', { system: 'sys' });
    const trimmed = events.some((event) => event.type === 'compaction-finished' && event.layer === 'trim');
    if (!trimmed) continue;
    trims++;
    // The prepare that trimmed applied the trimmed turns' summary too.
    expect(events.some((event) => event.type === 'summary-applied')).toBe(true);
  }
  expect(trims).toBeGreaterThan(0);
});
