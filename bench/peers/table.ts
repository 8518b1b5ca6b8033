import { SPEED_P99_GOAL_MS, SPEED_RATIO_GOAL, type SystemSummary, type WindowGoals } from './aggregate.ts';

const thousands = (value: number): string => Math.round(value).toLocaleString('en-US');
const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(2));
const share = (value: number): string => `${(value * 100).toFixed(1)} %`;

export const windowLabel = (window: number): string =>
  window % 1_000 === 0 ? `${window / 1_000}k` : String(window);

/** One window's table, in Markdown: per system, totals over the sessions. */
export function renderTable(
  window: number,
  maxOutputTokens: number,
  summaries: readonly SystemSummary[],
): string {
  const header = [
    'system',
    'sessions',
    'calls',
    'overflowing requests',
    'orphans',
    'billed (list)',
    'billed (cache)',
    'retention',
    'working set',
    'read-backs',
    'effective bill',
    'recovery trips (read-backs + re-runs)',
    'recovery bill',
    'Anthropic bill: none / end / ctxkit marks',
    'summary calls',
    'with summaries',
    'ms/call p50',
    'ms/call p99',
  ];
  const rows = summaries.map((summary) => [
    summary.system,
    summary.failed.length > 0
      ? `${summary.sessions} (${summary.failed.length} failed)`
      : String(summary.sessions),
    thousands(summary.calls),
    summary.sessionsOverflowing > 0
      ? `${thousands(summary.overflows)} (${summary.sessionsOverflowing} sessions)`
      : thousands(summary.overflows),
    thousands(summary.orphans),
    thousands(summary.billed),
    thousands(summary.billedWithCache),
    share(summary.retention.share),
    share(summary.workingSetCoverage),
    summary.oversizedReadBacks > 0
      ? `${thousands(summary.readBacks)} (${thousands(summary.oversizedReadBacks)} no room)`
      : thousands(summary.readBacks),
    thousands(summary.effectiveBill),
    `${thousands(summary.recoveryReadBacks + summary.recoveryReRuns)} (${thousands(summary.recoveryReadBacks)} + ${thousands(summary.recoveryReRuns)})`,
    thousands(summary.recoveryBill),
    [summary.anthropicBills.none, summary.anthropicBills.end, summary.anthropicBills.ctxkit]
      .map((bill) => (bill === undefined ? '–' : thousands(bill)))
      .join(' / '),
    thousands(summary.summaryCalls),
    thousands(summary.billedWithSummaries),
    ms(summary.timeMsP50),
    ms(summary.timeMsP99),
  ]);
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [
    `### Window ${windowLabel(window)} (${thousands(window)} tokens, ${thousands(maxOutputTokens)} reserved for the reply)`,
    '',
    line(header),
    line(header.map((_, column) => (column === 0 ? '---' : '---:'))),
    ...rows.map(line),
  ].join('\n');
}

export function renderLongSession(session: string, summaries: readonly SystemSummary[]): string {
  const rows = summaries.flatMap((summary) => {
    const long = summary.longSession;
    return long
      ? [
          `| ${summary.system} | ${thousands(long.calls)} | ${ms(long.timeMsP50)} | ${ms(long.timeMsP99)} | ${ms(long.timeMsMax)} | ${ms(long.timeMsTotal)} |`,
        ]
      : [];
  });
  if (rows.length === 0) return `No system replayed ${session}.`;
  return [
    `Per-call time on ${session}, ms:`,
    '',
    '| system | calls | p50 | p99 | max | session total |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}

export function renderGoals(goals: WindowGoals): string {
  const mark = (met: boolean): string => (met ? 'met' : 'NOT met');
  const lines = [
    `- ctxkit:default overflows ${goals.noOverflowsOrOrphans.overflows}, orphans ${goals.noOverflowsOrOrphans.orphans}: ${mark(goals.noOverflowsOrOrphans.met)}`,
  ];
  if (goals.workingSet) {
    const ws = goals.workingSet;
    lines.push(
      `- working set: coverage ${share(ws.coverage)} (goal ≥ ${share(ws.coverageGoal)}), retention ${share(ws.retention)} (goal ≥ 99.0 %), effective bill ${thousands(ws.effectiveBill)}: ${ws.byPeer
        .map(
          (peer) =>
            `${peer.ratio.toFixed(3)} × ${peer.peer}'s${peer.goal !== undefined ? ` (goal ≤ ${peer.goal})` : ''}, its coverage ${share(peer.coverage)}`,
        )
        .join('; ')}: ${mark(ws.met)}`,
    );
  }
  if (goals.recovery) {
    const goal = goals.recovery;
    const floor = goal.coverageFloor !== undefined ? ` (goal ≥ ${share(goal.coverageFloor)})` : '';
    lines.push(
      `- recovery bill ${thousands(goal.recoveryBill)}: ${goal.ratio !== undefined ? `${goal.ratio.toFixed(3)} × deepagents' (goal ≤ 1)` : 'no deepagents run to compare'}, overflows ${goal.overflows}, coverage ${share(goal.coverage)}${floor} vs ${goal.byPeer
        .map(
          (peer) =>
            `${peer.peer} ${share(peer.coverage)}${peer.coverageCompared ? '' : ` (${thousands(peer.overflows)} overflowing, not compared)`} at ${peer.ratio.toFixed(3)} × its bill`,
        )
        .join('; ')}: ${mark(goal.met)}`,
    );
  }
  if (goals.cacheBill) {
    const bill = goals.cacheBill;
    lines.push(
      `- billed with cache vs cheapest peer (${bill.bestPeer}): ${bill.ratio.toFixed(3)} × (withdrawn goal ≤ 0.6), retention ${share(bill.retention)} vs ${share(bill.peerRetention)}: ${mark(bill.met)}`,
    );
    lines.push(
      `  ctxkit:default billed with cache over each peer's: ${bill.byPeer
        .map((peer) => `${peer.peer} ${peer.ratio.toFixed(3)} × (its retention ${share(peer.peerRetention)})`)
        .join(', ')}`,
    );
  }
  if (goals.speed) {
    const speed = goals.speed;
    lines.push(
      `- the long session, ctxkit:default: p99 ${ms(speed.ctxkitP99)} ms (goal ≤ ${SPEED_P99_GOAL_MS}) ${mark(speed.metP99)}; session total ${ms(speed.ctxkitTotal)} ms against LangChain.js's ${ms(speed.langchainTotal)}, ${speed.ratioTotal} × (goal ≥ ${SPEED_RATIO_GOAL}) ${mark(speed.metTotal)}; per call ${speed.ratioP50} × at p50, ${speed.ratioP99} × at p99`,
    );
  }
  return lines.join('\n');
}
