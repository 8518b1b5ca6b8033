import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../errors/index.ts';
import { deepMerge, mergeOverrides, mergePolicy } from './merge-policy.ts';
import { parsePolicy } from './parse-policy.ts';
import { MAX_EMERGENCY_RETRIES } from './policy-schema.ts';
import { DEFAULT_POLICY, DIGITORN_POLICY } from './presets/index.ts';
import { resolvePolicy, resolvePolicyWith } from './resolve-policy.ts';

const hook = (id: string) => ({
  id,
  on: 'turn_end' as const,
  condition: { type: 'turn_count' as const, every: 10 },
  action: { type: 'compact_context' as const },
});

describe('mergePolicy (digitorn "Per-agent override")', () => {
  it('overrides field by field: unspecified fields fall back to the app-level values', () => {
    const merged = mergePolicy(DEFAULT_POLICY, { summarize: { trigger: 0.7 } });
    expect(merged.summarize.trigger).toBe(0.7);
    expect(merged.summarize.keepRecentTokens).toBe(DEFAULT_POLICY.summarize.keepRecentTokens);
    expect(merged.clearing).toEqual(DEFAULT_POLICY.clearing);
  });

  it('replaces arrays whole instead of concatenating them', () => {
    const app = mergePolicy(DEFAULT_POLICY, {
      hooks: [hook('a'), hook('b')],
      clearing: { excludeTools: ['x', 'y'] },
    });
    const agent = mergePolicy(app, { hooks: [hook('c')], clearing: { excludeTools: ['z'] } });
    expect(agent.hooks.map((entry) => entry.id)).toEqual(['c']);
    expect(agent.clearing.excludeTools).toEqual(['z']);
  });

  it('merges nested objects (summarize.model) by field too', () => {
    const app = mergePolicy(DEFAULT_POLICY, {
      summarize: { model: { provider: 'deepseek', model: 'deepseek-chat' } },
    });
    const agent = mergePolicy(app, { summarize: { model: { temperature: 0 } } });
    expect(agent.summarize.model).toEqual({ provider: 'deepseek', model: 'deepseek-chat', temperature: 0 });
  });

  it('leaves both inputs untouched', () => {
    const override = { summarize: { trigger: 0.5 }, clearing: { trigger: 0.4 } };
    const before = structuredClone(override);
    mergePolicy(DEFAULT_POLICY, override);
    expect(override).toEqual(before);
    expect(DEFAULT_POLICY.summarize.trigger).toBe(0.85);
  });

  it('checks the rules that tie fields together', () => {
    expect(() =>
      mergePolicy(DEFAULT_POLICY, { clearing: { trigger: 0.6 }, summarize: { trigger: 0.5 } }),
    ).toThrow(/clearing\.trigger: must be below summarize\.trigger \(0\.5\)/);
    expect(() => mergePolicy(DEFAULT_POLICY, { display: { warnAt: 0.95 } })).toThrow(/display\.warnAt/);
    expect(() =>
      mergePolicy(DEFAULT_POLICY, { budget: { contextWindow: 8_000, maxOutputTokens: 8_000 } }),
    ).toThrow(InvalidPolicyError);
    expect(() => mergePolicy(DEFAULT_POLICY, { hooks: [hook('a'), hook('a')] })).toThrow(
      /hooks\[1\]\.id: duplicate/,
    );
    // Each retry is one more call to the provider: the emergency path asks for a bounded number.
    expect(() =>
      mergePolicy(DEFAULT_POLICY, { emergency: { maxRetries: MAX_EMERGENCY_RETRIES + 1 } }),
    ).toThrow(/emergency\.maxRetries/);
  });

  it('undefined in an override means "not specified"', () => {
    expect(deepMerge({ a: 1, b: { c: 2 } }, { a: undefined, b: { c: undefined } })).toEqual({
      a: 1,
      b: { c: 2 },
    });
  });

  it("mergeOverrides keeps both layers' fields, the later one winning", () => {
    expect(
      mergeOverrides({ summarize: { trigger: 0.8, auto: true } }, { summarize: { trigger: 0.9 } }),
    ).toEqual({
      summarize: { trigger: 0.9, auto: true },
    });
  });
});

describe('resolvePolicy', () => {
  it("applies the digitorn example: app-level context, then each agent's block", () => {
    const app = { runtime: { context: { max_tokens: 200_000, keep_recent: 10, strategy: 'summarize' } } };
    const explorer = resolvePolicy('digitorn', app, {
      context: { max_tokens: 65_536, keep_recent: 15, strategy: 'truncate' },
    });
    const writer = resolvePolicy('digitorn', app, { context: { keep_recent: 8 } });

    expect(explorer.budget.contextWindow).toBe(65_536);
    expect(explorer.summarize.keepRecentMessages).toBe(15);
    expect(explorer.summarize.strategy).toBe('drop');
    // Unspecified fields fall back to the app level.
    expect(writer.budget.contextWindow).toBe(200_000);
    expect(writer.summarize.keepRecentMessages).toBe(8);
    expect(writer.summarize.strategy).toBe('summarize');
    expect(writer.summarize.trigger).toBe(DIGITORN_POLICY.summarize.trigger);
  });

  it('accepts a policy object as the base and skips undefined overrides', () => {
    const base = resolvePolicy('tiancai');
    expect(
      resolvePolicy(base, undefined, { summarize: { keepRecentMessages: 9 } }).summarize.keepRecentMessages,
    ).toBe(9);
  });

  it('reads ambiguous names in the dialect given', () => {
    expect(
      resolvePolicyWith('default', [{ MaxTokens: 16_000 }], { dialect: 'picoclaw' }).budget.maxOutputTokens,
    ).toBe(16_000);
  });

  it('rejects an unknown preset with a suggestion', () => {
    expect(() => resolvePolicy('picoclow')).toThrow(/did you mean "picoclaw"/);
  });

  it('parsePolicy output is a valid mergePolicy input', () => {
    const merged = mergePolicy(DEFAULT_POLICY, parsePolicy({ AutoCompact: false }));
    expect(merged.summarize.auto).toBe(false);
  });
});
