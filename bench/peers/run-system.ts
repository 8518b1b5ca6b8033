/**
 * One system's part of `bench:peers`, run in a process of its own (`run.ts` forks one per system): its
 * warm-up, then every session at every window, each replay scored; then, while the other systems' processes
 * wait, timed passes of the long session whenever the parent asks. Alone in its process, no system's
 * timings pay for another's garbage, JIT state or shared-library call sites made megamorphic by
 * another's use (zod, the tokenizer): what is measured is what the system costs in an agent's process.
 *
 * Talks to the parent over IPC: a `run` request is answered with one `SystemRunReport`, each `time`
 * request with the per-call times of one pass, and `done` ends the process.
 */
import { performance } from 'node:perf_hooks';
import type { Transcript } from '../../src/core/message.ts';
import { computeReplayMetrics } from '../../src/replay/compute-replay-metrics.ts';
import { corpusFiles, LONG_SESSION, loadCorpusSession } from '../../src/testing/corpus.ts';
import { type ScoredRun, sessionResult } from './aggregate.ts';
import { useCompiledCtxkit } from './ctxkit-engine.ts';
import type { PeerReplayOptions } from './peer-types.ts';
import { createSummaryModel } from './summary-model.ts';
import {
  medianOf,
  type SystemProcessAnswer,
  type SystemProcessRequest,
  type SystemRunReport,
  type SystemRunRequest,
} from './system-process-protocol.ts';
import { BENCH_SYSTEMS, type BenchSystem } from './systems.ts';
import { windowLabel } from './table.ts';

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

/** The options every replay of a run gets at a window (a fresh summary model each). */
function replayOptions(request: SystemRunRequest, window: number): PeerReplayOptions {
  return {
    contextWindow: window,
    maxOutputTokens: request.maxOutputTokens,
    summaryModel: createSummaryModel(),
    ...(request.model ? { model: request.model } : {}),
  };
}

function systemNamed(name: string): BenchSystem {
  const system = BENCH_SYSTEMS.find((candidate) => candidate.name === name);
  if (!system) throw new Error(`unknown system "${name}"`);
  return system;
}

/**
 * Warm-up, then every session at every window, scored. A run's `times` are those of its one replay: the
 * long session's are replaced by the median of its timed passes (`timeLongSession`) when the parent takes them.
 */
export async function runSystem(request: SystemRunRequest): Promise<SystemRunReport> {
  const system = systemNamed(request.system);
  const { maxOutputTokens } = request;
  if (request.ctxkitFrom === 'dist') await useCompiledCtxkit();
  const options = (window: number) => replayOptions(request, window);
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
      medianMs.push(medianOf(replay.requests.map((call) => call.timeMs)));
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
        const optionsHere = options(window);
        const replay = await system.replay(transcript, optionsHere);
        config ??= replay.config;
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
        const result = sessionResult(scored, replay.notes, performance.now() - started, {
          input: optionsHere.summaryModel.inputTokens,
          output: optionsHere.summaryModel.outputTokens,
        });
        runs.push({ result, times: replay.requests.map((call) => call.timeMs) });
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

let longSession: Transcript | undefined;

/**
 * A process idle this long replays the long session once untimed before a timed pass. Left idle for a few
 * seconds, V8 collects and cools what it compiled (its memory reducer), and the next replay runs partly
 * cold: ctxkit's first pass after 20 s to 4 minutes idle took 20–90 % longer than the passes after it,
 * after 3–10 s no longer. In rounds, a system waits for every other system's pass (deepagents' takes half
 * a minute), so without this every timed pass but the slowest system's would be a cold one.
 */
export const WARM_AGAIN_AFTER_IDLE_MS = 5_000;

/**
 * One timed pass of the long session at `window`: each call's time, in order. With `warm`, an untimed
 * pass goes first.
 */
export async function timeLongSession(
  request: SystemRunRequest,
  window: number,
  warm = false,
): Promise<number[]> {
  longSession ??= loadCorpusSession(LONG_SESSION);
  const system = systemNamed(request.system);
  if (warm) await system.replay(longSession, replayOptions(request, window));
  const replay = await system.replay(longSession, replayOptions(request, window));
  return replay.requests.map((call) => call.timeMs);
}

function answer(message: SystemProcessAnswer): Promise<void> {
  return new Promise((done) => process.send?.(message, () => done()));
}

// Forked by run.ts: a run, then timed passes until told it is done.
if (process.send) {
  let run: SystemRunRequest | undefined;
  let idleSince = performance.now();
  process.on('message', (message: SystemProcessRequest) => {
    if (message.kind === 'done') process.exit(0);
    if (message.kind === 'run') run = message.request;
    const asked = run;
    const work: Promise<SystemProcessAnswer> = !asked
      ? Promise.reject(new Error('asked to time before a run'))
      : message.kind === 'run'
        ? runSystem(asked).then((report) => ({ kind: 'report', report }))
        : timeLongSession(
            asked,
            message.window,
            performance.now() - idleSince >= WARM_AGAIN_AFTER_IDLE_MS,
          ).then((times) => ({ kind: 'times', times }));
    work
      .catch((error: unknown): SystemProcessAnswer => {
        process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        return { kind: 'failed', error: error instanceof Error ? error.message : String(error) };
      })
      .then((done) => {
        idleSince = performance.now();
        return answer(done);
      });
  });
}
