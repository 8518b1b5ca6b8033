import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../core/errors/index.ts';
import type { MessageInput } from '../core/message.ts';
import type { Policy, PolicyOverride } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';
import { applyMergePatch, MANAGER_WIDE_POLICY_KEYS, resolveSessionPolicy } from './session-policy.ts';

const policy: Policy = { ...PRESETS.default, model: 'gpt-4o' };
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};
const request = { system: 'You are terse.', contextWindow: 32_000, maxOutputTokens: 2_000 };

/** Twelve turns, about 4,500 tokens: 15 % of the window, far below the default's 60 % / 85 % triggers. */
function conversation(): MessageInput[] {
  const out: MessageInput[] = [];
  for (let turn = 0; turn < 12; turn++)
    out.push(
      user(`question ${turn}: ${'lorem ipsum dolor '.repeat(60)}`),
      assistant(`answer ${turn}: ${'sit amet consectetur '.repeat(60)}`),
    );
  return out;
}

/** Summarize before each call at 10 % (clearing below it, as the policy requires), keeping ~1k tokens. */
const eager: PolicyOverride = {
  summarize: { trigger: 0.1, keepRecentTokens: 1_000, runOn: 'before_call' },
  clearing: { trigger: 0.05 },
};

const summarized = (events: readonly { type: string; layer?: string }[]) =>
  events.some((event) => event.type === 'compaction-finished' && event.layer === 'summarize');

describe('applyMergePatch (RFC 7396)', () => {
  it('merges objects, removes keys set to null, replaces arrays and values', () => {
    const target = { a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] };
    expect(applyMergePatch(target, { a: 'z', c: { f: null }, list: [3] })).toEqual({
      a: 'z',
      c: { d: 'e' },
      list: [3],
    });
    expect(target).toEqual({ a: 'b', c: { d: 'e', f: 'g' }, list: [1, 2] });
    // The RFC's appendix: a patch of a non-object replaces; a null inside a new object is dropped.
    expect(applyMergePatch({ a: 'foo' }, 'bar')).toBe('bar');
    expect(applyMergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(applyMergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
    expect(applyMergePatch([1, 2], { a: 'b', c: null })).toEqual({ a: 'b' });
  });

  it('keeps a "__proto__" key a key, never the prototype', () => {
    const patched = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as object;
    expect(Object.keys(patched)).toEqual(['__proto__']);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(() => resolveSessionPolicy(policy, patched)).toThrow(/__proto__: unknown key/);
  });
});

describe('resolveSessionPolicy', () => {
  it('merges the override over the policy field by field', () => {
    const resolved = resolveSessionPolicy(policy, eager);
    expect(resolved.override).toEqual(eager);
    expect(resolved.policy.summarize).toEqual({ ...policy.summarize, ...eager.summarize });
    expect(resolved.policy.clearing.keepRecent).toBe(policy.clearing.keepRecent);
  });

  it('names every bad key with its path in one InvalidPolicyError', () => {
    let caught: unknown;
    try {
      resolveSessionPolicy(policy, { summarize: { trigger: 2, triger: 0.5 }, budget: { contextWindow: -1 } });
    } catch (error) {
      caught = error;
    }
    expect(InvalidPolicyError.isInstance(caught)).toBe(true);
    const issues = (caught as InvalidPolicyError).details.issues as { key: string; reason: string }[];
    expect(issues.map((issue) => issue.key).sort()).toEqual([
      'budget.contextWindow',
      'summarize.triger',
      'summarize.trigger',
    ]);
    expect(issues.find((issue) => issue.key === 'summarize.trigger')?.reason).toMatch(/^must be ≤ 1/);
    expect(issues.find((issue) => issue.key === 'summarize.triger')?.reason).toMatch(
      /did you mean "trigger"/,
    );
  });

  it('checks the rules that tie fields together once merged', () => {
    // The default clears at 60 %: summarizing at 50 % would come first.
    expect(() => resolveSessionPolicy(policy, { summarize: { trigger: 0.5 } })).toThrow(
      expect.objectContaining({ code: 'invalid_policy', key: 'clearing.trigger' }),
    );
  });

  it('refuses a key the manager sets for every session, naming it and why; the same value changes nothing', () => {
    for (const [key, value] of [
      ['tokens.counter', { tokens: { counter: 'heuristic' } }],
      ['summarize.model.model', { summarize: { model: { model: 'cheap-model' } } }],
      ['retention.maxIdleDays', { retention: { maxIdleDays: 1 } }],
      ['display.warnAt', { display: { warnAt: 0.1 } }],
    ] as const) {
      expect(() => resolveSessionPolicy(policy, value), key).toThrow(
        expect.objectContaining({
          code: 'invalid_policy',
          key,
          details: expect.objectContaining({ scope: 'manager' }),
          message: expect.stringMatching(/cannot be overridden per session/),
        }),
      );
    }
    expect(Object.keys(MANAGER_WIDE_POLICY_KEYS)).toContain('tokens.messageOverhead');
    const same = resolveSessionPolicy(policy, {
      tokens: { counter: policy.tokens.counter, anchorOnUsage: false },
      summarize: { trigger: 0.8 },
    });
    expect(same.override).toEqual({ tokens: { anchorOnUsage: false }, summarize: { trigger: 0.8 } });
  });

  it('drops sections a patch emptied; an empty override is the policy itself', () => {
    const emptied = applyMergePatch({ summarize: { trigger: 0.8 } }, { summarize: { trigger: null } });
    expect(resolveSessionPolicy(policy, emptied)).toEqual({ override: {}, policy });
    expect(() => resolveSessionPolicy(policy, [1])).toThrow(expect.objectContaining({ key: 'override' }));
  });
});

describe('ContextManager: a session policy override', () => {
  it("gives the window rule the session's own settings, as policyOf has them", async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.append('s', conversation());
    await manager.setPolicyOverride('s', { budget: { contextWindow: 50_000, maxContextTokens: 30_000 } });
    const read = await manager.windowPolicyOf('s');
    const { policy: full } = await manager.policyOf('s');
    expect(read).toEqual({
      budget: {
        contextWindow: 50_000,
        maxOutputTokens: full.budget.maxOutputTokens,
        detectWindow: full.budget.detectWindow,
        maxContextTokens: 30_000,
        maxContextTokensWhen: full.budget.maxContextTokensWhen,
      },
      summarize: { maxMessages: full.summarize.maxMessages, maxMessagesWhen: full.summarize.maxMessagesWhen },
    });
    // A copy: changing it changes nothing the session runs under.
    read.budget.contextWindow = 1;
    expect((await manager.windowPolicyOf('s')).budget.contextWindow).toBe(50_000);
  });

  it('changes what prepare does for that session only: a lower trigger compacts it, not its twin', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.append('eager', conversation());
    await manager.append('plain', conversation());
    const set = await manager.setPolicyOverride('eager', eager);
    expect(set.override).toEqual(eager);
    expect(set.policy.summarize.trigger).toBe(0.1);
    expect(manager.policy.summarize.trigger).toBe(policy.summarize.trigger);

    const eagerStats = await manager.stats('eager', request);
    const plainStats = await manager.stats('plain', request);
    expect(eagerStats.thresholds.summarize?.pressure).toBe(0.1);
    expect(plainStats.thresholds.summarize?.pressure).toBe(policy.summarize.trigger);
    expect(eagerStats.pressure).toBeCloseTo(plainStats.pressure);

    const eagerCall = await manager.prepare('eager', request);
    const plainCall = await manager.prepare('plain', request);
    expect(summarized(eagerCall.events)).toBe(true);
    expect(eagerCall.stats.tokens.input).toBeLessThan(eagerStats.tokens.input / 2);
    expect(summarized(plainCall.events)).toBe(false);
    expect(plainCall.messages).toHaveLength(24);
    expect(await manager.policyOf('plain')).toEqual({ override: {}, policy });
  });

  it('holds after unload and in a new manager over the same store', async () => {
    const store = createMemorySessionStore();
    const first = createContextManager({ policy, clock: clock(), store });
    await first.append('s', conversation());
    await first.setPolicyOverride('s', eager);
    first.unload('s');
    expect((await first.policyOf('s')).override).toEqual(eager);

    const second = createContextManager({ policy, clock: clock(), store });
    expect((await second.policyOf('s')).policy.summarize.trigger).toBe(0.1);
    expect(summarized((await second.prepare('s', request)).events)).toBe(true);
  });

  it("reads another process's override when the session is reloaded", async () => {
    const store = createMemorySessionStore();
    const here = createContextManager({ policy, clock: clock(), store });
    const there = createContextManager({ policy, clock: clock(), store });
    await here.append('s', conversation());
    await here.stats('s', request);
    await there.setPolicyOverride('s', eager);
    // Loaded before the change: this process keeps what it read until it reloads the session.
    expect((await here.policyOf('s')).override).toEqual({});
    here.unload('s');
    expect((await here.policyOf('s')).override).toEqual(eager);
    expect(summarized((await here.prepare('s', request)).events)).toBe(true);
  });

  it('applies a new override to a loaded session from its next call, and removes it with null', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.append('s', conversation());
    expect(summarized((await manager.prepare('s', request)).events)).toBe(false);
    await manager.setPolicyOverride('s', eager);
    await manager.append('s', [user('one more question')]);
    expect(summarized((await manager.prepare('s', request)).events)).toBe(true);
    expect(await manager.setPolicyOverride('s', null)).toEqual({ override: {}, policy });
    expect(await manager.store.loadPolicyOverride('s')).toBeUndefined();
    expect((await manager.stats('s', request)).thresholds.summarize?.pressure).toBe(policy.summarize.trigger);
  });

  it('normalizes appended results, compacts on demand and after a turn under the session policy', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    const override: PolicyOverride = {
      toolOutput: { maxChars: 300, spillWhenTruncated: false },
      summarize: { strategy: 'drop', trigger: 0.1, keepRecentTokens: 1_000 },
      clearing: { trigger: 0.05 },
    };
    await manager.setPolicyOverride('own', override);
    const output: MessageInput[] = [
      user('list the files'),
      callsTo(['c1', 'ls']),
      result('c1', 'file.txt\n'.repeat(400)),
      assistant('One file, file.txt, listed many times.'),
    ];
    for (const id of ['own', 'plain']) {
      await manager.append(id, conversation());
      await manager.stats(id, request);
      await manager.append(id, output);
    }
    const capped = async (id: string) =>
      (await manager.history(id)).edits.some(
        (edit) => edit.type === 'truncate-result' && edit.layer === 'normalize',
      );
    expect(await capped('own')).toBe(true);
    expect(await capped('plain')).toBe(false);

    // turn_end is the preset's runOn: after a turn, the session's own trigger and strategy decide.
    const own = await manager.afterTurn('own');
    await own.done;
    const plain = await manager.afterTurn('plain');
    await plain.done;
    const cutBy = async (id: string) => (await manager.history(id)).edits.map((edit) => edit.type);
    expect(await cutBy('own')).toContain('drop');
    expect(await cutBy('plain')).not.toContain('drop');
    expect(await cutBy('plain')).not.toContain('summarize');

    // Asked for explicitly, each compacts with its own strategy.
    await manager.compact('plain');
    expect(await cutBy('plain')).toContain('summarize');
    expect(await cutBy('plain')).not.toContain('drop');
  });

  it('configures a session before its first message, which then runs under it', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.setPolicyOverride('new', eager);
    expect(await manager.store.list()).toEqual([expect.objectContaining({ id: 'new', messages: 0 })]);
    await manager.append('new', conversation());
    expect(summarized((await manager.prepare('new', request)).events)).toBe(true);
  });

  it('patches the override: objects merge, null removes a key', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.patchPolicyOverride('s', eager);
    const patched = await manager.patchPolicyOverride('s', {
      summarize: { keepRecentTokens: null, maxSummaryTokens: 512 },
      budget: { contextWindow: 65_536 },
    });
    expect(patched.override).toEqual({
      summarize: { trigger: 0.1, runOn: 'before_call', maxSummaryTokens: 512 },
      clearing: { trigger: 0.05 },
      budget: { contextWindow: 65_536 },
    });
    expect(patched.policy.summarize.keepRecentTokens).toBe(policy.summarize.keepRecentTokens);
    expect((await manager.store.loadPolicyOverride('s'))?.override).toEqual(patched.override);
    const cleared = await manager.patchPolicyOverride('s', { summarize: null, clearing: null, budget: null });
    expect(cleared).toEqual({ override: {}, policy });
    await expect(
      manager.patchPolicyOverride('s', [] as unknown as Record<string, unknown>),
    ).rejects.toMatchObject({
      code: 'invalid_policy',
      key: 'patch',
    });
  });

  it('refuses a bad override or a manager-wide key with a typed error, storing nothing', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.append('s', conversation());
    await expect(manager.setPolicyOverride('s', { summarize: { trigger: 2 } })).rejects.toMatchObject({
      code: 'invalid_policy',
      key: 'summarize.trigger',
    });
    await expect(manager.setPolicyOverride('s', { tokens: { counter: 'heuristic' } })).rejects.toMatchObject({
      code: 'invalid_policy',
      key: 'tokens.counter',
      details: { scope: 'manager' },
    });
    await expect(
      manager.patchPolicyOverride('s', { summarize: { model: { model: 'x' } } }),
    ).rejects.toMatchObject({
      key: 'summarize.model.model',
    });
    await expect(manager.setPolicyOverride('', eager)).rejects.toMatchObject({ code: 'invalid_session_id' });
    expect(await manager.store.loadPolicyOverride('s')).toBeUndefined();
    expect((await manager.policyOf('s')).override).toEqual({});
  });

  it('refuses a stored override that no longer fits the policy on use, naming the session; replacing it mends', async () => {
    const store = createMemorySessionStore();
    const manager = createContextManager({ policy, clock: clock(), store });
    await manager.append('s', conversation());
    manager.unload('s');
    // Fine as a shape, but clearing at 90 % would come after summarizing at 85 %.
    await store.setPolicyOverride('s', { clearing: { trigger: 0.9 } }, 1);
    const use = manager.prepare('s', request);
    await expect(use).rejects.toMatchObject({ code: 'invalid_policy', key: 'clearing.trigger' });
    await expect(use).rejects.toThrow(/stored policy override of session "s"/);
    const mended = await manager.patchPolicyOverride('s', { clearing: { trigger: 0.5 } });
    expect(mended.policy.clearing.trigger).toBe(0.5);
    expect((await manager.prepare('s', request)).messages).toHaveLength(24);
  });
});
