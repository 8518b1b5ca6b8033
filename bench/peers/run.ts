/**
 * Peers, side by side: every corpus session replayed inside ctxkit (each preset) and inside the systems
 * people use today (LangChain.js agents with summarization + context editing, deepagents JS, the AI
 * SDK's pruneMessages), at several windows, all scored by `computeReplayMetrics` with the same o200k
 * tokenizer. Writes `bench/results/peers-<window>.json` and `bench/results/peers-summary.json`, prints
 * one table per window.
 *
 *   npm run bench:peers
 *   npm run bench:peers -- --windows 16000 --systems ctxkit:default,langchain --sessions tau-bench
 *
 * Options: --windows (comma list, default 16000,32000,128000), --max-output (default 4096), --systems,
 * --sessions (substring filter on file names), --out (default bench/results), --model (the model name
 * ctxkit is configured with, default gpt-4o: its exact tokenizer is o200k, the scorer's; `none` leaves
 * ctxkit to estimate as it does for an unknown model), --ctxkit-from (`dist`, the default: the compiled
 * package, as an agent that installed ctxkit runs it, built by the npm script first; `src`: the sources).
 *
 * Each system runs in a process of its own (`run-system.ts`), after an untimed warm-up there, one system
 * after another: timings are the system's own, with nothing left on the heap or in the JIT by another.
 * ctxkit's default and LangChain.js run first, the one right after the other.
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { CORPUS_DIR, corpusFiles, LONG_SESSION } from '../../src/testing/corpus.ts';
import { parseFlags } from '../parse-flags.ts';
import {
  evaluateGoals,
  type SessionResult,
  type SystemSummary,
  summarizeSystem,
  type WindowGoals,
} from './aggregate.ts';
import { LANGCHAIN_PEER } from './langchain-peer.ts';
import type { SystemRunReport, SystemRunRequest } from './run-system.ts';
import { BENCH_SYSTEMS, CTXKIT_DEFAULT } from './systems.ts';
import { renderGoals, renderLongSession, renderTable, windowLabel } from './table.ts';

const COMMAND = 'npm run bench:peers';
const DEFAULT_WINDOWS = [16_000, 32_000, 128_000];
const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
const DEFAULT_MODEL = 'gpt-4o';

const args = parseFlags(process.argv.slice(2));
const windows = (args.get('windows')?.split(',').map(Number) ?? DEFAULT_WINDOWS).filter((w) => w > 0);
const maxOutputTokens = Number(args.get('max-output') ?? DEFAULT_MAX_OUTPUT_TOKENS);
const systemFilter = args.get('systems')?.split(',');
const sessionFilter = args.get('sessions');
const modelArg = args.get('model') ?? DEFAULT_MODEL;
const model = modelArg === 'none' ? undefined : modelArg;
const outDir = resolve(args.get('out') ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'results'));
const ctxkitFrom = args.get('ctxkit-from') ?? 'dist';
if (ctxkitFrom !== 'dist' && ctxkitFrom !== 'src') {
  process.stderr.write(`--ctxkit-from must be dist or src, got ${JSON.stringify(ctxkitFrom)}\n`);
  process.exit(2);
}
const systems = BENCH_SYSTEMS.filter((system) => !systemFilter || systemFilter.includes(system.name));
const sessions = corpusFiles().filter((file) => !sessionFilter || file.includes(sessionFilter));

mkdirSync(outDir, { recursive: true });
process.stderr.write(
  `${systems.length} systems × ${sessions.length} sessions × windows ${windows.map(windowLabel).join(', ')} (corpus ${CORPUS_DIR})\n`,
);

/** One system, replayed and scored in a child process of its own. */
function runInOwnProcess(request: SystemRunRequest): Promise<SystemRunReport> {
  return new Promise((done, fail) => {
    const child = fork(fileURLToPath(new URL('./run-system.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: SystemRunReport | undefined;
    child.once('message', (message) => {
      report = message as SystemRunReport;
    });
    child.once('error', fail);
    child.once('exit', (code) =>
      report ? done(report) : fail(new Error(`${request.system}: its process exited with code ${code}`)),
    );
    child.send(request);
  });
}

interface WindowResult {
  window: number;
  summaries: SystemSummary[];
  goals: WindowGoals;
}

const startedAll = performance.now();
// The two systems the speed goal compares run one after the other, so that their long sessions are timed
// a minute or two apart instead of several: this machine's speed drifts by a fifth and more over minutes.
const timedPair = [CTXKIT_DEFAULT, LANGCHAIN_PEER];
const runOrder = [
  ...systems.filter((system) => timedPair.includes(system.name)),
  ...systems.filter((system) => !timedPair.includes(system.name)),
];
const reportOf = new Map<string, SystemRunReport>();
for (const system of runOrder) {
  reportOf.set(
    system.name,
    await runInOwnProcess({ system: system.name, windows, sessions, maxOutputTokens, model, ctxkitFrom }),
  );
}
const reports = systems.flatMap((system) => reportOf.get(system.name) ?? []);

const windowResults: WindowResult[] = [];
for (const window of windows) {
  const summaries: SystemSummary[] = [];
  const sessionResults: SessionResult[] = [];
  const configs: Record<string, unknown> = {};
  for (const report of reports) {
    const system = systems.find((candidate) => candidate.name === report.system);
    const part = report.windows.find((candidate) => candidate.window === window);
    if (!system || !part) continue;
    configs[system.name] = { ...(part.config as object), warmUp: report.warmUp };
    summaries.push(summarizeSystem(system.name, system.peer, part.runs, LONG_SESSION));
    sessionResults.push(...part.runs.map((run) => run.result));
  }
  const goals = evaluateGoals(summaries, CTXKIT_DEFAULT, LANGCHAIN_PEER, window);
  windowResults.push({ window, summaries, goals });
  writeFileSync(
    join(outDir, `peers-${window}.json`),
    `${JSON.stringify(
      {
        command: COMMAND,
        generatedAt: new Date().toISOString(),
        window,
        maxOutputTokens,
        model: model ?? null,
        tokenizer: 'o200k_base',
        pricing:
          'cache reads 0.1 ×, cache writes 1.25 × list (computeReplayMetrics default); recovery round trips: the request re-read at 0.1 ×, the call and answer written at 1.25 ×, 30 output tokens at 5 ×',
        systems: summaries,
        goals,
        configs,
        sessions: sessionResults,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`${renderTable(window, maxOutputTokens, summaries)}\n`);
  console.log(`${renderLongSession(LONG_SESSION, summaries)}\n`);
  console.log(`${renderGoals(goals)}\n`);
}

writeFileSync(
  join(outDir, 'peers-summary.json'),
  `${JSON.stringify(
    {
      command: COMMAND,
      generatedAt: new Date().toISOString(),
      corpusSessions: sessions.length,
      maxOutputTokens,
      model: model ?? null,
      wallSeconds: Math.round((performance.now() - startedAll) / 1000),
      recoveryGoalMetAtEveryWindow: windowResults.every((result) => result.goals.recovery?.met === true),
      windows: windowResults,
    },
    null,
    2,
  )}\n`,
);
process.stderr.write(
  `done in ${((performance.now() - startedAll) / 1000).toFixed(0)} s; results in ${outDir}\n`,
);
