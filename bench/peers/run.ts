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
 * Then the long session is timed in rounds, every system's process one pass in turn (the order rotating
 * from round to round) while the others wait: the systems are compared at the machine's speed of the
 * same minutes. A process that waited long enough to cool down replays once untimed first
 * (`WARM_AGAIN_AFTER_IDLE_MS`).
 */
import { type ChildProcess, fork } from 'node:child_process';
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
import {
  LONG_SESSION_TIMED_PASSES,
  medianPerCall,
  type SystemProcessAnswer,
  type SystemProcessRequest,
  type SystemRunReport,
  type SystemRunRequest,
  turnOrder,
} from './system-process-protocol.ts';
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

/** One system's process: scored runs first, then timed passes of the long session on request. */
class SystemProcess {
  readonly #child: ChildProcess;
  #pending: { done: (answer: SystemProcessAnswer) => void; fail: (error: Error) => void } | undefined;

  constructor(readonly system: string) {
    this.#child = fork(fileURLToPath(new URL('./run-system.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#child.on('message', (message) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.done(message as SystemProcessAnswer);
    });
    const lost = (why: string) => {
      const pending = this.#pending;
      this.#pending = undefined;
      pending?.fail(new Error(`${system}: ${why}`));
    };
    this.#child.once('error', (error) => lost(error.message));
    this.#child.once('exit', (code) => lost(`its process exited with code ${code}`));
  }

  #ask(request: SystemProcessRequest): Promise<SystemProcessAnswer> {
    return new Promise((done, fail) => {
      this.#pending = { done, fail };
      this.#child.send(request);
    });
  }

  async run(request: SystemRunRequest): Promise<SystemRunReport> {
    const answer = await this.#ask({ kind: 'run', request });
    if (answer.kind !== 'report') throw new Error(`${this.system}: ${describeAnswer(answer)}`);
    return answer.report;
  }

  /** One timed pass of the long session, or undefined when the system failed it. */
  async time(window: number): Promise<number[] | undefined> {
    const answer = await this.#ask({ kind: 'time', window });
    return answer.kind === 'times' ? answer.times : undefined;
  }

  close(): void {
    if (this.#child.connected) this.#child.send({ kind: 'done' } satisfies SystemProcessRequest);
  }
}

function describeAnswer(answer: SystemProcessAnswer): string {
  return answer.kind === 'failed' ? answer.error : `unexpected answer "${answer.kind}"`;
}

/**
 * The long session's timed passes, every system in turn at each window, the order rotating by a system a
 * round; each run's times become each call's median over its passes. A system whose scored replay of the
 * long session failed at a window is not timed there.
 */
async function timeInRounds(processes: readonly SystemProcess[], reports: readonly SystemRunReport[]) {
  const passes = new Map<string, number[][]>();
  const longRun = (report: SystemRunReport, window: number) =>
    report.windows
      .find((part) => part.window === window)
      ?.runs.find((run) => run.result.session === LONG_SESSION && !('error' in run.result));
  for (let round = 0; round < LONG_SESSION_TIMED_PASSES; round++) {
    for (const window of windows) {
      for (const index of turnOrder(processes.length, round)) {
        const child = processes[index];
        const report = reports[index];
        if (!child || !report || !longRun(report, window)) continue;
        process.stderr.write(
          `\r\x1b[Ktimed pass ${round + 1}/${LONG_SESSION_TIMED_PASSES} [${windowLabel(window)}] ${child.system}`,
        );
        const times = await child.time(window);
        if (!times) continue;
        const total = times.reduce((sum, time) => sum + time, 0);
        process.stderr.write(
          `\r\x1b[Ktimed pass ${round + 1} [${windowLabel(window)}] ${child.system}: ${total.toFixed(0)} ms\n`,
        );
        const key = `${child.system}@${window}`;
        passes.set(key, [...(passes.get(key) ?? []), times]);
      }
    }
  }
  process.stderr.write('\r\x1b[K');
  for (const report of reports) {
    for (const window of windows) {
      const run = longRun(report, window);
      const timed = passes.get(`${report.system}@${window}`);
      if (run && timed) run.times = medianPerCall(timed);
    }
  }
}

interface WindowResult {
  window: number;
  summaries: SystemSummary[];
  goals: WindowGoals;
}

const startedAll = performance.now();
const processes: SystemProcess[] = [];
const reports: SystemRunReport[] = [];
try {
  for (const system of systems) {
    const child = new SystemProcess(system.name);
    processes.push(child);
    reports.push(
      await child.run({ system: system.name, windows, sessions, maxOutputTokens, model, ctxkitFrom }),
    );
  }
  if (sessions.includes(LONG_SESSION)) await timeInRounds(processes, reports);
} finally {
  for (const child of processes) child.close();
}

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
