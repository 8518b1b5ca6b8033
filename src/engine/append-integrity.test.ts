import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { MAX_SESSION_ID_LENGTH } from '../core/session-id.ts';
import { HOSTILE_IDS } from '../store/blob-store.conformance.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import type { SessionStore } from '../store/session-store.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const policy = PRESETS.default;
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};
/** A tool output large enough that normalization spills it to a blob. */
const LARGE = Array.from({ length: 8_000 }, (_, i) => `line ${i}: build output ${i * 7919} ok`).join('\n');

const turn = (callId = 'c1', content = LARGE): MessageInput[] => [
  user('run the build'),
  callsTo([callId, 'bash', '{"cmd":"make"}']),
  result(callId, content),
];

/** A blob store whose next `failures` puts throw before writing. */
function flakyBlobs(failures: number): BlobStore & { puts: number } {
  const inner = createMemoryBlobStore();
  let left = failures;
  const store = {
    ...inner,
    puts: 0,
    async put(...args: Parameters<BlobStore['put']>) {
      store.puts++;
      if (left > 0) {
        left--;
        throw new Error('disk full');
      }
      return inner.put(...args);
    },
  };
  return store;
}

/** A session store whose next `failures` appends write, then throw (a timeout after the commit). */
function timingOutStore(failures: number): SessionStore {
  const inner = createMemorySessionStore();
  let left = failures;
  return {
    ...inner,
    async append(...args: Parameters<SessionStore['append']>) {
      await inner.append(...args);
      if (left > 0) {
        left--;
        throw new Error('timeout');
      }
    },
  };
}

describe('any session id, end to end (SQLite sessions, filesystem blobs)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-ids-'));
  });
  afterEach(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('spills, stores and reads back a large tool result under every hostile id, each apart', async () => {
    const stores = await openEmbeddedStores({ dataDir });
    try {
      const manager = createContextManager({ policy, clock: clock(), ...stores });
      for (const [index, sessionId] of HOSTILE_IDS.entries()) {
        const label = JSON.stringify(sessionId.slice(0, 40));
        const content = `${index}\n${LARGE}`;
        const { events } = await manager.append(sessionId, turn('call_1', content));
        const spilled = events.find((event) => event.type === 'tool-output-spilled');
        expect(spilled, label).toBeDefined();
        if (spilled?.type !== 'tool-output-spilled') continue;
        expect(await manager.readOffloaded(sessionId, spilled.blobRef), label).toBe(content);
        const prepared = await manager.prepare(sessionId, { contextWindow: 200_000, maxOutputTokens: 4_000 });
        expect(prepared.messages.length, label).toBe(3);
      }
      // Every blob directory is inside the data directory, one per id.
      expect(await fs.readdir(path.join(dataDir, 'sessions'))).toHaveLength(HOSTILE_IDS.length);
      const reopened = createContextManager({ policy, clock: clock(), ...stores });
      for (const sessionId of HOSTILE_IDS) {
        expect((await reopened.history(sessionId)).log, JSON.stringify(sessionId)).toHaveLength(3);
      }
    } finally {
      await stores.close();
    }
  });

  it('refuses ids no store can keep up front, with a typed error, storing nothing', async () => {
    const store = createMemorySessionStore();
    const manager = createContextManager({ policy, store });
    for (const bad of ['', 'a\u0000b', 'x\uD800', 'x'.repeat(MAX_SESSION_ID_LENGTH + 1), 42, undefined]) {
      const id = bad as string;
      await expect(manager.append(id, [user('hi')])).rejects.toMatchObject({
        code: 'invalid_session_id',
        name: 'InvalidSessionIdError',
      });
      await expect(manager.prepare(id)).rejects.toMatchObject({ code: 'invalid_session_id' });
      await expect(manager.sync(id, [user('hi')])).rejects.toMatchObject({ code: 'invalid_session_id' });
    }
    expect(await store.list()).toEqual([]);
    expect((await manager.append('x'.repeat(MAX_SESSION_ID_LENGTH), [user('hi')])).messages).toHaveLength(1);
  });
});

describe('an append is all or nothing', () => {
  it('stores nothing when a blob write fails, and the retry stores the batch once', async () => {
    const store = createMemorySessionStore();
    const blobs = flakyBlobs(1);
    const manager = createContextManager({ policy, store, blobs, clock: clock() });
    await expect(manager.append('s', turn())).rejects.toThrow('disk full');
    expect(await store.load('s')).toBeUndefined();
    expect((await manager.history('s')).log).toEqual([]);
    const retried = await manager.append('s', turn());
    expect(retried.messages.map((message) => message.seq)).toEqual([0, 1, 2]);
    const { log, edits } = await manager.history('s');
    expect(log).toHaveLength(3);
    const evict = edits.find((edit) => edit.type === 'evict');
    expect(evict?.type === 'evict' && (await manager.readOffloaded('s', evict.blobRef))).toBe(LARGE);
  });

  it('stores nothing of a diverged sync whose new messages cannot be stored (no branch edit left behind)', async () => {
    const store = createMemorySessionStore();
    const blobs = flakyBlobs(0);
    const manager = createContextManager({ policy, store, blobs, clock: clock() });
    await manager.sync('s', [user('a'), assistant('b')]);
    const failing = flakyBlobs(1);
    const second = createContextManager({ policy, store, blobs: failing, clock: clock() });
    await expect(second.sync('s', [user('a'), ...turn().slice(1)])).rejects.toThrow('disk full');
    expect((await store.load('s'))?.edits).toEqual([]);
    const synced = await second.sync('s', [user('a'), ...turn().slice(1)]);
    expect(synced.diverged).toBe(true);
    const { log, edits } = await second.history('s');
    expect(log).toHaveLength(4);
    expect(edits.map((edit) => edit.type)).toEqual(['branch', 'evict']);
  });
});

describe('a retried append is stored once', () => {
  it('recognizes a whole batch with ids resent after the store timed out having written it', async () => {
    const store = timingOutStore(1);
    const manager = createContextManager({ policy, store, clock: clock() });
    const withIds = () => turn().map((message, index) => ({ ...message, id: `m${index}` }));
    await expect(manager.append('s', withIds())).rejects.toThrow('timeout');
    const retried = await manager.append('s', withIds());
    expect(retried.messages.map((message) => message.seq)).toEqual([0, 1, 2]);
    expect(retried.events.filter((event) => event.type === 'tool-output-spilled')).toEqual([]);
    expect((await manager.history('s')).log).toHaveLength(3);
    expect((await store.load('s'))?.log.map((message) => message.id)).not.toContain(
      expect.stringContaining('#'),
    );
  });

  it('recognizes part of a batch resent, alone or followed by new messages', async () => {
    const store = timingOutStore(1);
    const manager = createContextManager({ policy, store, clock: clock() });
    const batch = [
      user('go'),
      callsTo(['c1', 'read', '{}'], ['c2', 'read', '{}']),
      result('c1', 'one'),
      result('c2', 'two'),
    ];
    await expect(manager.append('s', batch)).rejects.toThrow('timeout');
    // Only the second result, resent: it is the one its call already has.
    expect((await manager.append('s', [result('c2', 'two')])).messages.map((m) => m.seq)).toEqual([3]);
    // The first result alone, out of order.
    expect((await manager.append('s', [result('c1', 'one')])).messages.map((m) => m.seq)).toEqual([2]);
    // The tail resent with the reply that follows.
    const more = await manager.append('s', [result('c2', 'two'), assistant('done')]);
    expect(more.messages.map((message) => message.seq)).toEqual([3, 4]);
    // The assistant's calls alone, again.
    const calls = callsTo(['c3', 'read', '{}']);
    await manager.append('s', [calls]);
    expect((await manager.append('s', [calls])).messages.map((m) => m.seq)).toEqual([5]);
    expect((await manager.history('s')).log).toHaveLength(6);
  });

  it('without ids, stores a message that may be meant twice: a user repeating a command, a batch resent', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    // As in the corpus (aider): the user sends `/undo` twice in a row.
    await manager.append('s', [user('/undo')]);
    await manager.append('s', [user('/undo')]);
    await manager.append('s', [user('continue'), assistant('Done.')]);
    await manager.append('s', [user('continue'), assistant('Done.')]);
    expect((await manager.history('s')).log.map((message) => message.seq)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('an agent polling with reused call ids: every step is stored, its result with its own call', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    const poll = callsTo(['call_0', 'job_status', '{"id":5}']);
    await manager.append('s', [user('wait for job 5')]);
    for (const status of ['running', 'running', 'passed']) {
      await manager.append('s', [poll]);
      await manager.append('s', [result('call_0', status)]);
    }
    const { log } = await manager.history('s');
    expect(log).toHaveLength(7);
    const prepared = await manager.prepare('s', { contextWindow: 100_000, maxOutputTokens: 1_000 });
    expect(prepared.messages).toHaveLength(7);
    expect(JSON.stringify(prepared.messages.at(-1))).toContain('passed');
  });

  it('appends a repeated exchange in a new turn: call ids reused across turns are not retries', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    const exchange = [
      callsTo(['functions.bash:0', 'bash', '{"cmd":"ls"}']),
      result('functions.bash:0', 'a.txt'),
    ];
    await manager.append('s', [user('list'), ...exchange]);
    await manager.append('s', [user('list again'), ...exchange]);
    expect((await manager.history('s')).log).toHaveLength(6);
    // The same response again in the same turn, once its calls were answered, is a new step (polling).
    expect((await manager.append('s', exchange)).messages.map((message) => message.seq)).toEqual([6, 7]);
    // Its result resent alone is the one its call already has.
    expect((await manager.append('s', [exchange[1] as MessageInput])).messages[0]?.seq).toBe(7);
    expect((await manager.history('s')).log).toHaveLength(8);
  });

  it('goes by ids when the caller gives them: same content is stored once, other content is an error', async () => {
    const store = createMemorySessionStore();
    const manager = createContextManager({ policy, store, clock: clock() });
    await manager.append('s', [{ ...user('hi'), id: 'u1' }]);
    const again = await manager.append('s', [
      { ...user('hi'), id: 'u1' },
      { ...user('hi'), id: 'u2' },
    ]);
    expect(again.messages.map((message) => [message.id, message.seq])).toEqual([
      ['u1', 0],
      ['u2', 1],
    ]);
    await expect(manager.append('s', [{ ...user('changed'), id: 'u1' }, user('x')])).rejects.toMatchObject({
      code: 'message_id_conflict',
      name: 'MessageIdConflictError',
    });
    expect((await store.load('s'))?.log).toHaveLength(2);
  });

  it('keeps a retried sync idempotent after a timeout', async () => {
    const store = timingOutStore(1);
    const manager = createContextManager({ policy, store, clock: clock() });
    const history = [user('a'), ...turn().slice(1)];
    await expect(manager.sync('s', history)).rejects.toThrow('timeout');
    const synced = await manager.sync('s', history);
    expect(synced.messages).toEqual([]);
    expect(synced.diverged).toBe(false);
    expect((await manager.history('s')).log).toHaveLength(3);
  });
});

describe('malformed input is a typed error naming the field', () => {
  const manager = createContextManager({ policy });
  const cases: [unknown, string][] = [
    ['not an array', 'messages'],
    [[{ role: 'user', parts: 'hi' }], 'messages[0].parts'],
    [[user('ok'), { role: 'system', parts: [] }], 'messages[1].role'],
    [[user('ok'), { role: 'user', parts: [result('c', 'x').parts[0]] }], 'messages[1].parts[0].type'],
    [
      [{ role: 'assistant', parts: [{ type: 'tool-call', name: 'read', args: '{}' }] }],
      'messages[0].parts[0].callId',
    ],
    [[{ role: 'tool', parts: [] }], 'messages[0].parts'],
    [[{ ...user('x'), meta: { agentVisible: 'no' } }], 'messages[0].meta.agentVisible'],
    [[{ ...assistant('x'), usage: { inputTokens: -1, outputTokens: 0 } }], 'messages[0].usage.inputTokens'],
    [[null], 'messages[0]'],
    [[{ ...user('x'), id: '' }], 'messages[0].id'],
  ];
  for (const [input, field] of cases) {
    it(`refuses ${field}`, async () => {
      await expect(manager.append('s', input as MessageInput[])).rejects.toMatchObject({
        code: 'invalid_message',
        name: 'InvalidMessageError',
        path: field,
      });
    });
  }

  it('checks sync history the same way, and stores nothing', async () => {
    await expect(
      manager.sync('v', [user('a'), { role: 'user', parts: [{ type: 'text' }] } as never]),
    ).rejects.toMatchObject({
      code: 'invalid_message',
      path: 'history[1].parts[0].text',
      index: 1,
    });
    expect((await manager.history('v')).log).toEqual([]);
  });
});

describe('contextWindow and maxOutputTokens as options', () => {
  it('override the policy budget', () => {
    const manager = createContextManager({ policy, contextWindow: 32_000, maxOutputTokens: 4_000 });
    expect(manager.policy.budget.contextWindow).toBe(32_000);
    expect(manager.policy.budget.maxOutputTokens).toBe(4_000);
    expect(manager.policy.budget.reserveTokens).toBe(policy.budget.reserveTokens);
    expect(createContextManager({ policy }).policy).toEqual(policy);
  });

  it('are refused unless positive integers with the output below the window', () => {
    for (const options of [
      { contextWindow: 0 },
      { contextWindow: -1 },
      { contextWindow: 1.5 },
      { maxOutputTokens: Number.NaN },
      { contextWindow: 8_000, maxOutputTokens: 8_000 },
      { contextWindow: 8_000, maxOutputTokens: 9_000 },
    ]) {
      expect(() => createContextManager({ policy, ...options }), JSON.stringify(options)).toThrow(
        expect.objectContaining({ code: 'invalid_policy' }),
      );
    }
  });

  it("a window alone that leaves no room for the preset's reply reserve names the window", () => {
    // picoclaw reserves 32,768 tokens for the reply (picoclaw's MaxTokens).
    expect(() => createContextManager({ policy: PRESETS.picoclaw, contextWindow: 8_192 })).toThrow(
      /contextWindow.*8192 leaves no room.*maxOutputTokens 32768.*pass maxOutputTokens too/,
    );
    const fits = createContextManager({
      policy: PRESETS.picoclaw,
      contextWindow: 8_192,
      maxOutputTokens: 1_024,
    });
    expect(fits.policy.budget).toMatchObject({ contextWindow: 8_192, maxOutputTokens: 1_024 });
  });
});
