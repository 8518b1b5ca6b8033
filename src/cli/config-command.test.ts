import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_BAD_INPUT } from './exit-codes.ts';
import { runCtxkit } from './testing/run-ctxkit.ts';

/** `ctxkit config` as a user runs it (child process). */
describe('ctxkit config (child process)', () => {
  let dir: string;
  const ctxkit = (args: string[]) => runCtxkit(args, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-config-'));
  });

  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('takes the seeds’ own names in --set and names each source as the flag typed', async () => {
    const set = [
      '--set',
      'compression_trigger=0.7',
      '--set',
      'KeepRecentTokens=5000',
      '--set',
      'agent_max_context_turns=10',
    ];
    const [table, json, typo] = await Promise.all([
      ctxkit(['config', '--policy', 'digitorn', ...set, '--window', '100000', '--changed']),
      ctxkit(['config', '--policy', 'digitorn', ...set, '--json']),
      ctxkit(['config', '--set', 'compresion_trigger=0.7']),
    ]);
    expect(table.stderr).toBe('');
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^preset digitorn \(flag:--policy\)\n/);
    expect(table.stdout).toMatch(/^budget\.contextWindow +100000 +flag:--window$/m);
    expect(table.stdout).toMatch(/^summarize\.trigger +0\.7 +flag:--set compression_trigger$/m);
    expect(table.stdout).toMatch(/^summarize\.keepRecentTokens +5000 +flag:--set KeepRecentTokens$/m);
    expect(table.stdout).toMatch(/^trim\.maxTurns +10 +flag:--set agent_max_context_turns$/m);
    expect(table.stdout).toMatch(/^trim\.enabled +true +flag:--set agent_max_context_turns$/m);
    expect(table.stdout).not.toMatch(/--preset/);

    // --json keeps the config layer's machine-readable source: the ctxkit path.
    const parsed = JSON.parse(json.stdout) as {
      policy: { summarize: { trigger: number } };
      sources: Record<string, string>;
    };
    expect(parsed.policy.summarize.trigger).toBe(0.7);
    expect(parsed.sources['summarize.trigger']).toBe('flag:--summarize.trigger');

    expect(typo.code).toBe(EXIT_BAD_INPUT);
    expect(typo.stderr).toBe(
      'error --set compresion_trigger: unknown policy key; did you mean "compression_trigger" (digitorn: summarize.trigger)?\n',
    );
  });
});
