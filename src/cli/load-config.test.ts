import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidConfigError, InvalidInputError } from '../core/errors/index.ts';
import { loadConfig } from './load-config.ts';

describe('loadConfig', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-config-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('finds ctxkit.yaml in cwd and names it as found', async () => {
    await writeFile(join(dir, 'ctxkit.yaml'), 'preset: tiancai\nsummarize:\n  keepRecentMessages: 7\n');
    const loaded = await loadConfig({ cwd: dir, env: {} });
    expect(loaded.preset).toBe('tiancai');
    expect(loaded.configFile).toBe(join(dir, 'ctxkit.yaml'));
    expect(loaded.sources['summarize.keepRecentMessages']).toBe(
      'file:ctxkit.yaml#summarize.keepRecentMessages',
    );
  });

  it('no file is fine: preset + env + flags', async () => {
    const loaded = await loadConfig({
      cwd: dir,
      env: { CTXKIT_SUMMARIZE__TRIGGER: '0.9' },
      flags: { window: 64_000 },
    });
    expect(loaded.configFile).toBeUndefined();
    expect(loaded.policy.summarize.trigger).toBe(0.9);
    expect(loaded.policy.budget.contextWindow).toBe(64_000);
  });

  it('reads the file named by $CTXKIT_CONFIG, relative to cwd', async () => {
    await writeFile(join(dir, 'other.json'), '{ "preset": "picoclaw" }');
    const loaded = await loadConfig({ cwd: dir, env: { CTXKIT_CONFIG: 'other.json' } });
    expect(loaded.preset).toBe('picoclaw');
    expect(loaded.presetSource).toBe('file:other.json#preset');
  });

  it('an explicit file that does not exist is an error naming it', async () => {
    await expect(loadConfig({ cwd: dir, env: {}, configPath: 'missing.yaml' })).rejects.toThrow(
      InvalidInputError,
    );
    await expect(loadConfig({ cwd: dir, env: {}, configPath: 'missing.yaml' })).rejects.toThrow(
      /missing\.yaml/,
    );
  });

  it('errors in the file name the file and line', async () => {
    await writeFile(join(dir, 'ctxkit.yml'), 'clearing:\n  trigger: lots\n');
    const failure = loadConfig({ cwd: dir, env: {} });
    await expect(failure).rejects.toBeInstanceOf(InvalidConfigError);
    await expect(loadConfig({ cwd: dir, env: {} })).rejects.toThrow(
      /^ctxkit\.yml:2: clearing\.trigger: expected a number/,
    );
  });
});
