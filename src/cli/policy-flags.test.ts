import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CtxkitError, FlagError, InvalidConfigError } from '../core/errors/index.ts';
import { parseCountFlag } from './parse-count-flag.ts';
import { configOptionsFromFlags, inUserWords, loadConfigFromFlags, sourceAsTyped } from './policy-flags.ts';

describe('parseCountFlag', () => {
  it('reads whole numbers, with or without group separators', () => {
    const tokens = { unit: 'tokens', zero: 'the profile' };
    expect(parseCountFlag('--window', undefined, tokens)).toBeUndefined();
    expect(parseCountFlag('--window', '0', tokens)).toBe(0);
    expect(parseCountFlag('--window', ' 16000 ', tokens)).toBe(16_000);
    expect(parseCountFlag('--window', '128_000', tokens)).toBe(128_000);
    expect(parseCountFlag('--window', '1,000,000', tokens)).toBe(1_000_000);
  });

  it('refuses anything else, naming the flag, what it takes and what it got', () => {
    for (const bad of [
      'abc',
      '-5',
      '1.5',
      '1e5',
      '',
      ' ',
      '0x10',
      '12,34',
      'Infinity',
      '99999999999999999999',
    ]) {
      expect(() => parseCountFlag('--window', bad, { unit: 'tokens', zero: 'the profile' }), bad).toThrow(
        FlagError,
      );
    }
    expect(() =>
      parseCountFlag('--window', 'abc', { unit: 'tokens', zero: "the model profile's window" }),
    ).toThrow(
      `--window: expected a whole number of tokens, 0 or more (0 = the model profile's window), got "abc"`,
    );
    expect(() => parseCountFlag('--days', '0', { unit: 'days' })).toThrow(
      '--days: expected a whole number of days, 1 or more, got "0"',
    );
  });
});

describe('configOptionsFromFlags', () => {
  it('passes numbers typed and records the flag the user typed for each value', () => {
    const options = configOptionsFromFlags({
      policy: 'tiancai',
      window: '16000',
      maxOutput: '0',
      model: 'gpt-4o',
      set: ['summarize.trigger=0.8'],
    });
    expect(options.flags).toEqual({
      preset: 'tiancai',
      window: 16_000,
      'max-output': 0,
      model: 'gpt-4o',
      'summarize.trigger': '0.8',
    });
    expect(options.flagNames).toEqual({
      preset: '--policy',
      window: '--window',
      'max-output': '--max-output',
      model: '--model',
      'summarize.trigger': '--set summarize.trigger',
    });
  });

  it('reads the seeds’ own names in --set, as a config file does, each field named by the --set typed', () => {
    const options = configOptionsFromFlags({
      set: ['compression_trigger=0.7', 'KeepRecentTokens=5000', 'agent_max_context_turns=10'],
    });
    expect(options.flags).toEqual({
      'summarize.trigger': 0.7,
      'summarize.keepRecentTokens': 5000,
      'trim.maxTurns': 10,
      'trim.enabled': true,
    });
    expect(options.flagNames).toEqual({
      'summarize.trigger': '--set compression_trigger',
      'summarize.keepRecentTokens': '--set KeepRecentTokens',
      'trim.maxTurns': '--set agent_max_context_turns',
      'trim.enabled': '--set agent_max_context_turns',
    });
    // A percentage is read as a number before the seed's translation divides it.
    expect(configOptionsFromFlags({ set: ['summarize_token_percent=75'] }).flags).toEqual({
      'summarize.trigger': 0.75,
    });
  });

  it('reads an ambiguous seed name in the --policy preset’s dialect, and refuses it without one', () => {
    expect(configOptionsFromFlags({ policy: 'picoclaw', set: ['MaxTokens=1000'] }).flags).toEqual({
      preset: 'picoclaw',
      'budget.maxOutputTokens': 1000,
    });
    expect(configOptionsFromFlags({ policy: 'tiancai', set: ['MaxTokens=1000'] }).flags).toMatchObject({
      'budget.maxContextTokens': 1000,
      'budget.maxContextTokensWhen': 'no-window',
    });
    expect(() => configOptionsFromFlags({ set: ['MaxTokens=1000'] })).toThrow(
      /^--set MaxTokens: ambiguous seed name: .*--policy tiancai or --policy picoclaw/,
    );
  });

  it('refuses a seed name and a ctxkit key that set the same field', () => {
    expect(() =>
      configOptionsFromFlags({ set: ['summarize.trigger=0.5', 'compression_trigger=0.7'] }),
    ).toThrow(
      '--set compression_trigger: sets summarize.trigger, which is also set by --set summarize.trigger; keep one of them',
    );
  });

  it('suggests seed names too for an unknown --set key', () => {
    expect(() => configOptionsFromFlags({ set: ['compresion_trigger=0.7'] })).toThrow(
      '--set compresion_trigger: unknown policy key; did you mean "compression_trigger" (digitorn: summarize.trigger)?',
    );
  });

  it('refuses a --set without key=value, and bad numbers, naming the flag', () => {
    expect(() => configOptionsFromFlags({ set: ['foo'] })).toThrow('--set: expected key=value');
    expect(() => configOptionsFromFlags({ set: ['=5'] })).toThrow('--set: expected key=value');
    expect(() => configOptionsFromFlags({ window: '-1' })).toThrow(/^--window: /);
    expect(() => configOptionsFromFlags({ maxOutput: '2.5' })).toThrow(/^--max-output: /);
  });
});

describe('errors in the user’s words', () => {
  const load = async (flags: Parameters<typeof loadConfigFromFlags>[0]) => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxkit-flags-'));
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      return await loadConfigFromFlags(flags);
    } finally {
      process.chdir(cwd);
      await rm(dir, { recursive: true, force: true });
    }
  };

  it('an unknown preset names --policy, never the internal --preset', async () => {
    const failure = load({ policy: 'defualt' });
    await expect(failure).rejects.toThrow(/^--policy: unknown preset "defualt"; did you mean "default"\?/);
    await expect(load({ policy: 'defualt' })).rejects.not.toThrow(/preset:|flag:/);
  });

  it('a --policy that looks like a missing file says no such file', async () => {
    await expect(load({ policy: 'mine.yaml' })).rejects.toThrow(/^--policy: no such file: mine\.yaml/);
  });

  it('a --set key names --set and the key once', async () => {
    await expect(load({ set: ['summarize.trigger=2'] })).rejects.toThrow(
      /^--set summarize\.trigger: must be ≤ 1/,
    );
    await expect(load({ set: ['summarize.trigers=0.5'] })).rejects.toThrow(
      /^--set summarize\.trigers: unknown policy key; did you mean "summarize\.trigger"\?/,
    );
  });

  it('a --set key with a space, a non-ASCII letter or a newline is named whole, as typed', async () => {
    for (const key of ['foo bar', 'café', 'summarize.trigger x', 'a\nb']) {
      const failure = await load({ set: [`${key}=1`] }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(FlagError);
      expect((failure as FlagError).flag).toBe(`--set ${key}`);
      expect((failure as FlagError).message).toMatch(
        new RegExp(`^--set ${escapeRegExp(key)}: unknown policy key`),
      );
    }
  });

  it('a seed name in --set loads, and its bad values name it and the field it stands for', async () => {
    const config = await load({ set: ['compression_trigger=0.7', 'KeepRecentTokens=5000'] });
    expect(config.policy.summarize.trigger).toBe(0.7);
    expect(config.policy.summarize.keepRecentTokens).toBe(5000);
    expect(config.sources['summarize.trigger']).toBe('flag:--summarize.trigger');
    expect(sourceAsTyped('flag:--summarize.trigger', config.flagNames)).toBe(
      'flag:--set compression_trigger',
    );
    await expect(load({ set: ['compression_trigger=abc'] })).rejects.toThrow(
      /^--set compression_trigger: summarize\.trigger: expected a number, got "abc"$/,
    );
    await expect(load({ set: ['compression_trigger=2'] })).rejects.toThrow(
      /^--set compression_trigger: summarize\.trigger: must be ≤ 1/,
    );
  });

  it('sources read as the flag typed: --policy, not the internal --preset', async () => {
    const config = await load({ policy: 'digitorn', set: ['summarize.trigger=0.5'] });
    expect(config.presetSource).toBe('flag:--preset');
    expect(sourceAsTyped(config.presetSource, config.flagNames)).toBe('flag:--policy');
    expect(sourceAsTyped('flag:--summarize.trigger', config.flagNames)).toBe('flag:--set summarize.trigger');
    expect(sourceAsTyped('preset:digitorn', config.flagNames)).toBe('preset:digitorn');
  });

  it('a rule a flag broke, located at the preset, still names the flags as typed', async () => {
    const failure = load({ policy: 'digitorn', window: '1000', set: ['summarize.trigger=0.9'] });
    await expect(failure).rejects.toThrow(
      /^preset:digitorn, with --window, --set summarize\.trigger: budget\.maxOutputTokens: must be smaller than/,
    );
  });

  it('a rule across flags names the flags as typed', async () => {
    await expect(load({ window: '1000', maxOutput: '2000' })).rejects.toThrow(
      /^--max-output: budget\.maxOutputTokens: must be smaller than/,
    );
  });

  it('leaves errors from other sources as they are', () => {
    const fromEnv = new InvalidConfigError('summarize.trigger', 'expected a number', {
      source: 'env:CTXKIT_SUMMARIZE__TRIGGER',
      label: 'CTXKIT_SUMMARIZE__TRIGGER',
    });
    expect(inUserWords(fromEnv, {})).toBe(fromEnv);
    const other = new CtxkitError('invalid_input', 'y');
    expect(inUserWords(other, {})).toBe(other);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
