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

  it('prints the hooks as the engine runs them, the automatic one included', async () => {
    const [digitorn, json, off] = await Promise.all([
      ctxkit(['config', '--policy', 'digitorn', '--window', '200000']),
      ctxkit(['config', '--policy', 'digitorn', '--window', '200000', '--json']),
      ctxkit(['config', '--policy', 'digitorn', '--set', 'summarize.auto=false']),
    ]);
    expect(digitorn.stderr).toBe('');
    expect(digitorn.stdout).toMatch(/^hooks +\[\] +preset:digitorn$/m);
    expect(digitorn.stdout).toMatch(
      /^hooks as run:\n {2}_auto_compact {2}on turn_start {2}when context_pressure ≥ 0\.75 {2}compact_context .*cooldown 30s {2}\(summarize\.auto\)$/m,
    );
    const parsed = JSON.parse(json.stdout) as { effectiveHooks: { id: string }[] };
    expect(parsed.effectiveHooks.map((hook) => hook.id)).toEqual(['_auto_compact']);
    expect(off.stdout).toMatch(/^hooks as run: none$/m);
  });

  it('says the window by the window rule, and where the preset departs from its seed', async () => {
    const [deepagents, sonnet, picoclaw, unknown, json, plain] = await Promise.all([
      ctxkit(['config', '--policy', 'deepagents']),
      ctxkit(['config', '--policy', 'deepagents', '--model', 'claude-sonnet-4-6']),
      ctxkit(['config', '--policy', 'picoclaw', '--max-output', '2048', '--model', 'my-local-model']),
      ctxkit(['config', '--model', 'my-local-model', '--max-output', '2048']),
      ctxkit(['config', '--policy', 'deepagents', '--model', 'claude-sonnet-4-6', '--json']),
      ctxkit(['config']),
    ]);
    for (const run of [deepagents, sonnet, picoclaw, unknown, json, plain]) expect(run.stderr).toBe('');
    expect(deepagents.stdout).toMatch(/^deviations from the deepagents seed:$/m);
    expect(deepagents.stdout).toMatch(/^ {2}budget\.finalGuard — the seed: .*; ctxkit: .*\.$\n^ {4}why: /m);
    expect(deepagents.stdout).toMatch(
      /^ {2}summarize\.trigger — the seed: .*85 % of the window; ctxkit: .* No window here: 85% as set, or \(window − reserve\) ÷ window when that is lower/m,
    );
    expect(deepagents.stdout).toMatch(/^ {2}indexes\.memory\.maxTokens — /m);
    // claude-sonnet-4-6: a 200k window reserving 64k, so the largest request that fits is 68 %.
    expect(sonnet.stdout).toMatch(
      /^ {2}summarize\.trigger — .*With this window: 85% as set, 68% used \(the largest request that fits\)\.$/m,
    );
    expect(picoclaw.stdout).toContain(
      'budget.contextWindow 0 = 4 × max output (the policy does not look windows up): 8,192 tokens; output reserve 2,048',
    );
    expect(picoclaw.stdout).toMatch(/^deviations from the picoclaw seed:\n {2}budget\.finalGuard — /m);
    expect(picoclaw.stdout).toMatch(
      /^ {2}budget\.detectWindow — the seed: the window is 4 × MaxTokens .*; ctxkit: .*never go past what a local server says it serves/m,
    );
    expect(unknown.stdout).toMatch(/no profile for model "my-local-model", so commands need --window/);
    // ctxkit's own policy has no seed to depart from.
    expect(plain.stdout).not.toMatch(/deviations/);
    const parsed = JSON.parse(json.stdout) as {
      deviations: {
        preset: { setting: string }[];
        thresholds: { setting: string; set: number; used: number }[];
      };
    };
    expect(parsed.deviations.preset.map((deviation) => deviation.setting)).toContain('summarize.trigger');
    expect(parsed.deviations.thresholds).toEqual([{ setting: 'summarize.trigger', set: 0.85, used: 0.68 }]);
  });
});
