/**
 * The dashboard page `GET /` serves: one self-contained HTML document (inline style and script, no
 * external load; its Content-Security-Policy allows requests to the proxy only). It lists the caller's
 * sessions (`GET /api/sessions`) with their context percentage, coloured by the policy's display
 * thresholds as the CLI colours it (yellow from `warnAt`, red from `dangerAt`); for the selected session it
 * shows the savings, charts the input tokens of each call by category (`GET /api/sessions/:id/calls`)
 * against the window and the thresholds, with a marker on each call that compacted opening its events,
 * and shows what the model sees now (`GET /api/sessions/:id/view`). `GET /api/events` keeps it live. A
 * proxy with tokens is opened as `/#token=…` (the fragment never leaves the browser): the page sends it as
 * the bearer key.
 */
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';
import { MAX_CALLS_PER_SESSION } from './call-history.ts';
import { CHART_SCRIPT } from './dashboard-script-chart.ts';
import { CORE_SCRIPT, START_SCRIPT } from './dashboard-script-core.ts';
import { VIEW_SCRIPT } from './dashboard-script-view.ts';
import { DASHBOARD_STYLE } from './dashboard-style.ts';

/** JSON safe inside a `<script>` element: no `<` to close it. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

const swatch = (category: string, label: string): string =>
  `<li><span class="swatch c-${category}"></span>${label}</li>`;
const lineSample = (line: string, label: string): string =>
  `<li><span class="line-sample ln-${line}"></span>${label}</li>`;
const markerSample = (kind: string, label: string): string =>
  `<li class="mk-${kind}"><span class="tri"></span><span class="muted">${label}</span></li>`;

const LEGEND = `<ul class="legend" id="legend" aria-label="legend">
${swatch('system', 'system prompt')}${swatch('tools', 'tool definitions')}${swatch('summary', 'summary')}${swatch('memory', 'memory')}${swatch('history', 'history')}${swatch('saved', 'saved by ctxkit')}
${lineSample('window', 'window')}${lineSample('clearing', 'clearing threshold')}${lineSample('summarize', 'summarize threshold')}${lineSample('warn', 'warn level')}${lineSample('danger', 'danger level')}
</ul>
<ul class="legend" aria-label="compaction markers">
<li>compacted (click a marker):</li>${markerSample('summarize', 'summarized')}${markerSample('clear', 'cleared / offloaded')}${markerSample('offload', 'offloaded on arrival')}${markerSample('emergency', 'emergency')}${markerSample('compaction', 'other')}
</ul>`;

export function renderDashboardPage(thresholds: ContextLevelThresholds): string {
  const config = {
    display: { warnAt: thresholds.warnAt, dangerAt: thresholds.dangerAt },
    maxCalls: MAX_CALLS_PER_SESSION,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>ctxkit proxy</title>
<style>${DASHBOARD_STYLE}</style>
</head>
<body>
<header><h1>ctxkit proxy</h1><p>Sessions and model calls through this proxy · <span id="status">connecting…</span></p></header>
<main>
<section><h2>Sessions</h2><p id="empty" class="muted" hidden>No session yet.</p><ul id="sessions"></ul></section>
<div class="column">
<section id="chart-section">
<h2 id="chart-title">Input tokens per call</h2>
<dl id="savings" class="figures"></dl>
<p id="chart-meta" class="muted"></p>
<svg id="chart" class="plot" viewBox="0 0 1000 340" role="group" aria-label="input tokens per model call, by category, with the tokens saved, the window and the thresholds"></svg>
${LEGEND}
<p id="savings-note" class="muted"></p>
</section>
<section id="detail" hidden aria-live="polite" aria-labelledby="detail-title"></section>
<section id="view-section" hidden>
<h2>What the model sees now</h2>
<p id="view-marks" class="view-marks"></p>
<ol id="view" aria-label="the session's current view"></ol>
</section>
</div>
</main>
<div id="tooltip" role="tooltip" hidden></div>
<script type="application/json" id="config">${scriptJson(config)}</script>
<script>${CORE_SCRIPT}${CHART_SCRIPT}${VIEW_SCRIPT}${START_SCRIPT}</script>
</body>
</html>
`;
}
