import { describe, expect, it } from 'vitest';
import { InvalidPolicyError } from '../errors/index.ts';
import { parsePolicy } from './parse-policy.ts';
import type { PolicyDialect } from './policy-aliases.ts';

/** The error parsing `input` raises (the test fails if it parses). */
function errorOf(input: unknown, dialect: PolicyDialect = 'auto'): InvalidPolicyError {
  try {
    parsePolicy(input, { dialect });
  } catch (error) {
    if (InvalidPolicyError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`parsed: ${JSON.stringify(input)}`);
}

const hook = (extra: Record<string, unknown> = {}, action: Record<string, unknown> = {}) => ({
  id: 'mine',
  on: 'turn_start',
  condition: { type: 'context_pressure' },
  action: { type: 'compact_context', ...action },
  ...extra,
});

describe('errors about a seed-named setting speak the seed', () => {
  it("list the seed's values for a seed's enum, never ctxkit's, and refuse ctxkit's values under the seed's name", () => {
    const cases: [Record<string, unknown>, PolicyDialect, string][] = [
      [
        { ToolSummaryStrategy: 'summary' },
        'tiancai',
        'ToolSummaryStrategy: expected one of "llm" | "heuristic" | "off"',
      ],
      [
        { ToolSummaryStrategy: 'extractive' },
        'tiancai',
        'ToolSummaryStrategy: expected one of "llm" | "heuristic" | "off"',
      ],
      [{ TruncateMode: 'tail' }, 'tiancai', 'TruncateMode: expected one of "head" | "head_tail"'],
      [{ strategy: 'drop' }, 'digitorn', 'strategy: expected one of "truncate" | "summarize"'],
      [
        { runtime: { context: { strategy: 'compress' } } },
        'auto',
        'runtime.context.strategy: expected one of "truncate" | "summarize"',
      ],
      [
        { runtime: { hooks: [hook({}, { strategy: 'drop' })] } },
        'auto',
        'runtime.hooks[0].action.strategy: expected one of "truncate" | "summarize"',
      ],
    ];
    for (const [input, dialect, message] of cases) {
      const error = errorOf(input, dialect);
      // The list ends where the value received begins: nothing of ctxkit's vocabulary in it.
      expect(error.message.startsWith(`${message}, got `), error.message).toBe(true);
    }
  });

  it("suggest the nearest of the seed's values, and say what the value is when it is not a string", () => {
    expect(errorOf({ ToolSummaryStrategy: 'heuristics' }).message).toContain('did you mean "heuristic"?');
    expect(errorOf({ ToolSummaryStrategy: 'heuristics' }).details.suggestions).toEqual(['heuristic']);
    expect(errorOf({ runtime: { context: { strategy: 'sumarize' } } }).message).toContain(
      'did you mean "summarize"?',
    );
    expect(errorOf({ ToolSummaryStrategy: 3 }).message).toBe(
      'ToolSummaryStrategy: expected one of "llm" | "heuristic" | "off", got a number (3) (sets archive.strategy)',
    );
  });

  it("accept exactly the seed's values, translated to ctxkit's", () => {
    expect(parsePolicy({ ToolSummaryStrategy: 'llm' }).archive?.strategy).toBe('model');
    expect(parsePolicy({ ToolSummaryStrategy: 'heuristic' }).archive?.strategy).toBe('extractive');
    expect(parsePolicy({ ToolSummaryStrategy: 'off' }).archive?.strategy).toBe('off');
    expect(parsePolicy({ TruncateMode: 'head' }).toolOutput?.truncateMode).toBe('head');
    expect(parsePolicy({ TruncateMode: 'head_tail' }).toolOutput?.truncateMode).toBe('head_tail');
    expect(parsePolicy({ strategy: 'truncate' }, { dialect: 'digitorn' }).summarize?.strategy).toBe('drop');
    expect(parsePolicy({ strategy: 'summarize' }, { dialect: 'digitorn' }).summarize?.strategy).toBe(
      'summarize',
    );
    const hooks = parsePolicy({ runtime: { hooks: [hook({}, { strategy: 'truncate' })] } }).hooks;
    expect(hooks?.[0]?.action.strategy).toBe('drop');
    // ctxkit's own key keeps ctxkit's values (and the seed spelling it always took).
    expect(parsePolicy({ archive: { strategy: 'extractive' } }).archive?.strategy).toBe('extractive');
    expect(parsePolicy({ hooks: [hook({}, { strategy: 'drop' })] }).hooks?.[0]?.action.strategy).toBe('drop');
  });

  it('name the key as written inside a seed block: summary_brain fields and renamed hook keys', () => {
    expect(
      errorOf({ runtime: { context: { summary_brain: { model: 'm', max_tokens: 'x' } } } }).message,
    ).toBe(
      'runtime.context.summary_brain.max_tokens: expected a number, got a string ("x") (sets summarize.model.maxTokens)',
    );
    expect(
      errorOf({ runtime: { context: { summary_brain: { model: 'm', config: { base_url: 'nope' } } } } }).key,
    ).toBe('runtime.context.summary_brain.config.base_url');
    expect(errorOf({ runtime: { hooks: [hook({ cooldown: -2 })] } }).key).toBe('runtime.hooks[0].cooldown');
    expect(errorOf({ runtime: { hooks: [hook({}, { keep_recent: -1 })] } }).key).toBe(
      'runtime.hooks[0].action.keep_recent',
    );
    expect(errorOf({ hooks: [hook({}, { summary_max_tokens: 'a' })] }).key).toBe(
      'hooks[0].action.summary_max_tokens',
    );
  });

  it("check a percentage against the percentage written, not the fraction it becomes (004's summarize_token_percent)", () => {
    expect(errorOf({ summarize_token_percent: 150 }).message).toBe(
      'summarize_token_percent: must be a percentage from 0 to 100, got a number (150) (sets summarize.trigger)',
    );
    expect(errorOf({ summarize_token_percent: -5 }).key).toBe('summarize_token_percent');
    expect(parsePolicy({ summarize_token_percent: 75 }).summarize?.trigger).toBe(0.75);
  });
});
