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
 * ctxkit to estimate as it does for an unknown model).
 *
 * Every system first replays two short sessions and, twice, the long session untimed, at the first
 * window, so no system pays the process's JIT warm-up inside the measured calls: an agent process lives
 * for many sessions (its steady state is what a user pays), and the long session is the one whose
 * per-call times the goal compares. One pass was not enough: the second still ran a quarter slower.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { computeReplayMetrics } from '../../src/replay/compute-replay-metrics.ts';
import { CORPUS_DIR, corpusFiles, LONG_SESSION, loadCorpusSession } from '../../src/testing/corpus.ts';
import {
  evaluateGoals,
  type ScoredRun,
  type SessionResult,
  type SystemSummary,
  sessionResult,
  summarizeSystem,
  type WindowGoals,
} from './aggregate.ts';
import { LANGCHAIN_PEER } from './langchain-peer.ts';
import { createSummaryModel } from './summary-model.ts';
import { BENCH_SYSTEMS, CTXKIT_DEFAULT } from './systems.ts';
import { renderGoals, renderLongSession, renderTable, windowLabel } from './table.ts';

const COMMAND = 'npm run bench:peers';
const DEFAULT_WINDOWS = [16_000, 32_000, 128_000];
const DEFAULT_MAX_OUTPUT_TOKENS = 4_096;
const DEFAULT_MODEL = 'gpt-4o';
const WARM_UP_SESSIONS = [
  'swe-agent__ctf_warmup.jsonl',
  'openhands__wrong_initial_state.jsonl',
  LONG_SESSION,
];

/**
 * A full garbage collection before each replay: the systems share one process, and what one leaves on
 * the heap (LangChain's runs leave a lot) would otherwise be collected inside the next one's timed calls.
 */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

function parseArgs(argv: readonly string[]): Map<string, string> {
  const args = new Map<string, string>();
  for (let index = 0; index < argv.length; index++) {
    const key = argv[index];
    if (!key?.startsWith('--')) continue;
    args.set(key.slice(2), argv[index + 1] ?? '');
    index++;
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const windows = (args.get('windows')?.split(',').map(Number) ?? DEFAULT_WINDOWS).filter((w) => w > 0);
const maxOutputTokens = Number(args.get('max-output') ?? DEFAULT_MAX_OUTPUT_TOKENS);
const systemFilter = args.get('systems')?.split(',');
const sessionFilter = args.get('sessions');
const modelArg = args.get('model') ?? DEFAULT_MODEL;
const model = modelArg === 'none' ? undefined : modelArg;
const outDir = resolve(args.get('out') ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'results'));
const systems = BENCH_SYSTEMS.filter((system) => !systemFilter || systemFilter.includes(system.name));
const sessions = corpusFiles().filter((file) => !sessionFilter || file.includes(sessionFilter));
const transcripts = new Map(sessions.map((file) => [file, loadCorpusSession(file)]));

mkdirSync(outDir, { recursive: true });
process.stderr.write(
  `${systems.length} systems × ${sessions.length} sessions × windows ${windows.map(windowLabel).join(', ')} (corpus ${CORPUS_DIR})\n`,
);

for (const file of WARM_UP_SESSIONS.filter((name) => corpusFiles().includes(name))) {
  const transcript = loadCorpusSession(file);
  for (const system of systems) {
    process.stderr.write(`\r\x1b[Kwarm-up: ${system.name} ${file}`);
    await system.replay(transcript, {
      contextWindow: windows[0] ?? DEFAULT_WINDOWS[0] ?? 16_000,
      maxOutputTokens,
      summaryModel: createSummaryModel(),
      ...(model ? { model } : {}),
    });
  }
}
process.stderr.write('\r\x1b[K');

interface WindowResult {
  window: number;
  summaries: SystemSummary[];
  goals: WindowGoals;
}

const windowResults: WindowResult[] = [];
const startedAll = performance.now();
for (const window of windows) {
  const summaries: SystemSummary[] = [];
  const sessionResults: SessionResult[] = [];
  const configs: Record<string, unknown> = {};
  for (const system of systems) {
    const runs: ScoredRun[] = [];
    const startedSystem = performance.now();
    for (const [position, file] of sessions.entries()) {
      const transcript = transcripts.get(file);
      if (!transcript) continue;
      process.stderr.write(
        `\r\x1b[K[${windowLabel(window)}] ${system.name} ${position + 1}/${sessions.length} ${file.slice(0, 60)}`,
      );
      collectGarbage();
      const started = performance.now();
      try {
        const summaryModel = createSummaryModel();
        const replay = await system.replay(transcript, {
          contextWindow: window,
          maxOutputTokens,
          summaryModel,
          ...(model ? { model } : {}),
        });
        configs[system.name] ??= replay.config;
        const scored = computeReplayMetrics(
          file,
          system.name,
          transcript.messages,
          replay.requests,
          replay.finalMemory,
          {
            contextWindow: window,
            maxOutputTokens,
          },
        );
        runs.push({
          result: sessionResult(scored, replay.notes, performance.now() - started, {
            input: summaryModel.inputTokens,
            output: summaryModel.outputTokens,
          }),
          times: scored.calls.map((call) => call.timeMs),
        });
      } catch (error) {
        const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        process.stderr.write(`\n  ${system.name} failed on ${file}: ${message}\n`);
        runs.push({
          result: { session: file, system: system.name, error: message, wallMs: performance.now() - started },
          times: [],
        });
      }
    }
    const summary = summarizeSystem(system.name, system.peer, runs, LONG_SESSION);
    summaries.push(summary);
    sessionResults.push(...runs.map((run) => run.result));
    process.stderr.write(
      `\r\x1b[K[${windowLabel(window)}] ${system.name}: ${summary.sessions} sessions in ${((performance.now() - startedSystem) / 1000).toFixed(1)} s\n`,
    );
  }
  const goals = evaluateGoals(summaries, CTXKIT_DEFAULT, LANGCHAIN_PEER);
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
        pricing: 'cache reads 0.1 ×, cache writes 1.25 × list (computeReplayMetrics default)',
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
  console.log(renderLongSession(LONG_SESSION, summaries, [CTXKIT_DEFAULT, LANGCHAIN_PEER]));
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
      windows: windowResults,
    },
    null,
    2,
  )}\n`,
);
process.stderr.write(
  `done in ${((performance.now() - startedAll) / 1000).toFixed(0)} s; results in ${outDir}\n`,
);
