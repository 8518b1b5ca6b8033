import { describe, expect, it } from 'vitest';
import { AUTO_COMPACT_HOOK_ID } from '../policy/effective-hooks.ts';
import { mergePolicy } from '../policy/merge-policy.ts';
import type { Hook, Policy } from '../policy/policy-schema.ts';
import {
  COWAGENT_POLICY,
  DEFAULT_POLICY,
  DIGITORN_POLICY,
  PICOCLAW_POLICY,
  TIANCAI_POLICY,
} from '../policy/presets/index.ts';
import {
  type DecisionWindow,
  emergencyCompaction,
  escalationSteps,
  hookDue,
  keepRule,
  manualCompaction,
  messageLimitDue,
  nextTriggeredCompaction,
  type TriggerState,
} from './decide-compaction.ts';

const window: DecisionWindow = {
  contextWindow: 32_000,
  maxOutputTokens: 4_000,
  known: true,
  unbounded: false,
};
const calm: TriggerState = {
  now: 100_000,
  pressure: 0.1,
  turnsSinceCompaction: 0,
  toolCallsSinceCompaction: 0,
  messagesSinceCut: 3,
  hookFiredAt: new Map(),
};

const hook = (overrides: Partial<Hook>): Hook => ({
  id: 'h',
  on: 'before_call',
  condition: { type: 'context_pressure', threshold: 0.5 },
  action: { type: 'compact_context' },
  ...overrides,
});

describe('keepRule', () => {
  const base = mergePolicy(DEFAULT_POLICY, {
    summarize: { keepRecentTokens: 0, keepRecentFraction: 0, keepRecentTurns: 0, keepRecentMessages: 7 },
  });
  it('takes the first rule set: tokens, then a fraction of the window, then turns, then messages', () => {
    const cutAt = base.summarize.cutAt;
    expect(keepRule(base, window)).toEqual({ keepRecentMessages: 7, cutAt });
    expect(keepRule(mergePolicy(base, { summarize: { keepRecentTurns: 2 } }), window)).toEqual({
      keepRecentTurns: 2,
      cutAt,
    });
    expect(
      keepRule(mergePolicy(base, { summarize: { keepRecentTurns: 2, keepRecentFraction: 0.25 } }), window),
    ).toEqual({ keepRecentTokens: 8_000, cutAt });
    expect(
      keepRule(
        mergePolicy(base, {
          summarize: { keepRecentTurns: 2, keepRecentFraction: 0.25, keepRecentTokens: 3_000 },
        }),
        window,
      ),
    ).toEqual({ keepRecentTokens: 3_000, cutAt });
  });

  it("a hook's keep_recent overrides every rule", () => {
    expect(keepRule(TIANCAI_POLICY, window, 4)).toEqual({
      keepRecentMessages: 4,
      cutAt: TIANCAI_POLICY.summarize.cutAt,
    });
  });

  it('tiancai: keep tokens are clamped to a fraction of window − reserve, or of MaxTokens when the window is unknown', () => {
    const policy = mergePolicy(TIANCAI_POLICY, {
      summarize: { keepRecentTokens: 100_000, keepRecentTokensMaxFraction: 0.5 },
      budget: { reserveTokens: 2_000, maxContextTokens: 10_000 },
    });
    expect(keepRule(policy, window).keepRecentTokens).toBe(15_000);
    expect(keepRule(policy, { ...window, known: false }).keepRecentTokens).toBe(5_000);
  });
});

describe('hookDue', () => {
  it('reads each condition type against the state', () => {
    expect(hookDue(hook({}), { ...calm, pressure: 0.5 })).toBe(true);
    expect(hookDue(hook({}), { ...calm, pressure: 0.49 })).toBe(false);
    const turns = hook({ condition: { type: 'turn_count', every: 3 } });
    expect(hookDue(turns, { ...calm, turnsSinceCompaction: 3 })).toBe(true);
    expect(hookDue(turns, { ...calm, turnsSinceCompaction: 2 })).toBe(false);
    const calls = hook({ condition: { type: 'tool_calls', threshold: 5 } });
    expect(hookDue(calls, { ...calm, toolCallsSinceCompaction: 5 })).toBe(true);
    expect(hookDue(calls, { ...calm, toolCallsSinceCompaction: 4 })).toBe(false);
  });

  it('waits out its cooldown from when it last fired', () => {
    const cooled = hook({ cooldownSeconds: 30 });
    const fired = new Map([['h', 80_000]]);
    expect(hookDue(cooled, { ...calm, pressure: 0.9, hookFiredAt: fired })).toBe(false);
    expect(hookDue(cooled, { ...calm, pressure: 0.9, hookFiredAt: fired, now: 110_000 })).toBe(true);
  });
});

describe('nextTriggeredCompaction', () => {
  it('nothing when no trigger holds', () => {
    expect(nextTriggeredCompaction(DEFAULT_POLICY, window, calm, ['before_call'])).toBeUndefined();
  });

  it('the automatic hook under pressure: a context_pressure compaction with the keep rule', () => {
    const plan = nextTriggeredCompaction(DEFAULT_POLICY, window, { ...calm, pressure: 0.99 }, [
      DEFAULT_POLICY.summarize.runOn,
    ]);
    expect(plan).toMatchObject({
      trigger: `hook:${AUTO_COMPACT_HOOK_ID}`,
      reason: 'context_pressure',
      hookId: AUTO_COMPACT_HOOK_ID,
      keep: keepRule(DEFAULT_POLICY, window),
    });
  });

  it('declared hooks in order, each once per call, at their own moment only; their reason is hook', () => {
    const policy = mergePolicy(DEFAULT_POLICY, {
      summarize: { auto: false },
      hooks: [
        hook({ id: 'a', action: { type: 'compact_context', strategy: 'drop', keepRecent: 3 } }),
        hook({ id: 'b', on: 'turn_end' }),
        hook({ id: 'c', action: { type: 'compact_context', summaryMaxTokens: 500 } }),
      ],
    });
    const hot = { ...calm, pressure: 0.9 };
    const first = nextTriggeredCompaction(policy, window, hot, ['before_call']);
    expect(first).toMatchObject({ trigger: 'hook:a', strategy: 'drop', layer: 'drop', reason: 'hook' });
    expect(first?.keep).toEqual({ keepRecentMessages: 3, cutAt: policy.summarize.cutAt });
    const second = nextTriggeredCompaction(policy, window, hot, ['before_call'], new Set(['hook:a']));
    expect(second).toMatchObject({ trigger: 'hook:c', summaryMaxTokens: 500 });
    expect(nextTriggeredCompaction(policy, window, hot, ['before_call'], new Set(['hook:a', 'hook:c']))).toBe(
      undefined,
    );
    expect(nextTriggeredCompaction(policy, window, hot, ['turn_end'])?.trigger).toBe('hook:b');
  });

  it('the message count comes after the hooks, with a count keep rule to fall back on', () => {
    const policy = mergePolicy(TIANCAI_POLICY, { summarize: { maxMessagesWhen: 'always' } });
    const moment = policy.summarize.runOn;
    const many = { ...calm, messagesSinceCut: policy.summarize.maxMessages + 1 };
    const plan = nextTriggeredCompaction(policy, window, many, [moment]);
    expect(plan).toMatchObject({ trigger: 'message_limit', reason: 'message_limit' });
    expect(plan?.fallbackKeep).toEqual({
      keepRecentMessages: Math.max(1, policy.summarize.keepRecentMessages),
      cutAt: policy.summarize.cutAt,
    });
    expect(
      nextTriggeredCompaction(policy, window, many, [moment], new Set(['message_limit'])),
    ).toBeUndefined();
  });
});

describe('messageLimitDue', () => {
  const counted = (policy: Policy, runOn: Policy['summarize']['runOn']) =>
    mergePolicy(policy, { summarize: { auto: true, maxMessages: 10, maxMessagesWhen: 'always', runOn } });

  it('one condition for both paths: looked at after a turn for the async presets, before a call otherwise', () => {
    const state = { messagesSinceCut: 11 };
    expect(messageLimitDue(counted(PICOCLAW_POLICY, 'turn_end'), window, state, ['turn_end'])).toBe(true);
    expect(messageLimitDue(counted(PICOCLAW_POLICY, 'turn_end'), window, state, ['before_call'])).toBe(false);
    expect(messageLimitDue(counted(DEFAULT_POLICY, 'before_call'), window, state, ['before_call'])).toBe(
      true,
    );
    expect(messageLimitDue(counted(DEFAULT_POLICY, 'before_call'), window, state, ['turn_end'])).toBe(false);
    expect(
      messageLimitDue(counted(DEFAULT_POLICY, 'before_call'), window, { messagesSinceCut: 10 }, [
        'before_call',
      ]),
    ).toBe(false);
  });

  it("maxMessagesWhen 'no-token-limit' counts only when no token limit applies", () => {
    const policy = mergePolicy(counted(TIANCAI_POLICY, 'turn_end'), {
      summarize: { maxMessagesWhen: 'no-token-limit' },
    });
    const state = { messagesSinceCut: 11 };
    expect(messageLimitDue(policy, window, state, ['turn_end'])).toBe(false);
    expect(messageLimitDue(policy, { ...window, unbounded: true, known: false }, state, ['turn_end'])).toBe(
      true,
    );
  });
});

describe('manualCompaction', () => {
  it('the keep rule, else the current turn; the strategy, reason and instructions asked for', () => {
    expect(
      manualCompaction(DEFAULT_POLICY, window, { strategy: 'drop', instructions: 'keep the plan' }),
    ).toEqual({
      trigger: 'manual',
      strategy: 'drop',
      layer: 'manual',
      reason: 'manual',
      keep: keepRule(DEFAULT_POLICY, window),
      fallbackKeep: { keepRecentTurns: 1, cutAt: 'turn' },
      instructions: 'keep the plan',
    });
  });
});

describe('escalationSteps', () => {
  it("the proactive check's own action first when the policy has the check, the model-free steps after", () => {
    const kinds = (policy: Policy) => escalationSteps(policy, window).map((step) => step.kind);
    expect(kinds(PICOCLAW_POLICY)[0]).toBe(
      PICOCLAW_POLICY.budget.proactiveAction === 'emergency' ? 'emergency' : 'compact',
    );
    expect(kinds(mergePolicy(DEFAULT_POLICY, { budget: { proactiveCheck: false } }))).toEqual(
      expect.not.arrayContaining(['compact', 'emergency']),
    );
    expect(kinds(COWAGENT_POLICY)).toContain('compress-text');
    expect(kinds(DEFAULT_POLICY).slice(-3)).toEqual(['fit-turns', 'snip', 'fit-messages']);
  });

  it("snips at digitorn's share of the budget, or half", () => {
    const snip = (policy: Policy) => escalationSteps(policy, window).find((step) => step.kind === 'snip');
    expect(snip(mergePolicy(DIGITORN_POLICY, { toolOutput: { oversizedFraction: 0.25 } }))).toEqual({
      kind: 'snip',
      fraction: 0.25,
    });
    expect(snip(mergePolicy(DEFAULT_POLICY, { toolOutput: { oversizedFraction: 0 } }))).toEqual({
      kind: 'snip',
      fraction: 0.5,
    });
  });
});

describe('emergencyCompaction', () => {
  it("digitorn's truncate keeps half of keep_recent, at least the minimum, cutting at a message", () => {
    const policy = mergePolicy(DIGITORN_POLICY, {
      summarize: { keepRecentMessages: 10 },
      emergency: { minKeepRecent: 4 },
    });
    expect(emergencyCompaction(policy, window, 'truncate', 'context_overflow').keep).toEqual({
      keepRecentMessages: 5,
      cutAt: 'message',
    });
    const small = mergePolicy(policy, { summarize: { keepRecentMessages: 6 } });
    expect(emergencyCompaction(small, window, 'truncate', 'context_overflow').keep.keepRecentMessages).toBe(
      4,
    );
  });

  it("cowagent's limit-sizes drops to its newest turns; tiancai's compact summarizes with the keep rule", () => {
    expect(emergencyCompaction(COWAGENT_POLICY, window, 'limit-sizes', 'context_overflow')).toMatchObject({
      strategy: 'drop',
      layer: 'emergency',
      keep: { keepRecentTurns: COWAGENT_POLICY.emergency.maxTurns },
    });
    expect(emergencyCompaction(TIANCAI_POLICY, window, 'compact', 'token_budget')).toMatchObject({
      strategy: 'summarize',
      reason: 'token_budget',
      keep: keepRule(TIANCAI_POLICY, window),
    });
  });
});
