import { describe, expect, it } from 'vitest';
import { InvalidConfigError, InvalidInputError, InvalidPolicyError } from '../../errors/index.ts';
import { DIGITORN_POLICY, TIANCAI_POLICY } from '../presets/index.ts';
import { envNameFor, policyEnvNames } from './env-overrides.ts';
import { resolveConfig } from './resolve-config.ts';

function errorOf(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('expected an error');
}

const DIGITORN_FILE = `# app config
preset: digitorn
runtime:
  context:
    keep_recent: 12
    compression_trigger: 0.7
agents:
  explorer:
    budget:
      contextWindow: 65536
    summarize:
      strategy: truncate
`;

describe('resolveConfig: layering and provenance', () => {
  it('with nothing given, is the default preset, every value sourced to it', () => {
    const resolved = resolveConfig();
    expect(resolved.preset).toBe('default');
    expect(resolved.sources['summarize.trigger']).toBe('preset:default');
    expect(Object.values(resolved.sources).every((source) => source === 'preset:default')).toBe(true);
  });

  it('layers preset < file < agent block < env < flags, recording where each value came from', () => {
    const resolved = resolveConfig({
      fileText: DIGITORN_FILE,
      fileName: 'ctxkit.yaml',
      env: { CTXKIT_SUMMARIZE__MAX_SUMMARY_TOKENS: '2048', CTXKIT_BUDGET__CONTEXT_WINDOW: '90000' },
      flags: { window: '100000', agent: 'explorer' },
    });
    const { policy, sources } = resolved;
    expect(resolved.preset).toBe('digitorn');
    expect(resolved.presetSource).toBe('file:ctxkit.yaml#preset');
    expect(resolved.agent).toBe('explorer');

    expect(policy.summarize.keepRecentMessages).toBe(12);
    expect(sources['summarize.keepRecentMessages']).toBe('file:ctxkit.yaml#runtime.context.keep_recent');
    expect(policy.summarize.trigger).toBe(0.7);
    expect(sources['summarize.trigger']).toBe('file:ctxkit.yaml#runtime.context.compression_trigger');
    expect(policy.summarize.strategy).toBe('drop');
    expect(sources['summarize.strategy']).toBe('file:ctxkit.yaml#agents.explorer.summarize.strategy');
    expect(policy.summarize.maxSummaryTokens).toBe(2_048);
    expect(sources['summarize.maxSummaryTokens']).toBe('env:CTXKIT_SUMMARIZE__MAX_SUMMARY_TOKENS');
    // file agent block 65536 < env 90000 < flag 100000
    expect(policy.budget.contextWindow).toBe(100_000);
    expect(sources['budget.contextWindow']).toBe('flag:--window');
    // Untouched values keep the preset's.
    expect(policy.summarize.cooldownSeconds).toBe(DIGITORN_POLICY.summarize.cooldownSeconds);
    expect(sources['summarize.cooldownSeconds']).toBe('preset:digitorn');
  });

  it('without the agent selected, the agent block does not apply', () => {
    const resolved = resolveConfig({ fileText: DIGITORN_FILE, fileName: 'ctxkit.yaml' });
    expect(resolved.policy.budget.contextWindow).toBe(DIGITORN_POLICY.budget.contextWindow);
    expect(resolved.agents).toEqual(['explorer']);
  });

  it('the preset is chosen by the highest layer that names one', () => {
    const file = 'preset: digitorn\n';
    expect(resolveConfig({ fileText: file, preset: 'picoclaw' }).preset).toBe('digitorn');
    expect(resolveConfig({ fileText: file, env: { CTXKIT_PRESET: 'tiancai' } }).preset).toBe('tiancai');
    const flagged = resolveConfig({
      fileText: file,
      env: { CTXKIT_PRESET: 'tiancai' },
      flags: { preset: 'cowagent' },
    });
    expect(flagged.preset).toBe('cowagent');
    expect(flagged.presetSource).toBe('flag:--preset');
    expect(resolveConfig({ preset: 'picoclaw' }).preset).toBe('picoclaw');
  });

  it("reads digitorn's agents list form (brain.model, brain.context)", () => {
    const file = `agents:
  - id: writer
    brain:
      model: claude-sonnet-4-5
      context:
        max_tokens: 200000
        keep_recent: 8
`;
    const resolved = resolveConfig({ fileText: file, fileName: 'app.yaml', agent: 'writer' });
    expect(resolved.policy.model).toBe('claude-sonnet-4-5');
    expect(resolved.policy.budget.contextWindow).toBe(200_000);
    expect(resolved.sources['summarize.keepRecentMessages']).toBe(
      'file:app.yaml#agents[0].brain.context.keep_recent',
    );
  });

  it('reads JSON files and seed names in them', () => {
    const resolved = resolveConfig({
      fileText: '{ "preset": "tiancai", "KeepRecentTokens": 8000, "ToolSummaryStrategy": "off" }',
      fileName: 'ctxkit.json',
    });
    expect(resolved.policy.summarize.keepRecentTokens).toBe(8_000);
    expect(resolved.policy.archive.strategy).toBe('off');
    expect(resolved.policy.summarize.maxMessages).toBe(TIANCAI_POLICY.summarize.maxMessages);
    expect(resolved.sources['archive.strategy']).toBe('file:ctxkit.json#ToolSummaryStrategy');
  });

  it('a file `dialect:` resolves ambiguous names', () => {
    const resolved = resolveConfig({ fileText: 'dialect: picoclaw\nMaxTokens: 16384\n' });
    expect(resolved.policy.budget.maxOutputTokens).toBe(16_384);
  });
});

describe('resolveConfig: environment variables', () => {
  it('reads typed values: numbers (with _), booleans, lists, enums, JSON', () => {
    const { policy, sources } = resolveConfig({
      env: {
        CTXKIT_MODEL: 'gpt-4o',
        CTXKIT_SUMMARIZE__KEEP_RECENT_TOKENS: '12_000',
        CTXKIT_SUMMARIZE__OFFLOAD_TRANSCRIPT: 'no',
        CTXKIT_CLEARING__EXCLUDE_TOOLS: 'read_file, grep',
        CTXKIT_EMERGENCY__SEQUENCE: '["drop-to-fit"]',
        CTXKIT_TOKENS__COUNTER: 'calibrated',
        CTXKIT_HOOKS:
          '[{"id":"every10","on":"turn_end","condition":{"type":"turn_count","every":10},"action":{"type":"compact_context"}}]',
      },
    });
    expect(policy.model).toBe('gpt-4o');
    expect(policy.summarize.keepRecentTokens).toBe(12_000);
    expect(policy.summarize.offloadTranscript).toBe(false);
    expect(policy.clearing.excludeTools).toEqual(['read_file', 'grep']);
    expect(policy.tokens.counter).toBe('calibrated');
    expect(policy.hooks.map((hook) => hook.id)).toEqual(['every10']);
    expect(sources.hooks).toBe('env:CTXKIT_HOOKS');
    expect(sources.model).toBe('env:CTXKIT_MODEL');
  });

  it('names the variable for a value of the wrong type', () => {
    const error = errorOf(() => resolveConfig({ env: { CTXKIT_SUMMARIZE__TRIGGER: 'abc' } }));
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect(error.message).toBe('CTXKIT_SUMMARIZE__TRIGGER: summarize.trigger: expected a number, got "abc"');
    expect((error as InvalidConfigError).source).toBe('env:CTXKIT_SUMMARIZE__TRIGGER');
  });

  it('names the variable for a value out of range or not allowed', () => {
    expect(errorOf(() => resolveConfig({ env: { CTXKIT_SUMMARIZE__TRIGGER: '1.5' } })).message).toMatch(
      /^CTXKIT_SUMMARIZE__TRIGGER: summarize\.trigger: must be ≤ 1/,
    );
    expect(errorOf(() => resolveConfig({ env: { CTXKIT_TOKENS__COUNTER: 'exactt' } })).message).toContain(
      'did you mean "exact"?',
    );
    expect(errorOf(() => resolveConfig({ env: { CTXKIT_SUMMARIZE__AUTO: 'maybe' } })).message).toContain(
      'expected true or false',
    );
  });

  it('a misspelled policy variable is an error with the nearest variable name', () => {
    const error = errorOf(() => resolveConfig({ env: { CTXKIT_SUMARIZE__TRIGGER: '0.9' } }));
    expect(error.message).toContain('CTXKIT_SUMARIZE__TRIGGER');
    expect(error.message).toContain('did you mean "CTXKIT_SUMMARIZE__TRIGGER"?');
  });

  it('leaves other CTXKIT_ variables alone', () => {
    expect(() =>
      resolveConfig({ env: { CTXKIT_CONFIG: 'x.yaml', CTXKIT_DATABASE_URL: 'postgres://' } }),
    ).not.toThrow();
  });

  it('names every policy field as a variable', () => {
    expect(envNameFor(['summarize', 'keepRecentTokensMaxFraction'])).toBe(
      'CTXKIT_SUMMARIZE__KEEP_RECENT_TOKENS_MAX_FRACTION',
    );
    expect(policyEnvNames()).toContain('CTXKIT_BUDGET__CONTEXT_WINDOW');
  });

  it('a rule broken across layers names the key and the layer that broke it', () => {
    const error = errorOf(() =>
      resolveConfig({
        fileText: 'clearing:\n  trigger: 0.6\n',
        fileName: 'ctxkit.yaml',
        env: { CTXKIT_SUMMARIZE__TRIGGER: '0.5' },
      }),
    );
    expect(error.message).toBe(
      'file:ctxkit.yaml#clearing.trigger, with env:CTXKIT_SUMMARIZE__TRIGGER: clearing.trigger: must be below summarize.trigger (0.5): clearing is the cheaper layer and runs first',
    );
  });
});

describe('resolveConfig: flags', () => {
  it('accepts policy paths and short names, text or typed', () => {
    const { policy, sources } = resolveConfig({
      flags: { 'summarize.trigger': '0.9', 'max-output': 2_048, model: 'gpt-4.1', 'clearing.enabled': false },
    });
    expect(policy.summarize.trigger).toBe(0.9);
    expect(policy.budget.maxOutputTokens).toBe(2_048);
    expect(policy.clearing.enabled).toBe(false);
    expect(sources['budget.maxOutputTokens']).toBe('flag:--max-output');
    expect(sources['summarize.trigger']).toBe('flag:--summarize.trigger');
  });

  it('an unknown flag is an error with a suggestion; undefined flags are ignored', () => {
    expect(errorOf(() => resolveConfig({ flags: { windw: '5' } })).message).toBe(
      '--windw: windw: unknown option; did you mean "window"?',
    );
    expect(() => resolveConfig({ flags: { window: undefined } })).not.toThrow();
  });

  it('an unknown preset names the source and the nearest preset', () => {
    const error = errorOf(() => resolveConfig({ flags: { preset: 'tiancia' } }));
    expect(error.message).toContain('flag:--preset');
    expect(error.message).toContain('did you mean "tiancai"?');
  });
});

describe('resolveConfig: bad files', () => {
  it('names the file, the line and the key for an unknown key', () => {
    const error = errorOf(() =>
      resolveConfig({ fileText: 'summarize:\n  trigger: 0.9\n  keepRecnt: 3\n', fileName: 'c.yaml' }),
    );
    expect(error).toBeInstanceOf(InvalidConfigError);
    expect(error).toBeInstanceOf(InvalidPolicyError);
    expect((error as InvalidConfigError).code).toBe('invalid_config');
    expect((error as InvalidConfigError).line).toBe(3);
    expect(error.message).toMatch(/^c\.yaml:3: summarize\.keepRecnt: unknown key; did you mean/);
  });

  it('names the line of a bad value inside an agent block', () => {
    const error = errorOf(() =>
      resolveConfig({
        fileText: 'agents:\n  a:\n    summarize:\n      trigger: high\n',
        fileName: 'c.yaml',
        agent: 'a',
      }),
    );
    expect(error.message).toBe(
      'c.yaml:4: agents.a.summarize.trigger: expected a number, got a string ("high")',
    );
  });

  it('YAML syntax errors are InvalidInputError with file and line', () => {
    const error = errorOf(() =>
      resolveConfig({ fileText: 'summarize:\n  trigger: [1\n', fileName: 'c.yaml' }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).file).toBe('c.yaml');
    expect((error as InvalidInputError).line).toBeGreaterThanOrEqual(2);
  });

  it('JSON syntax errors name the line when the parser gives a position', () => {
    const error = errorOf(() =>
      resolveConfig({ fileText: '{\n  "summarize": {\n    "trigger": 0.5,\n  }\n}', fileName: 'c.json' }),
    );
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error.message).toMatch(/^c\.json, line 4: invalid JSON/);
  });

  it('rejects duplicate keys', () => {
    expect(() => resolveConfig({ fileText: 'model: a\nmodel: b\n', fileName: 'c.yaml' })).toThrow(
      InvalidInputError,
    );
  });

  it('rejects a top level that is not a mapping, and a bad dialect', () => {
    expect(errorOf(() => resolveConfig({ fileText: '- a\n', fileName: 'c.yaml' })).message).toContain(
      'expected a mapping of settings at the top',
    );
    expect(
      errorOf(() => resolveConfig({ fileText: 'dialect: digitron\n', fileName: 'c.yaml' })).message,
    ).toContain('did you mean "digitorn"?');
  });

  it('an unknown agent names the agents the file has', () => {
    const error = errorOf(() =>
      resolveConfig({ fileText: 'agents:\n  explorer: {}\n', flags: { agent: 'explorr' } }),
    );
    expect(error.message).toContain('no agent "explorr"');
    expect(error.message).toContain('did you mean "explorer"?');
  });

  it('an empty file is an empty config', () => {
    expect(resolveConfig({ fileText: '', fileName: 'c.yaml' }).preset).toBe('default');
  });
});
