/**
 * `refresh`: two managers on one store (two processes on one database), each holding the session in turn.
 * A manager reads the session again only when the other changed it, and keeps what it learned otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { DEFAULT_POLICY, mergePolicy } from '../core/policy/index.ts';
import { createSqliteSessionStore } from '../store/sqlite-session-store.ts';
import { assistant, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function twoProcesses() {
  const dir = mkdtempSync(join(tmpdir(), 'ctxkit-refresh-'));
  dirs.push(dir);
  const filename = join(dir, 'sessions.db');
  const open = async () => {
    const events: ContextEvent[] = [];
    const manager = createContextManager({
      store: await createSqliteSessionStore({ path: filename }),
      policy: mergePolicy(DEFAULT_POLICY, { budget: { contextWindow: 32_000 } }),
    });
    manager.on((event) => events.push(event));
    return { manager, events };
  };
  return Promise.all([open(), open()]);
}

describe('ContextManager.refresh', () => {
  it('reads the session again after another process appended, and only then', async () => {
    const [a, b] = await twoProcesses();
    await a.manager.append('s', [user('first'), assistant('one')]);
    expect(await a.manager.refresh('s')).toBe(false);
    await b.manager.append('s', [user('second')]);
    expect(await a.manager.refresh('s')).toBe(true);
    const { log } = await a.manager.history('s');
    expect(log.map((message) => message.parts[0]?.type === 'text' && message.parts[0].text)).toEqual([
      'first',
      'one',
      'second',
    ]);
    // Read again once: now current, nothing reloads (no second restore).
    expect(await a.manager.refresh('s')).toBe(false);
    expect(a.events.filter((event) => event.type === 'session-restored')).toHaveLength(1);
    // Its own writes never make it stale.
    await a.manager.append('s', [assistant('two')]);
    expect(await a.manager.refresh('s')).toBe(false);
  });

  it("sees another process's edits and policy override", async () => {
    const [a, b] = await twoProcesses();
    await a.manager.append('s', [user('hello'), assistant('hi'), user('again'), assistant('yes')]);
    await a.manager.stats('s');
    await b.manager.clear('s');
    expect(await a.manager.refresh('s')).toBe(true);
    await a.manager.stats('s');
    await b.manager.setPolicyOverride('s', { summarize: { trigger: 0.95 } });
    expect(await a.manager.refresh('s')).toBe(true);
    expect((await a.manager.policyOf('s')).override).toEqual({ summarize: { trigger: 0.95 } });
  });

  it('does nothing for a session this manager has not loaded', async () => {
    const [a] = await twoProcesses();
    expect(await a.manager.refresh('never-seen')).toBe(false);
  });
});
