import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../errors/index.ts';
import { parsePolicy, parsePolicyWithOrigins } from './parse-policy.ts';

function errorOf(run: () => unknown): InvalidPolicyError {
  try {
    run();
  } catch (error) {
    if (InvalidPolicyError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidPolicyError');
}

describe('parsePolicy: ctxkit names', () => {
  it('accepts a partial policy and returns only what was set', () => {
    expect(parsePolicy({ summarize: { trigger: 0.8 }, clearing: { excludeTools: ['read_file'] } })).toEqual({
      summarize: { trigger: 0.8 },
      clearing: { excludeTools: ['read_file'] },
    });
  });

  it('rejects an unknown nested key, naming the full path and the nearest valid keys', () => {
    const error = errorOf(() => parsePolicy({ summarize: { keepRecnt: 3 } }));
    expect(error.code).toBe('invalid_policy');
    expect(error.key).toBe('summarize.keepRecnt');
    expect(error.message).toMatch(/^summarize\.keepRecnt: unknown key; did you mean "keepRecentTokens"/);
    expect(error.message).toContain('"keepRecentMessages"');
  });

  it('suggests a single close key for a plain typo', () => {
    const error = errorOf(() => parsePolicy({ clearing: { placeholdr: 'x' } }));
    expect(error.message).toBe('clearing.placeholdr: unknown key; did you mean "placeholder"?');
  });

  it("offers the seeds' names, with their meaning, as candidates at the top level", () => {
    const error = errorOf(() => parsePolicy({ KeepRecnt: 3 }));
    expect(error.key).toBe('KeepRecnt');
    expect(error.message).toContain('"KeepRecent" (tiancai: summarize.keepRecentMessages)');
  });

  it('names the key and what was expected for a wrong type', () => {
    const error = errorOf(() => parsePolicy({ summarize: { trigger: 'high' } }));
    expect(error.message).toBe('summarize.trigger: expected a number, got a string ("high")');
  });

  it('names the key and the bound for an out-of-range value', () => {
    expect(errorOf(() => parsePolicy({ summarize: { trigger: 1.5 } })).message).toBe(
      'summarize.trigger: must be ≤ 1, got a number (1.5)',
    );
    expect(errorOf(() => parsePolicy({ budget: { contextWindow: -1 } })).message).toBe(
      'budget.contextWindow: must be ≥ 0, got a number (-1)',
    );
    expect(errorOf(() => parsePolicy({ budget: { maxSteps: 2.5 } })).message).toContain(
      'expected an integer',
    );
  });

  it('suggests the nearest enum value', () => {
    const error = errorOf(() => parsePolicy({ summarize: { placement: 'system_prompt' } }));
    expect(error.message).toContain('got a string ("system_prompt"); did you mean "system-prompt"?');
  });

  it('validates hooks, with array indices in the path', () => {
    const error = errorOf(() =>
      parsePolicy({
        hooks: [
          {
            id: 'h',
            on: 'turn_end',
            condition: { type: 'turn_cnt', every: 10 },
            action: { type: 'compact_context' },
          },
        ],
      }),
    );
    expect(error.key).toBe('hooks[0].condition.type');
    expect(error.message).toContain('did you mean "turn_count"?');
  });

  it('lists every problem, not only the first', () => {
    const error = errorOf(() => parsePolicy({ summarize: { trigger: 2, keepRecnt: 1 } }));
    const issues = error.details.issues as { key: string }[];
    expect(issues.map((issue) => issue.key).sort()).toEqual(['summarize.keepRecnt', 'summarize.trigger']);
    expect(error.message).toContain('and 1 more');
  });

  it('rejects input that is not an object', () => {
    expect(errorOf(() => parsePolicy(['x'])).message).toContain(
      'expected an object of settings, got an array',
    );
  });

  it("accepts the seeds' value spellings in ctxkit fields (llm/heuristic, truncate)", () => {
    expect(parsePolicy({ archive: { strategy: 'llm' } })).toEqual({ archive: { strategy: 'model' } });
    expect(parsePolicy({ archive: { strategy: 'heuristic' } })).toEqual({
      archive: { strategy: 'extractive' },
    });
    expect(parsePolicy({ summarize: { strategy: 'truncate' } })).toEqual({ summarize: { strategy: 'drop' } });
  });
});

describe('parsePolicy: seed names', () => {
  it('translates cowagent names, with the rule each carries', () => {
    expect(
      parsePolicy({ agent_max_context_tokens: 80_000, agent_max_context_turns: 30, agent_max_steps: 9 }),
    ).toEqual({
      budget: { maxContextTokens: 80_000, maxContextTokensWhen: 'always', maxSteps: 9 },
      trim: { maxTurns: 30, enabled: true },
    });
  });

  it('translates tiancai names (compact.Config and ToolOutputLimits)', () => {
    const parsed = parsePolicyWithOrigins({
      MaxMessages: 30,
      KeepRecent: 4,
      KeepRecentTokens: 8_000,
      ReserveTokens: 4_096,
      ToolCallCutoff: 6,
      ToolSummaryStrategy: 'heuristic',
      AutoCompact: false,
      MaxLines: 100,
      MaxBytes: 2_048,
      MaxChars: 4_096,
      LargeOutputThreshold: 10_000,
      TruncateMode: 'head',
    });
    expect(parsed.dialect).toBe('tiancai');
    expect(parsed.override).toEqual({
      summarize: {
        maxMessages: 30,
        maxMessagesWhen: 'no-token-limit',
        keepRecentMessages: 4,
        keepRecentTokens: 8_000,
        auto: false,
      },
      budget: { reserveTokens: 4_096 },
      archive: { toolCallCutoff: 6, strategy: 'extractive' },
      toolOutput: {
        maxLines: 100,
        maxBytes: 2_048,
        maxChars: 4_096,
        spillThresholdChars: 10_000,
        truncateMode: 'head',
      },
    });
    expect(parsed.origins['summarize.maxMessages']).toBe('MaxMessages');
    expect(parsed.origins['archive.strategy']).toBe('ToolSummaryStrategy');
  });

  it('MaxTokens means the fallback token limit in tiancai and the output limit in picoclaw', () => {
    expect(parsePolicy({ MaxTokens: 8_000 }, { dialect: 'tiancai' })).toEqual({
      budget: { maxContextTokens: 8_000, maxContextTokensWhen: 'no-window' },
    });
    expect(parsePolicy({ MaxTokens: 8_000 }, { dialect: 'picoclaw' })).toEqual({
      budget: { maxOutputTokens: 8_000 },
    });
  });

  it("picoclaw's MaxTokens / max_tokens of 0 is unset, which picoclaw reads as 8192; tiancai's and digitorn's 0 stay 0", () => {
    for (const key of ['MaxTokens', 'max_tokens']) {
      expect(parsePolicy({ [key]: 0 }, { dialect: 'picoclaw' })).toEqual({
        budget: { maxOutputTokens: 8_192 },
      });
    }
    expect(parsePolicy({ MaxTokens: 0 }, { dialect: 'tiancai' })).toEqual({
      budget: { maxContextTokens: 0, maxContextTokensWhen: 'no-window' },
    });
    expect(parsePolicy({ max_tokens: 0 }, { dialect: 'digitorn' })).toEqual({ budget: { contextWindow: 0 } });
    // Anything else is left for the schema to judge, under the name written.
    expect(errorOf(() => parsePolicy({ MaxTokens: -1 }, { dialect: 'picoclaw' })).key).toBe('MaxTokens');
  });

  it('infers the dialect of an ambiguous name from the other names present', () => {
    expect(parsePolicy({ MaxTokens: 8_000, ContextWindow: 64_000 })).toEqual({
      budget: { maxOutputTokens: 8_000, contextWindow: 64_000 },
    });
    expect(parsePolicy({ MaxTokens: 8_000, KeepRecent: 2 })).toEqual({
      budget: { maxContextTokens: 8_000, maxContextTokensWhen: 'no-window' },
      summarize: { keepRecentMessages: 2 },
    });
  });

  it('refuses an ambiguous name it cannot place, listing its meanings', () => {
    const error = errorOf(() => parsePolicy({ MaxTokens: 8_000 }));
    expect(error.key).toBe('MaxTokens');
    expect(error.message).toContain('in tiancai (001) budget.maxContextTokens');
    expect(error.message).toContain('in picoclaw (004) budget.maxOutputTokens');
    expect(errorOf(() => parsePolicy({ MaxTokens: 1 }, { dialect: 'cowagent' })).message).toContain(
      'not a cowagent setting',
    );
  });

  it("max_tokens is digitorn's context window (0 = auto) and picoclaw's output limit", () => {
    expect(parsePolicy({ max_tokens: 65_536 }, { dialect: 'digitorn' })).toEqual({
      budget: { contextWindow: 65_536 },
    });
    expect(parsePolicy({ max_tokens: 4_096 }, { dialect: 'picoclaw' })).toEqual({
      budget: { maxOutputTokens: 4_096 },
    });
    expect(parsePolicy({ max_tokens: 0, output_reserved: 2_048 })).toEqual({
      budget: { contextWindow: 0, maxOutputTokens: 2_048 },
    });
  });

  it("reads digitorn's runtime.context block, translating truncate to drop and summary_brain to summarize.model", () => {
    const parsed = parsePolicyWithOrigins({
      runtime: {
        context: {
          max_tokens: 200_000,
          output_reserved: 4_096,
          strategy: 'truncate',
          keep_recent: 10,
          compression_trigger: 0.75,
          summary_max_tokens: 1_024,
          auto_compact: true,
          summary_brain: {
            provider: 'deepseek',
            model: 'deepseek-chat',
            backend: 'openai_compat',
            config: { api_key: '{{secret.DEEPSEEK_API_KEY}}' },
            temperature: 0,
            max_tokens: 1_024,
          },
        },
      },
    });
    expect(parsed.dialect).toBe('digitorn');
    expect(parsed.override).toEqual({
      budget: { contextWindow: 200_000, maxOutputTokens: 4_096 },
      summarize: {
        strategy: 'drop',
        keepRecentMessages: 10,
        keepRecentTokens: 0,
        keepRecentFraction: 0,
        keepRecentTurns: 0,
        trigger: 0.75,
        maxSummaryTokens: 1_024,
        auto: true,
        model: {
          provider: 'deepseek',
          model: 'deepseek-chat',
          backend: 'openai_compat',
          apiKeyEnv: 'DEEPSEEK_API_KEY',
          temperature: 0,
          maxTokens: 1_024,
        },
      },
    });
    expect(parsed.origins['summarize.trigger']).toBe('runtime.context.compression_trigger');
  });

  it('keep_last is an alias of keep_recent', () => {
    expect(parsePolicy({ keep_last: 6 })).toMatchObject({ summarize: { keepRecentMessages: 6 } });
  });

  it('refuses a literal API key in summary_brain', () => {
    const error = errorOf(() =>
      parsePolicy({ summary_brain: { model: 'm', config: { api_key: 'sk-live-123' } } }),
    );
    expect(error.key).toBe('summary_brain.config.api_key');
    expect(error.message).not.toContain('sk-live-123');
  });

  it("accepts digitorn's hook spellings (cooldown, keep_recent, summary_max_tokens) under runtime.hooks", () => {
    const parsed = parsePolicyWithOrigins({
      runtime: {
        hooks: [
          {
            id: 'every-10',
            on: 'turn_start',
            condition: { type: 'turn_count', every: 10 },
            action: {
              type: 'compact_context',
              strategy: 'truncate',
              keep_recent: 8,
              summary_max_tokens: 512,
            },
            cooldown: 30.0,
          },
        ],
      },
    });
    expect(parsed.override.hooks).toEqual([
      {
        id: 'every-10',
        on: 'turn_start',
        condition: { type: 'turn_count', every: 10 },
        action: { type: 'compact_context', strategy: 'drop', keepRecent: 8, summaryMaxTokens: 512 },
        cooldownSeconds: 30,
      },
    ]);
    expect(parsed.origins.hooks).toBe('runtime.hooks');
  });

  it("gives a context_pressure condition without a threshold digitorn's default of 0.75", () => {
    const hook = {
      id: 'pressure',
      on: 'turn_start',
      condition: { type: 'context_pressure' },
      action: { type: 'compact_context' },
    };
    expect(parsePolicy({ runtime: { hooks: [hook] } }).hooks?.[0]?.condition).toEqual({
      type: 'context_pressure',
      threshold: 0.75,
    });
    const explicit = { ...hook, condition: { type: 'context_pressure', threshold: 0.6 } };
    expect(parsePolicy({ hooks: [explicit] }).hooks?.[0]?.condition).toEqual({
      type: 'context_pressure',
      threshold: 0.6,
    });
  });

  it('reports errors inside a seed block under the key as written', () => {
    const error = errorOf(() => parsePolicy({ runtime: { context: { compression_trigger: 7 } } }));
    expect(error.key).toBe('runtime.context.compression_trigger');
    expect(error.message).toContain('(sets summarize.trigger)');
    expect(errorOf(() => parsePolicy({ runtime: { context: { keep_recnt: 3 } } })).key).toBe(
      'runtime.context.keep_recnt',
    );
    expect(errorOf(() => parsePolicy({ runtime: { tools: {} } })).message).toContain(
      'ctxkit reads runtime.context',
    );
  });

  it("translates picoclaw's config names (percent → fraction)", () => {
    expect(
      parsePolicy({ summarize_message_threshold: 30, summarize_token_percent: 80, context_window: 131_072 }),
    ).toEqual({
      summarize: { maxMessages: 30, maxMessagesWhen: 'always', trigger: 0.8 },
      budget: { contextWindow: 131_072 },
    });
  });

  it('translates the deepagents middleware parameter names', () => {
    expect(
      parsePolicy({
        tool_token_limit_before_evict: 10_000,
        clear_at_least: 500,
        exclude_tools: ['write_todos'],
      }),
    ).toEqual({
      toolOutput: { spillThresholdTokens: 10_000 },
      clearing: { minFreedTokens: 500, excludeTools: ['write_todos'] },
    });
  });

  it('refuses the same field set twice under two names', () => {
    const error = errorOf(() => parsePolicy({ MaxMessages: 3, summarize: { maxMessages: 4 } }));
    expect(error.message).toContain('also set by "MaxMessages"');
  });

  it('with dialect "ctxkit", seed names are refused', () => {
    expect(errorOf(() => parsePolicy({ KeepRecent: 3 }, { dialect: 'ctxkit' })).message).toContain(
      'not accepted with dialect "ctxkit"',
    );
  });
});
