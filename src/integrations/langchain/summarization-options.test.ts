import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../../core/errors/index.ts';
import { mergePolicy } from '../../core/policy/merge-policy.ts';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { ctxkitContextMiddleware } from './ctxkit-context-middleware.ts';
import { summarizationPolicy } from './summarization-options.ts';

const CLEARING = PRESETS.default.clearing.trigger;
const policyOf = (options: Parameters<typeof summarizationPolicy>[0]) =>
  mergePolicy(PRESETS.default, summarizationPolicy(options, CLEARING));

describe("summarizationMiddleware's options on a ctxkit policy", () => {
  it('maps each trigger kind, and an array of them as any-of', () => {
    expect(policyOf({ trigger: { fraction: 0.8 } }).summarize.trigger).toBe(0.8);
    expect(policyOf({ trigger: { tokens: 4_000 } }).budget).toMatchObject({
      maxContextTokens: 4_000,
      maxContextTokensWhen: 'always',
    });
    expect(policyOf({ trigger: { messages: 50 } }).summarize).toMatchObject({
      maxMessages: 50,
      maxMessagesWhen: 'always',
    });
    const any = policyOf({
      trigger: [{ fraction: 0.9 }, { messages: 40 }, { tokens: 100_000 }, { messages: 30 }],
    });
    expect(any.summarize).toMatchObject({ trigger: 0.9, maxMessages: 30 });
    expect(any.budget.maxContextTokens).toBe(100_000);
  });

  it('moves clearing below a summarize trigger at or under it (cheapest layer first)', () => {
    const low = policyOf({ trigger: { fraction: 0.5 } });
    expect(low.summarize.trigger).toBe(0.5);
    expect(low.clearing.trigger).toBeLessThan(0.5);
    expect(policyOf({ trigger: { fraction: 0.8 } }).clearing.trigger).toBe(CLEARING);
  });

  it('maps keep onto the one keep rule it names, cut at a message', () => {
    const zeroes = { keepRecentTokens: 0, keepRecentFraction: 0, keepRecentTurns: 0, keepRecentMessages: 0 };
    expect(policyOf({ keep: { messages: 20 } }).summarize).toMatchObject({
      ...zeroes,
      keepRecentMessages: 20,
      cutAt: 'message',
    });
    expect(policyOf({ keep: { tokens: 3_000 } }).summarize).toMatchObject({
      ...zeroes,
      keepRecentTokens: 3_000,
    });
    expect(policyOf({ keep: { fraction: 0.3 } }).summarize).toMatchObject({
      ...zeroes,
      keepRecentFraction: 0.3,
    });
  });

  it("maps trimTokensToSummarize (the messages, ctxkit's own prompt on top) and summaryPrefix", () => {
    const summarize = policyOf({ trimTokensToSummarize: 300, summaryPrefix: 'Summary:' }).summarize;
    expect(summarize.prefix).toBe('Summary:');
    // ctxkit's summary prompt alone is several hundred tokens: 300 for the messages is 300 more than that.
    expect(summarize.inputMaxTokens).toBeGreaterThan(300 + 400);
    expect(summarize.inputMaxTokens).toBeLessThan(300 + 1_500);
  });

  it("a trigger without a keep keeps 30 % of the trigger's share verbatim, so a summary gets under it", () => {
    expect(policyOf({ trigger: { fraction: 0.5 } }).summarize).toMatchObject({
      trigger: 0.5,
      keepRecentFraction: 0.15,
      keepRecentTokens: 0,
      keepRecentMessages: 0,
    });
    expect(policyOf({ trigger: { fraction: 0.5 }, keep: { messages: 6 } }).summarize).toMatchObject({
      keepRecentMessages: 6,
    });
  });

  it('refuses what it cannot honour, naming the option', () => {
    const refused = (options: Record<string, unknown>, key: string) => {
      const error = (() => {
        try {
          summarizationPolicy(options, CLEARING);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(InvalidPolicyError.isInstance(error)).toBe(true);
      expect((error as InvalidPolicyError).key).toBe(key);
    };
    refused({ trigger: { tokens: 4_000, messages: 10 } }, 'trigger');
    refused({ trigger: [{ fraction: 0.8 }, {}] }, 'trigger[1]');
    refused({ trigger: { fraction: 1.5 } }, 'trigger.fraction');
    refused({ keep: { messages: 5, tokens: 100 } }, 'keep');
    refused({ keep: { messages: 2.5 } }, 'keep.messages');
    refused({ summaryPrompt: 'Summarize: {messages}' }, 'summaryPrompt');
    refused({ tokenCounter: () => 1 }, 'tokenCounter');
    refused({ messagesToKeep: 20 }, 'messagesToKeep');
    expect(() => ctxkitContextMiddleware({ summaryPrompt: 'x' } as never)).toThrow(/summaryPrompt/);
  });

  it('builds the manager the middleware creates from them, on the policy given', () => {
    const middleware = ctxkitContextMiddleware({
      policy: PRESETS.deepagents,
      trigger: { fraction: 0.7 },
      keep: { messages: 6 },
    });
    expect(middleware.manager.policy.summarize).toMatchObject({ trigger: 0.7, keepRecentMessages: 6 });
    expect(middleware.manager.policy.clearing.enabled).toBe(PRESETS.deepagents.clearing.enabled);
    expect(middleware.manager.summarizer.usesModel).toBe(false);
  });
});
