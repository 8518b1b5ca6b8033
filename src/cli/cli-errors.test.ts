import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_BAD_INPUT, EXIT_CHECK_FAILED } from './exit-codes.ts';
import { ROOT, runCtxkit } from './testing/run-ctxkit.ts';

/** What a user sees: `ctxkit` as a child process, its exit status, stdout and stderr. */
describe('ctxkit speaks plainly (child process)', () => {
  let dir: string;
  const ctxkit = (args: string[]) => runCtxkit(args, { cwd: dir });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-cli-'));
    await mkdir(join(dir, 'empty'));
    // A system prompt of about 3,000 tokens cannot fit a 2,000-token window: every call overflows.
    const big = [
      { role: 'system', content: 'rule '.repeat(3_000) },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ];
    await writeFile(join(dir, 'big-system.jsonl'), `${big.map((line) => JSON.stringify(line)).join('\n')}\n`);
  });

  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it('--version and -V print the package version', async () => {
    const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await ctxkit([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`${version}\n`);
    }
  });

  it('numbers: bad values name the flag, say what it takes, exit 2, no stack', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['config', '--window', 'abc'],
        /^error --window: expected a whole number of tokens, 0 or more \(0 = the model profile's window\), got "abc"\n$/,
      ],
      [['config', '--window', '-5'], /^error --window: .* got "-5"\n$/],
      [['config', '--window', '1.5'], /^error --window: .* got "1\.5"\n$/],
      [['config', '--max-output', 'lots'], /^error --max-output: expected a whole number of tokens/],
      [
        ['replay', '--demo', '--seed', 'abc'],
        /^error --seed: expected an integer from 0 to 4294967295, got "abc"/,
      ],
      [['replay', '--demo', '--seed', '1.5'], /^error --seed: /],
      [
        ['prune', '--days', 'abc', '--dry-run'],
        /^error --days: expected a whole number of days, 0 or more \(0 = keep every session\), got "abc"/,
      ],
      [['prune', '--days', '-1', '--dry-run'], /^error --days: /],
      [['replay', '--demo', '--pricing', 'read=cheap'], /^error --pricing: "read=cheap" is not key=number/],
      [['replay', '--demo', '--pricing', 'read=0x10'], /^error --pricing: /],
    ];
    const runs = await Promise.all(cases.map(([args]) => ctxkit(args)));
    for (const [index, run] of runs.entries()) {
      const [args, expected] = cases[index] ?? [[], /$^/];
      expect(run.code, args.join(' ')).toBe(EXIT_BAD_INPUT);
      expect(run.stderr, args.join(' ')).toMatch(expected);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('--window 0 is the model profile’s window, and config says which', async () => {
    const config = await ctxkit(['config', '--window', '0', '--model', 'gpt-4o']);
    expect(config.code).toBe(0);
    expect(config.stdout).toContain(
      "budget.contextWindow 0 = the model profile's window: 128,000 tokens, from the gpt-4o profile",
    );
    const help = await ctxkit(['inspect', '--help']);
    expect(help.stdout).toMatch(
      /--window <tokens>\s+context window in tokens \(0 or unset: the model\s+profile's window\)/,
    );
  });

  it('config errors name the flag the user typed, never the internal one', async () => {
    const [policy, file, set, key, spaced] = await Promise.all([
      ctxkit(['config', '--policy', 'defualt']),
      ctxkit(['config', '--policy', 'mine.yaml']),
      ctxkit(['config', '--set', 'summarize.trigers=0.5']),
      ctxkit(['config', '--set', 'summarize.trigger']),
      ctxkit(['config', '--set', 'foo bar=1']),
    ]);
    expect(spaced.stderr).toBe('error --set foo bar: unknown policy key\n');
    expect(policy.stderr).toMatch(/^error --policy: unknown preset "defualt"; did you mean "default"\?/);
    expect(file.stderr).toMatch(/^error --policy: no such file: mine\.yaml/);
    expect(set.stderr).toMatch(
      /^error --set summarize\.trigers: unknown policy key; did you mean "summarize\.trigger"\?/,
    );
    expect(key.stderr).toMatch(/^error --set: expected key=value/);
    for (const run of [policy, file, set, key, spaced]) {
      expect(run.code).toBe(EXIT_BAD_INPUT);
      expect(run.stderr).not.toMatch(/flag:|--preset/);
    }
  });

  it('missing files and empty directories are said in words', async () => {
    const [missing, empty, replayEmpty, config] = await Promise.all([
      ctxkit(['inspect', 'no-such.jsonl']),
      ctxkit(['inspect', 'empty']),
      ctxkit(['replay', 'empty']),
      ctxkit(['config', '--config', 'missing.yaml']),
    ]);
    expect(missing.stderr).toBe('error no such file or directory: "no-such.jsonl"\n');
    expect(empty.stderr).toBe('error no sessions in empty (looked for .jsonl and .json transcripts)\n');
    expect(replayEmpty.stderr).toBe('error no sessions in empty (looked for .jsonl and .json transcripts)\n');
    expect(config.stderr).toBe('error --config: no such file: missing.yaml\n');
    for (const run of [missing, empty, replayEmpty, config]) expect(run.code).toBe(EXIT_BAD_INPUT);
  });

  it('an error quoting input is one line: newlines, tabs and returns in it are shown escaped', async () => {
    const forged = 'x\n\tcheck passed: all good\rhi';
    await writeFile(join(dir, `bad${forged}.jsonl`), '{not json\n');
    const [missing, malformed, config, set] = await Promise.all([
      ctxkit(['inspect', forged]),
      ctxkit(['inspect', `bad${forged}.jsonl`]),
      ctxkit(['config', '--config', forged]),
      ctxkit(['config', '--set', `${forged}=1`]),
    ]);
    expect(missing.stderr).toBe('error no such file or directory: "x\\n\\tcheck passed: all good\\rhi"\n');
    for (const run of [missing, malformed, config, set]) {
      expect(run.code).toBe(EXIT_BAD_INPUT);
      expect(run.stderr).toMatch(/^error [^\n\t\r]*\n$/);
      expect(run.stderr).toContain('x\\n\\tcheck passed: all good\\rhi');
    }
  });

  it('usage errors (unknown option, missing argument, no command) exit 2 too', async () => {
    const runs = await Promise.all([ctxkit(['config', '--bogus']), ctxkit(['inspect']), ctxkit([])]);
    expect(runs[0]?.stderr).toContain("unknown option '--bogus'");
    expect(runs[1]?.stderr).toContain("missing required argument 'paths'");
    for (const run of runs) expect(run.code).toBe(EXIT_BAD_INPUT);
  });

  it('replay --check exits 1 naming the session and call that overflowed, with --json too', async () => {
    const args = ['replay', 'big-system.jsonl', '--window', '2000', '--store', 'memory', '--check'];
    const [text, json] = await Promise.all([ctxkit(args), ctxkit([...args, '--json'])]);
    for (const run of [text, json]) {
      expect(run.code).toBe(EXIT_CHECK_FAILED);
      expect(run.stderr).toContain(
        'check failed: big-system.jsonl · ctxkit:default: call 1 (message 1) overflows the window',
      );
    }
    expect((JSON.parse(json.stdout) as { totals: { overflows: number } }[])[0]?.totals.overflows).toBe(1);
    const passing = await ctxkit(['replay', 'big-system.jsonl', '--store', 'memory', '--check', '--json']);
    expect(passing.code).toBe(0);
    expect(passing.stderr).toContain(
      'check passed: 1 calls in 1 replay(s), no overflow, no orphaned tool call',
    );
  });
});
