import { percentile, round } from '../../src/replay/percentile.ts';
import type { RetentionSummary, SessionReplay } from '../../src/replay/replay-types.ts';
import { addRetention } from '../../src/replay/summarize-retention.ts';

/** One system on one session, as the results keep it (per-call figures folded into totals). */
export interface SessionResult {
  session: string;
  system: string;
  totals?: SessionReplay['totals'];
  retention?: Omit<RetentionSummary, 'lost'>;
  /** Facts lost at the end, first few, so a reader can see what kind. */
  lostSample?: string[];
  notes?: string[];
  /** o200k tokens sent to and received from the summary model over the session. */
  summaryTokens?: { input: number; output: number };
  /** Why the system could not run this session at all. */
  error?: string;
  /** Wall time of the whole replay (the system plus the fake model, tools and conversions). */
  wallMs: number;
}

export interface SystemSummary {
  system: string;
  peer: boolean;
  sessions: number;
  failed: { session: string; error: string }[];
  calls: number;
  inputTokens: number;
  overflows: number;
  /** Sessions with at least one overflowing request. */
  sessionsOverflowing: number;
  orphans: number;
  billed: number;
  billedWithCache: number;
  summaryCalls: number;
  /** What its summaries cost: o200k tokens sent to the summary model, and its replies. */
  summaryInputTokens: number;
  summaryOutputTokens: number;
  /**
   * `billedWithCache` plus the summaries at list price, in input-token equivalents: input × 1, output ×
   * {@link OUTPUT_PRICE_MULTIPLIER}. Not part of the goal; what a policy that summarizes more pays.
   */
  billedWithSummaries: number;
  compactions: number;
  retention: Omit<RetentionSummary, 'lost'>;
  /** Working-set coverage (replay/working-set.ts): seen ÷ needed over every call of every session. */
  workingSetCoverage: number;
  readBacks: number;
  /** Read-backs that found no room in the window. */
  oversizedReadBacks: number;
  /** billedWithCache plus one read-back round trip per result the agent needed and did not see. */
  effectiveBill: number;
  /** Recovery round trips (replay/recovery-bill.ts): read-backs of pointed-to blobs, tools run again. */
  recoveryReadBacks: number;
  recoveryReRuns: number;
  /** billedWithCache plus those round trips: forgetting priced as reading back or running again. */
  recoveryBill: number;
  /**
   * Anthropic's prompt cache priced by its rules (replay/anthropic-cache-bill.ts): with no breakpoint,
   * with one at each request's end, and (ctxkit) with the breakpoints its Anthropic client places.
   */
  anthropicBills: { none: number; end: number; ctxkit?: number };
  /** Per-call time over every call of every session. */
  timeMsP50: number;
  timeMsP99: number;
  /** The 979-message session alone: per-call p50, p99 and slowest call, and the calls' sum. */
  longSession?: {
    calls: number;
    timeMsP50: number;
    timeMsP99: number;
    timeMsMax: number;
    timeMsTotal: number;
    overflows: number;
    retention: number;
  };
}

/** What the aggregate needs from a replay beyond its stored result: the per-call times. */
export interface ScoredRun {
  result: SessionResult;
  times: number[];
}

export function sessionResult(
  replay: SessionReplay,
  notes: string[],
  wallMs: number,
  summaryTokens?: { input: number; output: number },
): SessionResult {
  const { lost, ...retention } = replay.retention;
  return {
    session: replay.session,
    system: replay.system,
    totals: replay.totals,
    ...(summaryTokens ? { summaryTokens } : {}),
    retention,
    lostSample: (lost ?? []).slice(0, 5).map((fact) => `${fact.kind}: ${fact.text.slice(0, 120)}`),
    ...(notes.length > 0 ? { notes: notes.slice(0, 10) } : {}),
    wallMs: round(wallMs, 0),
  };
}

export function summarizeSystem(
  system: string,
  peer: boolean,
  runs: readonly ScoredRun[],
  longSession: string,
): SystemSummary {
  const done = runs.filter((run) => run.result.totals !== undefined);
  const sum = (pick: (totals: SessionReplay['totals']) => number) =>
    done.reduce((total, run) => total + (run.result.totals ? pick(run.result.totals) : 0), 0);
  const times = done.flatMap((run) => run.times);
  const summaryInputTokens = done.reduce((total, run) => total + (run.result.summaryTokens?.input ?? 0), 0);
  const summaryOutputTokens = done.reduce((total, run) => total + (run.result.summaryTokens?.output ?? 0), 0);
  const billedWithCache = round(
    sum((totals) => totals.billedWithCache),
    0,
  );
  const long = done.find((run) => run.result.session === longSession);
  const retention = addRetention(
    done.flatMap((run) => (run.result.retention ? [{ ...run.result.retention, lost: [] }] : [])),
  );
  const { lost: _lost, ...retentionTotals } = retention;
  return {
    system,
    peer,
    sessions: done.length,
    failed: runs.flatMap((run) =>
      run.result.error ? [{ session: run.result.session, error: run.result.error }] : [],
    ),
    calls: sum((totals) => totals.calls),
    inputTokens: sum((totals) => totals.inputTokens),
    overflows: sum((totals) => totals.overflows),
    sessionsOverflowing: done.filter((run) => (run.result.totals?.overflows ?? 0) > 0).length,
    orphans: sum((totals) => totals.orphans),
    billed: sum((totals) => totals.billed),
    billedWithCache,
    summaryCalls: sum((totals) => totals.summaryCalls),
    summaryInputTokens,
    summaryOutputTokens,
    billedWithSummaries: round(
      billedWithCache + summaryInputTokens + OUTPUT_PRICE_MULTIPLIER * summaryOutputTokens,
      0,
    ),
    compactions: sum((totals) => totals.compactions),
    retention: { ...retentionTotals, share: round(retentionTotals.share, 4) },
    workingSetCoverage: round(
      sum((totals) => totals.workingSetSeen ?? 0) /
        Math.max(
          1,
          sum((totals) => totals.workingSetNeeded ?? 0),
        ),
      4,
    ),
    readBacks: sum((totals) => totals.readBacks ?? 0),
    oversizedReadBacks: sum((totals) => totals.oversizedReadBacks ?? 0),
    effectiveBill: round(
      sum((totals) => totals.effectiveBill ?? totals.billedWithCache),
      0,
    ),
    recoveryReadBacks: sum((totals) => totals.recoveryReadBacks ?? 0),
    recoveryReRuns: sum((totals) => totals.recoveryReRuns ?? 0),
    recoveryBill: round(
      sum((totals) => totals.recoveryBill ?? totals.billedWithCache),
      0,
    ),
    anthropicBills: {
      none: round(
        sum((totals) => totals.anthropicBills?.none ?? 0),
        0,
      ),
      end: round(
        sum((totals) => totals.anthropicBills?.end ?? 0),
        0,
      ),
      ...(done.some((run) => run.result.totals?.anthropicBills?.ctxkit !== undefined) && {
        ctxkit: round(
          sum((totals) => totals.anthropicBills?.ctxkit ?? 0),
          0,
        ),
      }),
    },
    timeMsP50: round(percentile(times, 0.5)),
    timeMsP99: round(percentile(times, 0.99)),
    ...(long?.result.totals
      ? {
          longSession: {
            calls: long.result.totals.calls,
            timeMsP50: round(percentile(long.times, 0.5)),
            timeMsP99: round(percentile(long.times, 0.99)),
            timeMsMax: round(percentile(long.times, 1)),
            timeMsTotal: round(long.times.reduce((total, time) => total + time, 0)),
            overflows: long.result.totals.overflows,
            retention: round(long.result.retention?.share ?? 0, 4),
          },
        }
      : {}),
  };
}

export interface WindowGoals {
  /** ctxkit default: zero overflows and zero orphans on every session. */
  noOverflowsOrOrphans: { overflows: number; orphans: number; met: boolean };
  /**
   * What the agent sees and pays (issue: the default keeps the working set in view): working-set coverage
   * at least the window's goal, retention at least 0.99, and an effective bill no higher than deepagents'
   * and at most 0.75 × LangChain.js's.
   */
  workingSet: {
    coverage: number;
    coverageGoal: number;
    retention: number;
    effectiveBill: number;
    byPeer: { peer: string; ratio: number; goal: number | undefined; coverage: number }[];
    met: boolean;
  } | null;
  /**
   * The recovery goal: ctxkit default's recovery bill at most deepagents', its working-set coverage above
   * every peer that sends no overflowing request (a system that overflows is not compared on what it
   * shows), zero overflows, and at the smallest window coverage at least {@link RECOVERY_COVERAGE_FLOORS}.
   */
  recovery: {
    recoveryBill: number;
    /** ctxkit default's recovery bill over the reference peer's (deepagents), absent without it. */
    ratio: number | undefined;
    coverage: number;
    coverageFloor: number | undefined;
    overflows: number;
    byPeer: {
      peer: string;
      recoveryBill: number;
      ratio: number;
      coverage: number;
      overflows: number;
      /** Whether ctxkit's coverage must exceed this peer's (it sent no overflowing request). */
      coverageCompared: boolean;
    }[];
    met: boolean;
  } | null;
  /** Withdrawn goal, still reported: billedWithCache ≤ 0.6 × the cheapest peer's, with retention at least that peer's. */
  cacheBill: {
    bestPeer: string;
    ratio: number;
    retention: number;
    peerRetention: number;
    met: boolean;
    /** ctxkit:default's cache-priced bill over each peer's, with both retentions. */
    byPeer: { peer: string; ratio: number; peerRetention: number }[];
  } | null;
  /**
   * The 979-message session, in one run: ctxkit:default's per-call p99 at most `SPEED_P99_GOAL_MS`, and its
   * session total (the sum of its calls) at least `SPEED_RATIO_GOAL` × under LangChain.js's. The p50 and
   * p99 ratios are reported beside them.
   */
  speed: {
    langchainP50: number;
    langchainP99: number;
    langchainTotal: number;
    ctxkitP50: number;
    ctxkitP99: number;
    ctxkitTotal: number;
    ratioP50: number;
    ratioP99: number;
    ratioTotal: number;
    metP99: boolean;
    metTotal: boolean;
    met: boolean;
  } | null;
}

export const BILL_RATIO_GOAL = 0.6;
/** Working-set coverage goals of `default`, by window (the smallest window at or above the one replayed). */
export const COVERAGE_GOALS: readonly { upTo: number; goal: number }[] = [
  { upTo: 16_000, goal: 0.6 },
  { upTo: 32_000, goal: 0.8 },
  { upTo: Number.POSITIVE_INFINITY, goal: 0.95 },
];
export const RETENTION_GOAL = 0.99;
/** Effective bill at most this many times each peer's (absent: no bound, only reported). */
export const EFFECTIVE_BILL_GOALS: Readonly<Record<string, number>> = { deepagents: 1, langchain: 0.75 };
/** Output tokens cost this many input tokens (gpt-4o's list prices: $10 and $2.50 per million). */
export const OUTPUT_PRICE_MULTIPLIER = 4;
export const SPEED_RATIO_GOAL = 20;
/** Every call fast, not only the median: ctxkit:default's per-call p99 on the long session, in ms. */
export const SPEED_P99_GOAL_MS = 5;
/** The peer whose recovery bill ctxkit default's must not exceed, at every window. */
export const RECOVERY_REFERENCE_PEER = 'deepagents';
/** Least working-set coverage of `default` under the recovery goal, by window (none past the last). */
export const RECOVERY_COVERAGE_FLOORS: readonly { upTo: number; goal: number }[] = [
  { upTo: 16_000, goal: 0.6 },
];

export function evaluateGoals(
  summaries: readonly SystemSummary[],
  ctxkitName: string,
  langchainName: string,
  window: number,
): WindowGoals {
  const ctxkit = summaries.find((summary) => summary.system === ctxkitName);
  const peers = summaries.filter((summary) => summary.peer && summary.sessions > 0);
  const best = [...peers].sort((a, b) => a.billedWithCache - b.billedWithCache)[0];
  const langchain = summaries.find((summary) => summary.system === langchainName);
  const ratio = (a: number, b: number): number => (b > 0 ? a / b : Number.POSITIVE_INFINITY);
  return {
    noOverflowsOrOrphans: {
      overflows: ctxkit?.overflows ?? -1,
      orphans: ctxkit?.orphans ?? -1,
      met:
        ctxkit !== undefined && ctxkit.overflows === 0 && ctxkit.orphans === 0 && ctxkit.failed.length === 0,
    },
    workingSet: ctxkit ? workingSetGoal(ctxkit, peers, window) : null,
    recovery: ctxkit ? recoveryGoal(ctxkit, peers, window) : null,
    cacheBill:
      ctxkit && best
        ? {
            bestPeer: best.system,
            ratio: round(ratio(ctxkit.billedWithCache, best.billedWithCache), 3),
            retention: ctxkit.retention.share,
            peerRetention: best.retention.share,
            met:
              ratio(ctxkit.billedWithCache, best.billedWithCache) <= BILL_RATIO_GOAL &&
              ctxkit.retention.share >= best.retention.share,
            byPeer: peers.map((peer) => ({
              peer: peer.system,
              ratio: round(ratio(ctxkit.billedWithCache, peer.billedWithCache), 3),
              peerRetention: peer.retention.share,
            })),
          }
        : null,
    speed:
      ctxkit?.longSession && langchain?.longSession
        ? speedGoal(langchain.longSession, ctxkit.longSession)
        : null,
  };
}

function workingSetGoal(
  ctxkit: SystemSummary,
  peers: readonly SystemSummary[],
  window: number,
): NonNullable<WindowGoals['workingSet']> {
  const coverageGoal = COVERAGE_GOALS.find((goal) => window <= goal.upTo)?.goal ?? 0.95;
  const byPeer = peers.map((peer) => ({
    peer: peer.system,
    ratio: round(
      peer.effectiveBill > 0 ? ctxkit.effectiveBill / peer.effectiveBill : Number.POSITIVE_INFINITY,
      3,
    ),
    goal: EFFECTIVE_BILL_GOALS[peer.system],
    coverage: peer.workingSetCoverage,
  }));
  return {
    coverage: ctxkit.workingSetCoverage,
    coverageGoal,
    retention: ctxkit.retention.share,
    effectiveBill: ctxkit.effectiveBill,
    byPeer,
    met:
      ctxkit.workingSetCoverage >= coverageGoal &&
      ctxkit.retention.share >= RETENTION_GOAL &&
      byPeer.every((peer) => peer.goal === undefined || peer.ratio <= peer.goal),
  };
}

function recoveryGoal(
  ctxkit: SystemSummary,
  peers: readonly SystemSummary[],
  window: number,
): NonNullable<WindowGoals['recovery']> {
  const reference = peers.find((peer) => peer.system === RECOVERY_REFERENCE_PEER);
  const ratioTo = (peer: SystemSummary): number =>
    peer.recoveryBill > 0 ? ctxkit.recoveryBill / peer.recoveryBill : Number.POSITIVE_INFINITY;
  const coverageFloor = RECOVERY_COVERAGE_FLOORS.find((floor) => window <= floor.upTo)?.goal;
  const byPeer = peers.map((peer) => ({
    peer: peer.system,
    recoveryBill: peer.recoveryBill,
    ratio: round(ratioTo(peer), 3),
    coverage: peer.workingSetCoverage,
    overflows: peer.overflows,
    coverageCompared: peer.overflows === 0,
  }));
  const ratio = reference ? ratioTo(reference) : undefined;
  return {
    recoveryBill: ctxkit.recoveryBill,
    ratio: ratio === undefined ? undefined : round(ratio, 3),
    coverage: ctxkit.workingSetCoverage,
    coverageFloor,
    overflows: ctxkit.overflows,
    byPeer,
    met:
      ratio !== undefined &&
      ratio <= 1 &&
      ctxkit.overflows === 0 &&
      ctxkit.failed.length === 0 &&
      (coverageFloor === undefined || ctxkit.workingSetCoverage >= coverageFloor) &&
      byPeer.every((peer) => !peer.coverageCompared || ctxkit.workingSetCoverage > peer.coverage),
  };
}

function speedGoal(
  langchain: { timeMsP50: number; timeMsP99: number; timeMsTotal: number },
  ctxkit: { timeMsP50: number; timeMsP99: number; timeMsTotal: number },
): NonNullable<WindowGoals['speed']> {
  const ratio = (a: number, b: number) => (b > 0 ? a / b : Number.POSITIVE_INFINITY);
  const ratioTotal = ratio(langchain.timeMsTotal, ctxkit.timeMsTotal);
  const metP99 = ctxkit.timeMsP99 <= SPEED_P99_GOAL_MS;
  const metTotal = ratioTotal >= SPEED_RATIO_GOAL;
  return {
    langchainP50: langchain.timeMsP50,
    langchainP99: langchain.timeMsP99,
    langchainTotal: langchain.timeMsTotal,
    ctxkitP50: ctxkit.timeMsP50,
    ctxkitP99: ctxkit.timeMsP99,
    ctxkitTotal: ctxkit.timeMsTotal,
    ratioP50: round(ratio(langchain.timeMsP50, ctxkit.timeMsP50), 1),
    ratioP99: round(ratio(langchain.timeMsP99, ctxkit.timeMsP99), 1),
    ratioTotal: round(ratioTotal, 1),
    metP99,
    metTotal,
    met: metP99 && metTotal,
  };
}
