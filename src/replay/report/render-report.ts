import type { SessionReplay } from '../replay-types.ts';
import { CHART_WIDTH, chartLabel, MARKER_SHAPES, renderChartSvg } from './chart.ts';
import { CATEGORIES, chartLines, type MarkerKind, markerKind, sharedTicks } from './chart-model.ts';
import { escapeHtml, jsonForScript } from './escape.ts';
import { formatInt } from './format.ts';
import { REPORT_SCRIPT } from './report-script.ts';
import { REPORT_STYLE } from './report-style.ts';
import { combinedRow, renderLostFacts, renderTotalsTable, rowOf } from './tables.ts';

export interface ReplayReportOptions {
  /** The page's title and heading. Default "ctxkit replay report". */
  title?: string;
}

interface Entry {
  replay: SessionReplay;
  /** Index in the embedded replays, which the page's script reads a chart's calls from. */
  index: number;
}

/**
 * The replay report: one self-contained HTML page (inline style, script and SVG, the replays embedded as
 * JSON, nothing fetched). Per session, one chart per policy on a shared scale and the totals (with
 * several policies, the comparison); with several sessions, an overview per policy first.
 */
export function renderReplayReport(
  replays: readonly SessionReplay[],
  options: ReplayReportOptions = {},
): string {
  const title = options.title ?? 'ctxkit replay report';
  const sessions = groupBySession(replays);
  const systems = [...new Set(replays.map((replay) => replay.system))];
  const plural = (count: number, one: string, many: string) =>
    `${formatInt(count)} ${count === 1 ? one : many}`;
  const toc =
    sessions.length > 1
      ? `<nav class="toc" aria-label="Sessions">${sessions
          .map(([name], index) => `<a href="#session-${index + 1}">${escapeHtml(name)}</a>`)
          .join('')}</nav>`
      : '';
  const body = [
    `<header><h1>${escapeHtml(title)}</h1>`,
    `<p>${plural(sessions.length, 'session', 'sessions')} · ${plural(systems.length, 'policy', 'policies')}: ${systems.map(escapeHtml).join(', ')}</p>`,
    '<p class="howto">Each chart shows the input tokens of every model call (one tokenizer for every policy), stacked by category. Lines mark the context window, the input limit (the window minus the output reserve) and where the policy clears old tool results and summarizes. A marker above a call shows what was compacted before it: hover or focus it for the event, click it or press Enter for details. The charts of a session share one scale.</p>',
    toc,
    '</header>',
    sessions.length > 1 ? overview(systems, replays) : '',
    ...sessions.map(([name, entries], index) => sessionSection(name, entries, index + 1)),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>${escapeHtml(title)}</title>
<style>${REPORT_STYLE}</style>
</head>
<body>
<main>
${body.filter((part) => part !== '').join('\n')}
</main>
<div id="tooltip" role="tooltip" hidden></div>
<script type="application/json" id="ctxkit-replays">${jsonForScript(replays)}</script>
<script>${REPORT_SCRIPT}</script>
</body>
</html>
`;
}

function groupBySession(replays: readonly SessionReplay[]): [string, Entry[]][] {
  const groups = new Map<string, Entry[]>();
  replays.forEach((replay, index) => {
    const entries = groups.get(replay.session) ?? [];
    entries.push({ replay, index });
    groups.set(replay.session, entries);
  });
  return [...groups];
}

function overview(systems: readonly string[], replays: readonly SessionReplay[]): string {
  const rows = systems.map((system) =>
    combinedRow(
      system,
      replays.filter((replay) => replay.system === system),
    ),
  );
  return `<section class="overview" aria-labelledby="overview-title"><h2 id="overview-title">All sessions</h2>${renderTotalsTable(rows, 'Totals per policy over all sessions', true)}</section>`;
}

function sessionSection(name: string, entries: readonly Entry[], number: number): string {
  const ticks = sharedTicks(entries.map((entry) => entry.replay));
  const calls = entries[0]?.replay.calls.length ?? 0;
  const windows = new Set(entries.map(({ replay }) => `${replay.contextWindow}/${replay.maxOutputTokens}`));
  const first = entries[0]?.replay;
  const window =
    windows.size === 1 && first
      ? ` · window ${formatInt(first.contextWindow)}, output reserve ${formatInt(first.maxOutputTokens)}`
      : '';
  const policies = entries.length === 1 ? '1 policy' : `${entries.length} policies side by side`;
  const id = `session-${number}`;
  const caption = entries.length > 1 ? 'Comparison' : 'Totals';
  return [
    `<section class="session" id="${id}" aria-labelledby="${id}-title">`,
    `<h2 id="${id}-title">${escapeHtml(name)}</h2>`,
    `<p class="meta">${formatInt(calls)} model calls · ${policies}${window}</p>`,
    `<div class="charts${entries.length === 1 ? ' alone' : ''}">${entries
      .map((entry) => figure(entry, ticks, entries.length === 1 ? CHART_WIDTH.alone : CHART_WIDTH.sideBySide))
      .join('')}</div>`,
    renderTotalsTable(
      entries.map(({ replay }) => rowOf(replay)),
      caption,
    ),
    ...entries.map(({ replay }) => renderLostFacts(replay)),
    '</section>',
  ].join('\n');
}

function figure({ replay, index }: Entry, ticks: readonly number[], width: number): string {
  const id = `chart-${index + 1}`;
  const peak = replay.calls.reduce((max, call) => Math.max(max, call.inputTokens), 0);
  const limit = replay.contextWindow - replay.maxOutputTokens;
  const share = limit > 0 ? ` (${Math.round((peak / limit) * 100)}% of the input limit)` : '';
  const meta = [
    `${formatInt(replay.calls.length)} calls`,
    `window ${formatInt(replay.contextWindow)}`,
    `output reserve ${formatInt(replay.maxOutputTokens)}`,
    `peak ${formatInt(peak)}${share}`,
    `${formatInt(replay.totals.compactions)} compaction${replay.totals.compactions === 1 ? '' : 's'}`,
  ].join(' · ');
  return `<figure class="chart" id="${id}" data-replay="${index}" data-calls="${replay.calls.length}" aria-labelledby="${id}-title">
<figcaption><h3 id="${id}-title">${escapeHtml(replay.system)}</h3><p>${meta}</p></figcaption>
${renderChartSvg(replay, ticks, chartLabel(replay), width)}
${legend(replay)}
<div class="details" aria-live="polite" hidden></div>
</figure>`;
}

const MARKER_LABELS: Record<MarkerKind, string> = {
  summarize: 'summary',
  compaction: 'compaction (drop, trim…)',
  clear: 'clearing',
  edit: 'other edit (snip, truncate…)',
};

function legend(replay: SessionReplay): string {
  const items = CATEGORIES.map(
    (category) => `<li><span class="swatch c-${category}"></span>${category}</li>`,
  );
  for (const line of chartLines(replay)) {
    items.push(
      `<li><svg width="24" height="8" aria-hidden="true"><g class="ln ln-${line.kind}"><line x1="0" x2="24" y1="4" y2="4"/></g></svg>${escapeHtml(line.label)} ${formatInt(line.value)}</li>`,
    );
  }
  const kinds = new Set<MarkerKind>();
  for (const call of replay.calls) if (call.events?.length) kinds.add(markerKind(call.events));
  for (const kind of ['summarize', 'compaction', 'clear', 'edit'] as const) {
    if (!kinds.has(kind)) continue;
    items.push(
      `<li><svg width="15" height="15" viewBox="-8 -8 16 16" aria-hidden="true"><g class="mk-${kind} sample">${MARKER_SHAPES[kind]}</g></svg>${MARKER_LABELS[kind]}</li>`,
    );
  }
  if (replay.calls.some((call) => (call.workingSet?.needed ?? 0) > 0))
    items.push(
      `<li><svg width="24" height="8" aria-hidden="true"><g class="ws"><path d="M0 4L24 4"/></g></svg>working set in the request (0–100 %, plot height)</li>`,
    );
  if (replay.totals.overflows > 0)
    items.push(`<li><span class="swatch over"></span>overflow (${formatInt(replay.totals.overflows)})</li>`);
  return `<ul class="legend" aria-label="Legend">${items.join('')}</ul>`;
}
