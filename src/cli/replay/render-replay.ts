import pc from 'picocolors';
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { escapeForTerminal as safe } from '../../core/escape-for-terminal.ts';
import { percentile } from '../../replay/percentile.ts';
import type { CachePricing, RetentionSummary, SessionReplay } from '../../replay/replay-types.ts';
import { addRetention, FACT_KINDS } from '../../replay/summarize-retention.ts';
import { colourByLevel, type LevelColors } from '../context-colour.ts';
import { distinctShortNames, renderTable, shorten } from './render-table.ts';

/** Session names in the sessions table are cut to this many characters. */
export const SESSION_NAME_WIDTH = 48;

const number = (value: number) => Math.round(value).toLocaleString('en-US');
const percent = (value: number) => (Number.isFinite(value) ? `${(value * 100).toFixed(1)}%` : '∞');
const millis = (value: number) =>
  value < 1 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
const quiet = (value: number) => (value === 0 ? pc.dim('·') : String(value));
/** The must-be-zero figures: green when 0, red and bold otherwise. */
const mustBeZero = (value: number) => (value === 0 ? pc.green('0') : pc.red(pc.bold(String(value))));
const saving = (billed: number, withCache: number) => (billed > 0 ? 1 - withCache / billed : 0);
/** What the cache does to the bill: a saving in green (−57.6%), a cost in red (+18.1%). */
const cacheChange = (saved: number) =>
  saved >= 0 ? pc.green(`−${percent(saved)}`) : pc.red(`+${percent(-saved)}`);

/** Figures over several replays (sessions) of one system. */
export interface ReplayAggregate {
  sessions: number;
  calls: number;
  inputTokens: number;
  billed: number;
  billedWithCache: number;
  peakPressure: number;
  edits: number;
  compactions: number;
  summaryCalls: number;
  overflows: number;
  orphans: number;
  retention: RetentionSummary;
  /** Working-set coverage (replay/working-set.ts): pairs needed and seen, read-backs and what they cost. */
  workingSet: { needed: number; seen: number; readBacks: number; oversized: number };
  effectiveBill: number;
  /** The recovery bill (replay/recovery-bill.ts): read-backs of pointed-to blobs, tools run again, and the bill with them. */
  recovery: { readBacks: number; reRuns: number; bill: number };
  /** Anthropic's prompt cache priced by its rules: no breakpoint, one at each request's end, ctxkit's. */
  anthropic: { none: number; end: number; ctxkit: number };
  timeMsP50: number;
  timeMsP99: number;
}

export function aggregate(replays: readonly SessionReplay[]): ReplayAggregate {
  const calls = replays.flatMap((replay) => replay.calls);
  const times = calls.map((call) => call.timeMs);
  const sum = (pick: (replay: SessionReplay) => number) =>
    replays.reduce((total, replay) => total + pick(replay), 0);
  return {
    sessions: replays.length,
    calls: calls.length,
    inputTokens: sum((replay) => replay.totals.inputTokens),
    billed: sum((replay) => replay.totals.billed),
    billedWithCache: sum((replay) => replay.totals.billedWithCache),
    peakPressure: calls.reduce((peak, call) => Math.max(peak, call.pressure), 0),
    edits: calls.reduce((total, call) => total + call.edits, 0),
    compactions: sum((replay) => replay.totals.compactions),
    summaryCalls: sum((replay) => replay.totals.summaryCalls),
    overflows: sum((replay) => replay.totals.overflows),
    orphans: sum((replay) => replay.totals.orphans),
    retention: addRetention(replays.map((replay) => replay.retention)),
    workingSet: {
      needed: sum((replay) => replay.totals.workingSetNeeded),
      seen: sum((replay) => replay.totals.workingSetSeen),
      readBacks: sum((replay) => replay.totals.readBacks),
      oversized: sum((replay) => replay.totals.oversizedReadBacks),
    },
    effectiveBill: sum((replay) => replay.totals.effectiveBill),
    recovery: {
      readBacks: sum((replay) => replay.totals.recoveryReadBacks ?? 0),
      reRuns: sum((replay) => replay.totals.recoveryReRuns ?? 0),
      bill: sum((replay) => replay.totals.recoveryBill ?? replay.totals.billedWithCache),
    },
    anthropic: {
      none: sum((replay) => replay.totals.anthropicBills?.none ?? 0),
      end: sum((replay) => replay.totals.anthropicBills?.end ?? 0),
      ctxkit: sum((replay) => replay.totals.anthropicBills?.ctxkit ?? 0),
    },
    timeMsP50: percentile(times, 0.5),
    timeMsP99: percentile(times, 0.99),
  };
}

/** A pressure, coloured by its level under the policy's `display` thresholds (deepagents: yellow 70 %, red 90 %). */
export function pressureCell(
  pressure: number,
  display: ContextLevelThresholds,
  colors: LevelColors = pc,
): string {
  return colourByLevel(percent(pressure), pressure, display, colors);
}

/**
 * One row per model call, its pressure coloured by the replayed policy's `display` levels. `layers`
 * (verbose): what the manager did before each call.
 */
export function renderCalls(
  replay: SessionReplay,
  display: ContextLevelThresholds,
  layers?: readonly string[][],
): string {
  const header = [
    'call',
    'msg',
    'input',
    'press',
    'shared',
    'w/cache',
    'edits',
    'cmp',
    'sum',
    'ovf',
    'orph',
    'ms',
  ];
  if (layers) header.push('what ctxkit did');
  const rows = replay.calls.map((call, index) => {
    const row = [
      String(call.call),
      String(call.messageIndex),
      number(call.inputTokens),
      pressureCell(call.pressure, display),
      number(call.sharedPrefixTokens),
      number(call.billedWithCache),
      quiet(call.edits),
      call.compactions > 0 ? pc.yellow(String(call.compactions)) : quiet(0),
      quiet(call.summaryCalls),
      call.overflow ? pc.red(pc.bold('1')) : pc.dim('0'),
      call.orphans > 0 ? pc.red(pc.bold(String(call.orphans))) : pc.dim('0'),
      millis(call.timeMs),
    ];
    if (layers) row.push(pc.dim(safe((layers[index] ?? []).join(', '))));
    return row;
  });
  return renderTable(header, rows, { left: layers ? [header.length - 1] : [] });
}

export function renderRetention(retention: RetentionSummary, indent: string): string {
  const places = retention.byPlace;
  const kinds = FACT_KINDS.filter((kind) => retention.byKind[kind].total > 0)
    .map((kind) => `${kind}s ${retention.byKind[kind].kept}/${retention.byKind[kind].total}`)
    .join(' · ');
  const lost = places.lost > 0 ? pc.yellow(`lost ${places.lost}`) : 'lost 0';
  return [
    `${percent(retention.share)} of ${number(retention.total)} facts: view ${places.view} · summary ${places.summary} · pointer ${places.pointer} · ${lost}`,
    ...(kinds ? [`${indent}${pc.dim(kinds)}`] : []),
  ].join('\n');
}

/** What the agent still sees of the output it went on to use, and what seeing the rest costs. */
export function renderWorkingSet(figures: ReplayAggregate): string {
  const { needed, seen, readBacks, oversized } = figures.workingSet;
  if (needed === 0) return pc.dim('no call used earlier tool output');
  const tooBig = oversized > 0 ? pc.yellow(`${oversized} without room`) : '0 without room';
  return `${percent(seen / needed)} in the request of ${number(needed)} things the agent used from earlier output · ${number(readBacks)} read-backs (${tooBig}) · effective bill ${pc.bold(number(figures.effectiveBill))}`;
}

/**
 * What getting the rest back costs: a read-back of each blob a pointer names that holds some of it (sized
 * as read_offloaded answers), a tool run again for what no pointer holds, and the bill with them.
 */
export function renderRecovery(figures: ReplayAggregate): string {
  const { readBacks, reRuns, bill } = figures.recovery;
  const trips = `${number(readBacks)} read-backs of pointed-to output · ${reRuns > 0 ? pc.yellow(`${number(reRuns)} tools run again`) : '0 tools run again'}`;
  return `${trips} · recovery bill ${pc.bold(number(bill))} ${pc.dim(`(${percent(figures.billedWithCache > 0 ? bill / figures.billedWithCache - 1 : 0)} over the cache bill)`)}`;
}

/**
 * On Anthropic, whose cache reads only where a request marks a breakpoint: the bill with none, with one at
 * each request's end, and with the breakpoints ctxkit's Anthropic client places.
 */
export function renderAnthropicBill(figures: ReplayAggregate): string {
  const { none, end, ctxkit } = figures.anthropic;
  if (none === 0) return pc.dim('not priced');
  return `${number(none)} without breakpoints · ${number(end)} with one at each request's end · ${pc.bold(number(ctxkit))} with ctxkit's (${percent(saving(none, ctxkit))} saved)`;
}

/** The totals of one session under one system: what a user reads first. */
export function renderTotals(figures: ReplayAggregate, pricing: CachePricing): string {
  const label = (text: string) => `  ${text.padEnd(14)}`;
  const indent = ' '.repeat(16);
  const perCall = figures.calls > 0 ? figures.inputTokens / figures.calls : 0;
  return [
    `${label('input tokens')}${number(figures.inputTokens)} sent · ${number(perCall)} per call · peak pressure ${percent(figures.peakPressure)}`,
    `${label('billed')}${number(figures.billed)} at list price · ${pc.bold(number(figures.billedWithCache))} with prompt cache (read ${pricing.readMultiplier}×, write ${pricing.writeMultiplier}×): ${cacheChange(saving(figures.billed, figures.billedWithCache))}`,
    `${label('compaction')}${figures.compactions} compactions · ${figures.summaryCalls} summary model calls · ${figures.edits} edits`,
    `${label('overflows')}${mustBeZero(figures.overflows)}  ${pc.dim('(requests over the window; must be 0)')}`,
    `${label('orphans')}${mustBeZero(figures.orphans)}  ${pc.dim('(tool calls or results without their pair; must be 0)')}`,
    `${label('retention')}${renderRetention(figures.retention, indent)}`,
    `${label('working set')}${renderWorkingSet(figures)}`,
    `${label('recovery')}${renderRecovery(figures)}`,
    `${label('on Anthropic')}${renderAnthropicBill(figures)}`,
    `${label('ctxkit time')}p50 ${millis(figures.timeMsP50)} ms · p99 ${millis(figures.timeMsP99)} ms per call`,
  ].join('\n');
}

/** One row per session for one system, and the total. */
export function renderSessions(replays: readonly SessionReplay[]): string {
  const header = [
    'session',
    'calls',
    'input',
    'w/cache',
    'saved',
    'cmp',
    'sum',
    'ovf',
    'orph',
    'kept',
    'wset',
    'p50 ms',
    'p99 ms',
  ];
  const row = (name: string, figures: ReplayAggregate) => [
    name,
    number(figures.calls),
    number(figures.inputTokens),
    number(figures.billedWithCache),
    percent(saving(figures.billed, figures.billedWithCache)),
    quiet(figures.compactions),
    quiet(figures.summaryCalls),
    mustBeZero(figures.overflows),
    mustBeZero(figures.orphans),
    percent(figures.retention.share),
    figures.workingSet.needed > 0 ? percent(figures.workingSet.seen / figures.workingSet.needed) : '–',
    millis(figures.timeMsP50),
    millis(figures.timeMsP99),
  ];
  const names = distinctShortNames(
    replays.map((replay) => safe(replay.session.replace(/\.jsonl?$/, ''))),
    SESSION_NAME_WIDTH,
  );
  const rows = replays.map((replay, index) => row(names[index] ?? safe(replay.session), aggregate([replay])));
  return renderTable(header, rows, {
    footer: [row(pc.bold(`all ${replays.length} sessions`), aggregate(replays))],
  });
}

/** Several systems' totals in columns, over the same sessions. */
export function renderSideBySide(bySystem: ReadonlyMap<string, readonly SessionReplay[]>): string {
  const systems = [...bySystem.keys()];
  const figures = systems.map((system) => aggregate(bySystem.get(system) ?? []));
  const line = (label: string, cell: (figures: ReplayAggregate) => string) => [label, ...figures.map(cell)];
  const rows = [
    line('calls', (f) => number(f.calls)),
    line('input tokens', (f) => number(f.inputTokens)),
    line('billed, list price', (f) => number(f.billed)),
    line('billed with cache', (f) => number(f.billedWithCache)),
    line('cache saving', (f) => percent(saving(f.billed, f.billedWithCache))),
    line('peak pressure', (f) => percent(f.peakPressure)),
    line('compactions', (f) => number(f.compactions)),
    line('summary model calls', (f) => number(f.summaryCalls)),
    line('overflows (must be 0)', (f) => mustBeZero(f.overflows)),
    line('orphans (must be 0)', (f) => mustBeZero(f.orphans)),
    line('working-set coverage', (f) =>
      f.workingSet.needed > 0 ? percent(f.workingSet.seen / f.workingSet.needed) : '–',
    ),
    line('read-backs', (f) => number(f.workingSet.readBacks)),
    line('effective bill', (f) => number(f.effectiveBill)),
    line('recovery read-backs', (f) => number(f.recovery.readBacks)),
    line('tools run again', (f) => number(f.recovery.reRuns)),
    line('recovery bill', (f) => number(f.recovery.bill)),
    line('Anthropic, no breakpoints', (f) => number(f.anthropic.none)),
    line("Anthropic, ctxkit's breakpoints", (f) => number(f.anthropic.ctxkit)),
    line('retention', (f) => percent(f.retention.share)),
    line('  in view', (f) => number(f.retention.byPlace.view)),
    line('  in summary', (f) => number(f.retention.byPlace.summary)),
    line('  behind pointer', (f) => number(f.retention.byPlace.pointer)),
    line('  lost', (f) => number(f.retention.byPlace.lost)),
    line('ctxkit time p50 ms', (f) => millis(f.timeMsP50)),
    line('ctxkit time p99 ms', (f) => millis(f.timeMsP99)),
  ];
  return renderTable(['', ...systems.map((system) => safe(system))], rows);
}

/** Verbose: the facts a replay lost, oldest first. */
export function renderLost(replay: SessionReplay): string {
  const lost = replay.retention.lost ?? [];
  if (lost.length === 0) return '  no fact lost';
  const more = replay.retention.byPlace.lost - lost.length;
  return [
    '  lost facts',
    ...lost.map(
      (fact) => `    #${fact.messageIndex} ${safe(fact.kind).padEnd(7)} ${shorten(safe(fact.text), 100)}`,
    ),
    ...(more > 0 ? [`    … and ${more} more`] : []),
  ].join('\n');
}
