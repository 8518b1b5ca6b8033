import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_BAD_INPUT } from './exit-codes.ts';
import { ROOT, runCtxkit } from './testing/run-ctxkit.ts';

const CONFIG = `preset: digitorn
agents:
  - id: explorer
    brain:
      model: deepseek-chat
      context: { max_tokens: 65536, keep_recent: 15 }
  - id: writer
    brain:
      context: { max_tokens: 200000, keep_recent: 8 }
`;

/** `--agent NAME` picks an agent block of the config file, on every command that reads one (child process). */
describe('ctxkit --agent (child process)', () => {
  let dir: string;
  const ctxkit = (args: string[], env?: Record<string, string>) =>
    runCtxkit(args, { cwd: dir, ...(env ? { env } : {}) });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-agent-'));
    await writeFile(join(dir, 'ctxkit.yaml'), CONFIG);
  });

  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it("applies the named agent's block over the file's settings", async () => {
    const [explorer, writer, none] = await Promise.all([
      ctxkit(['config', '--agent', 'explorer', '--json']),
      ctxkit(['config', '--agent', 'writer', '--json']),
      ctxkit(['config', '--json']),
    ]);
    type Config = {
      policy: {
        model?: string;
        budget: { contextWindow: number };
        summarize: { keepRecentMessages: number };
      };
      sources: Record<string, string>;
    };
    for (const run of [explorer, writer, none]) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
    }
    const [e, w, n] = [explorer, writer, none].map((run) => JSON.parse(run.stdout) as Config);
    expect(e?.policy.model).toBe('deepseek-chat');
    expect(e?.policy.budget.contextWindow).toBe(65_536);
    expect(e?.policy.summarize.keepRecentMessages).toBe(15);
    expect(e?.sources['budget.contextWindow']).toMatch(/agents/);
    expect(w?.policy.budget.contextWindow).toBe(200_000);
    expect(w?.policy.summarize.keepRecentMessages).toBe(8);
    expect(n?.policy.summarize.keepRecentMessages).toBe(10);
  });

  it('is taken by the other commands that read a config file, and wins over CTXKIT_AGENT', async () => {
    const session = join(ROOT, 'fixtures/corpus/openhands__basic.jsonl');
    const [inspect, env] = await Promise.all([
      ctxkit(['inspect', '--agent', 'explorer', '--json', session]),
      ctxkit(['config', '--agent', 'explorer', '--json'], { CTXKIT_AGENT: 'writer' }),
    ]);
    expect(inspect.stderr).toBe('');
    expect(inspect.stdout).toMatch(/"contextWindow": 65536/);
    const windowOf = (stdout: string) =>
      (JSON.parse(stdout) as { policy: { budget: { contextWindow: number } } }).policy.budget.contextWindow;
    expect(windowOf(env.stdout)).toBe(65_536);
  });

  it('refuses an unknown agent, naming it and the agents the file declares', async () => {
    const typo = await ctxkit(['config', '--agent', 'explorr']);
    expect(typo.code).toBe(EXIT_BAD_INPUT);
    expect(typo.stdout).toBe('');
    expect(typo.stderr).toBe(
      'error --agent: no agent "explorr" in ctxkit.yaml; did you mean "explorer"? (agents: explorer, writer)\n',
    );
    const env = await ctxkit(['config'], { CTXKIT_AGENT: 'writr' });
    expect(env.code).toBe(EXIT_BAD_INPUT);
    expect(env.stderr).toMatch(
      /CTXKIT_AGENT.*no agent "writr" in ctxkit\.yaml; did you mean "writer"\? \(agents: explorer, writer\)$/m,
    );
  });

  it('refuses an agent without a config file to hold it', async () => {
    const bare = await mkdtemp(join(tmpdir(), 'ctxkit-agent-bare-'));
    try {
      const run = await runCtxkit(['config', '--agent', 'explorer'], { cwd: bare });
      expect(run.code).toBe(EXIT_BAD_INPUT);
      expect(run.stderr).toMatch(/agent "explorer" selected but no config file was given/);
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});
