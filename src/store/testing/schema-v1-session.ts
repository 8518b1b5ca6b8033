/**
 * Test support for the schema v1 → current migrations: the session both SQL stores' tests write with v1's
 * statements, and what opening it with the current schema must give back.
 */
import { expect } from 'vitest';
import type { Message } from '../../core/message.ts';
import { assistant, numbered, user } from '../../testing/build-messages.ts';
import type { SessionStore } from '../session-store.ts';

/** Session `s1` as a version-1 database holds it: three messages, no edits. */
export const V1_MESSAGES: readonly Message[] = numbered([user('a'), assistant('b'), user('c')]);

/** Every message is back, ids read from the bodies, content ids empty; a new append keeps its own. */
export async function expectMigratedV1Session(store: SessionStore): Promise<void> {
  expect((await store.load('s1'))?.log).toEqual(V1_MESSAGES);
  const recent = await store.loadRecent('s1');
  expect(recent?.messageIds).toEqual(V1_MESSAGES.map((message) => message.id));
  expect(recent?.contentIds).toEqual([null, null, null]);
  expect(recent?.recent).toEqual(V1_MESSAGES);
  const next = numbered([user('a'), assistant('b'), user('c'), assistant('d')])[3];
  if (!next) throw new Error('no message');
  await store.append('s1', { messages: [next], contentIds: ['c3'], expectedSeq: 3, expectedEditCount: 0 }, 2);
  expect((await store.loadRecent('s1'))?.contentIds).toEqual([null, null, null, 'c3']);
  // Schema v3: a session from before it has no policy override, and can be given one.
  expect(await store.loadPolicyOverride('s1')).toBeUndefined();
  await store.setPolicyOverride('s1', { summarize: { trigger: 0.5 } }, 3);
  expect(await store.loadPolicyOverride('s1')).toEqual({
    override: { summarize: { trigger: 0.5 } },
    updatedAt: 3,
  });
  // Schema v4: nor a last request, and it can be given one (not activity: updatedAt stays).
  expect(await store.loadLastRequest('s1')).toBeUndefined();
  expect(await store.setLastRequest('s1', { system: 'v4', contextWindow: 8_000 })).toBe(true);
  expect(await store.loadLastRequest('s1')).toEqual({ system: 'v4', contextWindow: 8_000 });
  expect(await store.load('s1')).toMatchObject({ updatedAt: 3 });
  expect((await store.load('s1'))?.log).toHaveLength(4);
}
