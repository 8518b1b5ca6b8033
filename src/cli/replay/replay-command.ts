import pc from 'picocolors';
import { ReplayInputError } from '../../core/errors/index.ts';
import { escapeForTerminal as safe, stringifyForTerminal } from '../../core/escape-for-terminal.ts';
import type { ContextEvent } from '../../core/events.ts';
import type { DisplayPolicy } from '../../core/policy/policy-schema.ts';
import { computeReplayMetrics } from '../../replay/compute-replay-metrics.ts';
import { DEFAULT_DEMO_SEED } from '../../replay/demo-session.ts';
import type { CachePricing, SessionReplay } from '../../replay/replay-types.ts';
import { replayWithCtxkit, warmUpReplay } from '../../replay/replay-with-ctxkit.ts';
import { writeReplayReport } from '../../replay/report/write-report.ts';
import { type EmbeddedStores, openEmbeddedStores } from '../../store/open-embedded-stores.ts';
import { EXIT_CHECK_FAILED, EXIT_OK } from '../exit-codes.ts';
import { createProgress } from '../progress.ts';
import { findCheckFailures, renderCheckFailures } from './check-replays.ts';
import {
  aggregate,
  renderCalls,
  renderLost,
  renderSessions,
  renderSideBySide,
  renderTotals,
} from './render-replay.ts';
import { parsePricing, parseSeed, type ReplayFlags } from './replay-flags.ts';
import {
  loadReplayPolicies,
  loadReplaySessions,
  type ReplaySession,
  type ReplayWindow,
  replayWindow,
} from './replay-inputs.ts';

interface ReplayRun {
  session: ReplaySession;
  window: ReplayWindow;
  replay: SessionReplay;
  /** The replayed policy's context levels, for the pressure column. */
  display: DisplayPolicy;
  /** Per call, what the manager did before it (for --verbose). */
  layers: string[][];
}

/** The embedded defaults (SQLite, files) unless `--store memory`. */
async function openReplayStores(flags: ReplayFlags): Promise<EmbeddedStores | undefined> {
  const kind = flags.store ?? 'sqlite';
  if (kind === 'memory') return undefined;
  if (kind !== 'sqlite') {
    throw new ReplayInputError(`--store: expected sqlite or memory, got "${kind}"`, {
      flag: 'store',
      value: kind,
    });
  }
  return openEmbeddedStores(flags.data !== undefined ? { dataDir: flags.data } : {});
}

/**
 * The run's place among the replays kept in the data directory, zero-padded: `run0001` in a fresh one.
 * Not a time stamp: a session's id is part of what its requests carry (the summarized transcript's path),
 * and ids of varying length and digits made the same replay count differently from one run to the next.
 */
async function nextRunId(stores: EmbeddedStores): Promise<string> {
  let last = 0;
  for (const { id } of await stores.store.list()) {
    const run = RUN_ID.exec(id)?.[1];
    if (run !== undefined) last = Math.max(last, Number(run));
  }
  return `run${String(last + 1).padStart(RUN_DIGITS, '0')}`;
}

const RUN_DIGITS = 4;
const RUN_ID = /^replay-.*-run(\d+)$/;

/** A session id the blob store accepts: letters, digits, dot, dash, underscore. */
function replaySessionId(session: string, system: string, runId: string): string {
  const slug = (text: string) =>
    text
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-.]+/, '')
      .slice(0, 80);
  return `replay-${slug(session)}-${slug(system)}-${runId}`;
}

/**
 * `ctxkit replay`: replays each session under each policy as the agent lived it and prints, per model
 * call and in total, what was sent, what it cost with and without a prompt cache, what was compacted,
 * the must-be-zero figures (overflows, orphans), how much of the session's facts survived, and the time
 * spent inside ctxkit. Returns the exit status: {@link EXIT_CHECK_FAILED} when `--check` finds a call
 * that overflowed or orphaned a tool pair, else {@link EXIT_OK}.
 */
export async function replayCommand(paths: string[], flags: ReplayFlags): Promise<number> {
  const demo = flags.demo === true;
  const seed = parseSeed(flags.seed, demo, DEFAULT_DEMO_SEED);
  const pricing = parsePricing(flags.pricing);
  const policies = await loadReplayPolicies(flags);
  const sessions = await loadReplaySessions(paths, { enabled: demo, seed }, (file, reason) =>
    process.stderr.write(`skipped ${safe(`${file}: ${reason}`)}\n`),
  );

  const first = policies[0];
  if (first) await warmUpReplay(first.policy);
  const stores = await openReplayStores(flags);
  // One run's sessions stay apart from earlier runs' in a shared data directory.
  const runId = stores ? await nextRunId(stores) : '';
  const progress = createProgress('replaying', sessions.length * policies.length);
  const runs: ReplayRun[] = [];
  for (const session of sessions) {
    for (const { system, policy } of policies) {
      const window = replayWindow(policy, session);
      const { requests, finalMemory } = await replayWithCtxkit(session.transcript, policy, {
        contextWindow: window.contextWindow,
        maxOutputTokens: window.maxOutputTokens,
        tools: session.tools,
        ...(flags.modelSummaries ? { summaries: 'model' as const } : {}),
        ...(stores ? { stores, sessionId: replaySessionId(session.name, system, runId) } : {}),
      });
      const replay = computeReplayMetrics(
        session.name,
        system,
        session.transcript.messages,
        requests,
        finalMemory,
        {
          contextWindow: window.contextWindow,
          maxOutputTokens: window.maxOutputTokens,
          pressureOf: policy.budget.pressureOf,
          pricing,
          anthropicCache: { markings: ['none', 'end', 'ctxkit'] },
        },
      );
      runs.push({
        session,
        window,
        replay,
        display: policy.display,
        layers: requests.map((request) => layersOf(request.events ?? [])),
      });
      progress.tick(safe(`${session.name} ${system}`));
    }
  }
  progress.done();
  await stores?.close();
  if (stores) process.stderr.write(`sessions, edits and trace kept in ${safe(stores.dataDir)}\n`);

  const replays = runs.map((run) => run.replay);
  if (flags.report !== undefined) {
    await writeReplayReport(replays, flags.report);
    process.stderr.write(`report written to ${safe(flags.report)}\n`);
  }
  if (flags.json) process.stdout.write(`${stringifyForTerminal(replays)}\n`);
  else process.stdout.write(`${renderRuns(runs, sessions.length, flags, pricing)}\n`);
  if (!flags.check) return EXIT_OK;
  const failures = findCheckFailures(replays);
  process.stderr.write(`${renderCheckFailures(failures, replays)}\n`);
  return failures.length > 0 ? EXIT_CHECK_FAILED : EXIT_OK;
}

function renderRuns(
  runs: readonly ReplayRun[],
  sessions: number,
  flags: ReplayFlags,
  pricing: CachePricing,
): string {
  const showCalls = flags.calls ?? sessions === 1;
  const blocks: string[] = [];
  if (showCalls || sessions === 1) {
    for (const run of runs) {
      const lines = [heading(run)];
      if (showCalls)
        lines.push(renderCalls(run.replay, run.display, flags.verbose ? run.layers : undefined), '');
      lines.push(renderTotals(aggregate([run.replay]), pricing));
      if (flags.verbose) lines.push(renderLost(run.replay));
      blocks.push(lines.join('\n'));
    }
  }
  const bySystem = new Map<string, SessionReplay[]>();
  for (const run of runs)
    bySystem.set(run.replay.system, [...(bySystem.get(run.replay.system) ?? []), run.replay]);
  if (sessions > 1) {
    for (const [system, replays] of bySystem) {
      const figures = aggregate(replays);
      blocks.push(
        [
          pc.bold(`${safe(system)} · ${sessions} sessions`),
          renderSessions(replays),
          '',
          renderTotals(figures, pricing),
        ].join('\n'),
      );
    }
  }
  if (bySystem.size > 1) {
    blocks.push(
      [
        pc.bold(`side by side · ${sessions} session${sessions === 1 ? '' : 's'}`),
        renderSideBySide(bySystem),
      ].join('\n'),
    );
  }
  return blocks.join('\n\n');
}

function heading(run: ReplayRun): string {
  const { replay, window, session } = run;
  const note = window.demoDefault ? pc.dim(' (the demo’s default window; --window to change)') : '';
  const messages = session.transcript.messages.length;
  return `${pc.bold(safe(replay.session))} · ${pc.bold(safe(replay.system))} · ${messages} messages · window ${window.contextWindow.toLocaleString('en-US')}${note}, output reserve ${window.maxOutputTokens.toLocaleString('en-US')}`;
}

/** What the manager did before a call, by layer, in order (`spill` for a tool output offloaded on arrival). */
function layersOf(events: readonly ContextEvent[]): string[] {
  const layers: string[] = [];
  for (const event of events) {
    const name =
      event.type === 'compaction-finished' && event.editIds.length > 0
        ? event.layer
        : event.type === 'tool-output-spilled'
          ? 'spill'
          : event.type === 'tool-output-normalized'
            ? 'normalize'
            : undefined;
    if (name !== undefined && layers.at(-1) !== name) layers.push(name);
  }
  return layers;
}
