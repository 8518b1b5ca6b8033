/**
 * One system's part of `bench:peers`, run in a process of its own (`run.ts` forks one per system): its
 * warm-up, then every session at every window, each replay scored. Alone in its process, no system's
 * timings pay for another's garbage, JIT state or shared-library call sites made megamorphic by
 * another's use (zod, the tokenizer): what is measured is what the system costs in an agent's process.
 *
 * Sends one `SystemRunReport` to the parent over IPC.
 */
import { performance } from 'node:perf_hooks';
import { computeReplayMetrics } from '../../src/replay/compute-replay-metrics.ts';
import { corpusFiles, LONG_SESSION, loadCorpusSession } from '../../src/testing/corpus.ts';
import { type ScoredRun, sessionResult } from './aggregate.ts';
import { type CtxkitSource, useCompiledCtxkit } from './ctxkit-engine.ts';
import { createSummaryModel } from './summary-model.ts';
import { BENCH_SYSTEMS } from './systems.ts';
import { windowLabel } from './table.ts';

/** What the parent asks a system's process to do. */
export interface SystemRunRequest {
  system: string;
  windows: number[];
  sessions: string[];
  maxOutputTokens: number;
  model: string | undefined;
  /** Which ctxkit its systems run (`ctxkit-engine.ts`); the sources when not said. */
  ctxkitFrom?: CtxkitSource;
}

export interface SystemRunReport {
  system: string;
  /** Untimed passes over the long session before the measured runs, and the median per-call ms of each. */
  warmUp: { passes: number; medianMs: number[] };
  windows: { window: number; runs: ScoredRun[]; config: unknown; wallMs: number }[];
}

/** Untimed before anything is measured, at the first window: two short sessions, once each. */
export const WARM_UP_SESSIONS = ['swe-agent__ctf_warmup.jsonl', 'openhands__wrong_initial_state.jsonl'];
/**
 * Then the long session, untimed, until the system's median per-call time on it changes by less than
 * this from one pass to the next (at least two passes, at most `WARM_UP_MAX_PASSES`): what is measured
 * is each system's steady state, as an agent process that has run for a while pays it. The rule is the
 * same for every system; how many passes each took is in the results.
 */
export const WARM_UP_SETTLED_CHANGE = 0.05;
export const WARM_UP_MIN_PASSES = 2;
export const WARM_UP_MAX_PASSES = 5;
/**
 * The long session is timed this many times at each window, and each call's time is its median over
 * them: one pass of sub-millisecond calls on a shared machine moves by a third from run to run.
 */
export const LONG_SESSION_TIMED_PASSES = 3;
/** The model whose minimum cacheable prefix the Anthropic bill uses (2,048 tokens). */
export const ANTHROPIC_BILLED_MODEL = 'claude-sonnet-4-6';

/**
 * No collection is forced between replays: V8 collects when it decides, inside whichever calls it lands,
 * as in an agent's process, so each system pays for its own garbage. A full collection forced before
 * each replay took that cost out of the timed calls, and threw away optimized code no agent's process
 * loses: V8's mid-tier (Maglev) code checks the hidden classes of the objects it ran on and, unlike its
 * top tier, does not keep them alive; once a replay's objects are all gone, a forced collection drops
 * those classes and every function compiled against them is deoptimized and compiled again in the next
 * replay. An agent's manager and its sessions outlive its collections.
 */

export async function runSystem(request: SystemRunRequest): Promise<SystemRunReport> {
  const system = BENCH_SYSTEMS.find((candidate) => candidate.name === request.system);
  if (!system) throw new Error(`unknown system "${request.system}"`);
  const { maxOutputTokens, model } = request;
  if (request.ctxkitFrom === 'dist') await useCompiledCtxkit();
  const options = (window: number) => ({
    contextWindow: window,
    maxOutputTokens,
    summaryModel: createSummaryModel(),
    ...(model ? { model } : {}),
  });
  const available = new Set(corpusFiles());
  const firstWindow = request.windows[0] ?? 16_000;
  for (const file of WARM_UP_SESSIONS.filter((name) => available.has(name))) {
    process.stderr.write(`\r\x1b[Kwarm-up: ${system.name} ${file}`);
    await system.replay(loadCorpusSession(file), options(firstWindow));
  }
  const medianMs: number[] = [];
  if (available.has(LONG_SESSION)) {
    const long = loadCorpusSession(LONG_SESSION);
    while (medianMs.length < WARM_UP_MAX_PASSES) {
      process.stderr.write(`\r\x1b[Kwarm-up: ${system.name} ${LONG_SESSION} pass ${medianMs.length + 1}`);
      const replay = await system.replay(long, options(firstWindow));
      medianMs.push(median(replay.requests.map((call) => call.timeMs)));
      const [before, last] = medianMs.slice(-2);
      if (
        medianMs.length >= WARM_UP_MIN_PASSES &&
        before !== undefined &&
        last !== undefined &&
        Math.abs(last - before) <= WARM_UP_SETTLED_CHANGE * before
      )
        break;
    }
  }
  const transcripts = new Map(request.sessions.map((file) => [file, loadCorpusSession(file)]));
  const report: SystemRunReport = {
    system: system.name,
    warmUp: { passes: medianMs.length, medianMs },
    windows: [],
  };
  for (const window of request.windows) {
    const runs: ScoredRun[] = [];
    let config: unknown;
    const startedWindow = performance.now();
    for (const [position, file] of request.sessions.entries()) {
      const transcript = transcripts.get(file);
      if (!transcript) continue;
      process.stderr.write(
        `\r\x1b[K[${windowLabel(window)}] ${system.name} ${position + 1}/${request.sessions.length} ${file.slice(0, 60)}`,
      );
      const started = performance.now();
      try {
        const replayOptions = options(window);
        const replay = await system.replay(transcript, replayOptions);
        config ??= replay.config;
        // The long session's timed passes run back to back, before this harness scores the first: the
        // scoring's own garbage is not collected inside a system's timed calls.
        const passes = [replay.requests.map((call) => call.timeMs)];
        const startedAgain = performance.now();
        while (file === LONG_SESSION && passes.length < LONG_SESSION_TIMED_PASSES) {
          const again = await system.replay(transcript, options(window));
          passes.push(again.requests.map((call) => call.timeMs));
        }
        // A session's wall time is one replay and its scoring, the long session's like any other.
        const againMs = performance.now() - startedAgain;
        const scored = computeReplayMetrics(
          file,
          system.name,
          transcript.messages,
          replay.requests,
          replay.finalMemory,
          {
            contextWindow: window,
            maxOutputTokens,
            // Anthropic's cache, priced by its rules: every system with one breakpoint at each request's
            // end (as agents mark), ctxkit also with the breakpoints its Anthropic client places.
            anthropicCache: {
              markings: system.peer ? ['none', 'end'] : ['none', 'end', 'ctxkit'],
              model: ANTHROPIC_BILLED_MODEL,
            },
          },
        );
        const result = sessionResult(scored, replay.notes, performance.now() - started - againMs, {
          input: replayOptions.summaryModel.inputTokens,
          output: replayOptions.summaryModel.outputTokens,
        });
        runs.push({
          result,
          times: passes[0]?.map((_, call) => median(passes.map((pass) => pass[call] ?? 0))) ?? [],
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
    const wallMs = performance.now() - startedWindow;
    process.stderr.write(
      `\r\x1b[K[${windowLabel(window)}] ${system.name}: ${runs.length} sessions in ${(wallMs / 1000).toFixed(1)} s\n`,
    );
    report.windows.push({ window, runs, config, wallMs });
  }
  return report;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

// Forked by run.ts: one request in, one report out.
if (process.send) {
  process.once('message', (request: SystemRunRequest) => {
    runSystem(request).then(
      (report) => process.send?.(report, () => process.exit(0)),
      (error: unknown) => {
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exit(1);
      },
    );
  });
}
