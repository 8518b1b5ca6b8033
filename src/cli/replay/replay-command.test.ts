import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_CONTEXT_WINDOW, DEMO_MAX_OUTPUT_TOKENS } from '../../replay/demo-session.ts';
import type { SessionReplay } from '../../replay/replay-types.ts';
import { CORPUS_DIR } from '../../testing/corpus.ts';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = join(ROOT, 'bin/ctxkit.js');
const env = { ...process.env, NO_COLOR: '1', CTXKIT_CONFIG: '' };

/** Runs in a scratch directory: the embedded stores go to its `.ctxkit/`, not the repository's. */
const scratch = mkdtemp(join(tmpdir(), 'ctxkit-replay-'));

async function ctxkit(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
      cwd: await scratch,
      env,
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('ctxkit replay (child process)', () => {
  afterAll(async () => rm(await scratch, { recursive: true, force: true }));

  it('--demo --json prints the SessionReplay[] of the demo at its default window', async () => {
    const report = join(await scratch, 'out.html');
    const { code, stdout } = await ctxkit(['replay', '--demo', '--json', '--report', report]);
    expect(code).toBe(0);
    const replays = JSON.parse(stdout) as SessionReplay[];
    expect(replays).toHaveLength(1);
    const [replay] = replays;
    expect(replay).toMatchObject({
      session: 'demo (seed 42)',
      system: 'ctxkit:default',
      contextWindow: DEMO_CONTEXT_WINDOW,
      maxOutputTokens: DEMO_MAX_OUTPUT_TOKENS,
    });
    expect(replay?.calls.length).toBe(replay?.totals.calls);
    expect(replay?.totals.overflows).toBe(0);
    expect(replay?.totals.orphans).toBe(0);
    expect(replay?.totals.compactions).toBeGreaterThan(0);
    expect(replay?.totals.billedWithCache).toBeLessThan(replay?.totals.billed ?? 0);
    expect(replay?.retention.total).toBeGreaterThan(20);
    expect(await readFile(report, 'utf8')).toContain('demo (seed 42)');
    // The main job runs on the embedded defaults: the session and its edits are in SQLite.
    expect(existsSync(join(await scratch, '.ctxkit', 'ctxkit.db'))).toBe(true);
  });

  it('--demo counts the same on every run, each run kept as a session of its own', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'ctxkit-replay-runs-'));
    try {
      const again = async () => {
        const { stdout } = await run(process.execPath, [BIN, 'replay', '--demo', '--json'], {
          cwd: dir,
          env,
          maxBuffer: 64 * 1024 * 1024,
        });
        const [replay] = JSON.parse(stdout) as SessionReplay[];
        // Everything but the time taken, which is the machine's.
        const { timeMsP50: _p50, timeMsP99: _p99, ...counted } = replay?.totals ?? ({} as never);
        return counted;
      };
      const first = await again();
      const second = await again();
      expect(first.inputTokens).toBeGreaterThan(0);
      expect(second).toEqual(first);
      const sessions = await readdir(join(dir, '.ctxkit', 'sessions'));
      expect(sessions.filter((name) => /-run000[12]$/.test(name)).sort()).toHaveLength(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('prints per-call and total tables, and policies side by side', async () => {
    const session = join(CORPUS_DIR, 'swe-agent__ctf_rock.jsonl');
    const { code, stdout } = await ctxkit([
      'replay',
      session,
      '--policy',
      'default,tiancai',
      '--window',
      '8000',
    ]);
    expect(code).toBe(0);
    expect(stdout).toContain('swe-agent__ctf_rock.jsonl · ctxkit:default');
    expect(stdout).toContain('swe-agent__ctf_rock.jsonl · ctxkit:tiancai');
    expect(stdout).toMatch(/call {2}msg {2}input/);
    expect(stdout).toContain('overflows');
    expect(stdout).toContain('retention');
    expect(stdout).toContain('side by side');
  });

  it('exits 2 with a clear message on bad input', async () => {
    const none = await ctxkit(['replay']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('nothing to replay');
    const pricing = await ctxkit(['replay', '--demo', '--pricing', 'read=cheap']);
    expect(pricing.code).toBe(2);
    expect(pricing.stderr).toContain('--pricing');
    const policy = await ctxkit(['replay', '--demo', '--policy', 'defualt']);
    expect(policy.code).toBe(2);
    expect(policy.stderr).toContain('did you mean "default"');
    const missing = await ctxkit(['replay', join(ROOT, 'no-such-session.jsonl')]);
    expect(missing.code).toBe(2);
  });
});
