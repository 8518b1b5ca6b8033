/**
 * The dashboard page `GET /` serves: one self-contained HTML document (inline style and script, no
 * external load; its Content-Security-Policy allows requests to the proxy only). It lists the caller's
 * sessions (`GET /api/sessions`) with their context percentage, coloured by the policy's display
 * thresholds as the CLI colours it (yellow from `warnAt`, red from `dangerAt`); charts one session's input
 * tokens per call (`GET /api/sessions/:id/calls`) with its window as a line; and appends calls as
 * `GET /api/events` streams them. A proxy with tokens is opened as `/#token=…` (the fragment never leaves
 * the browser): the page sends it as the bearer key.
 */
import type { ContextLevelThresholds } from '../../core/budget/context-level.ts';

const STYLE = `
:root {
  --ink: #0f172a; --muted: #475569; --faint: #94a3b8; --rule: #e2e8f0; --paper: #ffffff; --ground: #f1f5f9;
  --history: #60a5fa; --saved: #86efac; --window: #0f172a; --warn: #a16207; --warn-bg: #fef9c3;
  --danger: #b91c1c; --danger-bg: #fee2e2;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--ground); color: var(--ink); font: 14px/1.45 system-ui, sans-serif; }
header { padding: 16px 24px 8px; } header h1 { margin: 0; font-size: 20px; }
header p { margin: 2px 0 0; color: var(--muted); }
main { display: grid; grid-template-columns: 300px 1fr; gap: 16px; padding: 8px 24px 24px; }
section { background: var(--paper); border: 1px solid var(--rule); border-radius: 10px; padding: 12px 16px; min-width: 0; }
h2 { font-size: 15px; margin: 0 0 8px; }
ul#sessions { list-style: none; margin: 0; padding: 0; }
ul#sessions li { display: flex; justify-content: space-between; gap: 8px; padding: 6px 8px; border-radius: 6px; cursor: pointer; }
ul#sessions li:hover { background: var(--ground); }
ul#sessions li.selected { background: #dbeafe; }
ul#sessions .id { font-family: ui-monospace, monospace; font-size: 12px; overflow: hidden; text-overflow: ellipsis; }
.pct { font-variant-numeric: tabular-nums; white-space: nowrap; }
.pct.level-warn { color: var(--warn); background: var(--warn-bg); padding: 0 4px; border-radius: 4px; }
.pct.level-danger { color: var(--danger); background: var(--danger-bg); font-weight: 700; padding: 0 4px; border-radius: 4px; }
.muted { color: var(--muted); }
svg.plot { width: 100%; height: auto; display: block; }
svg.plot text { fill: var(--muted); font-size: 11px; }
svg.plot .grid { stroke: var(--rule); } svg.plot .baseline { stroke: var(--faint); }
svg.plot .bar { fill: var(--history); } svg.plot .saved { fill: var(--saved); }
svg.plot .window line { stroke: var(--window); stroke-dasharray: 4 3; } svg.plot .window text { fill: var(--window); }
ul.legend { list-style: none; display: flex; gap: 14px; margin: 6px 0 0; padding: 0; font-size: 12px; color: var(--muted); }
.swatch { display: inline-block; width: 10px; height: 10px; margin-right: 4px; border-radius: 2px; }
#status.live::before { content: '\\25cf '; color: #15803d; }
`;

// Plain browser JavaScript (no build step): kept as a string so the page needs no bundler and no file.
const SCRIPT = `
'use strict';
const THRESHOLDS = JSON.parse(document.getElementById('thresholds').textContent);
const hash = new URLSearchParams(location.hash.slice(1));
const token = hash.get('token') || hash.get('key');
const headers = token ? { authorization: 'Bearer ' + token } : {};
const state = { sessions: new Map(), selected: undefined };
const $ = (id) => document.getElementById(id);
const fmt = (n) => Math.round(n).toLocaleString('en-US');

function levelOf(pressure) {
  if (pressure >= THRESHOLDS.dangerAt) return 'danger';
  if (pressure >= THRESHOLDS.warnAt) return 'warn';
  return 'ok';
}

async function getJson(path) {
  const response = await fetch(path, { headers });
  if (!response.ok) throw new Error(path + ': ' + response.status);
  return response.json();
}

function entry(id) {
  let session = state.sessions.get(id);
  if (!session) {
    session = { id, updatedAt: 0, calls: [] };
    state.sessions.set(id, session);
  }
  return session;
}

function renderList() {
  const list = $('sessions');
  list.replaceChildren();
  const sessions = [...state.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt);
  $('empty').hidden = sessions.length > 0;
  for (const session of sessions) {
    const item = document.createElement('li');
    item.dataset.session = session.id;
    if (session.id === state.selected) item.className = 'selected';
    const id = document.createElement('span');
    id.className = 'id';
    id.textContent = session.id;
    id.title = session.id;
    const pct = document.createElement('span');
    const last = session.calls.at(-1);
    if (last && Number.isFinite(last.pressure)) {
      pct.className = 'pct level-' + levelOf(last.pressure);
      pct.dataset.level = levelOf(last.pressure);
      pct.textContent = Math.round(last.pressure * 100) + ' %';
    } else {
      pct.className = 'pct muted';
      pct.textContent = '—';
    }
    item.append(id, pct);
    item.addEventListener('click', () => select(session.id));
    list.append(item);
  }
}

// Ticks from 0 to a round top at or above max, 4 to 8 intervals (as the replay report's scale).
function valueTicks(max) {
  const top = Math.max(max, 4);
  const magnitude = Math.max(1, 10 ** Math.floor(Math.log10(top / 8)));
  let best;
  for (const scale of [1, 10, 100])
    for (const unit of [1, 2, 2.5, 5]) {
      const step = unit * magnitude * scale;
      const intervals = Math.ceil(top / step - 1e-9);
      if (intervals < 4 || intervals > 8) continue;
      if (!best || intervals * step < best.top) best = { step, intervals, top: intervals * step };
    }
  if (!best) best = { step: top / 4, intervals: 4 };
  return Array.from({ length: best.intervals + 1 }, (_, i) => i * best.step);
}

const SVG = 'http://www.w3.org/2000/svg';
function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderChart() {
  const svg = $('chart');
  svg.replaceChildren();
  const session = state.selected === undefined ? undefined : state.sessions.get(state.selected);
  const calls = session ? session.calls : [];
  $('chart-title').textContent = session ? 'Input tokens per call — ' + session.id : 'Input tokens per call';
  $('chart-meta').textContent = session
    ? calls.length + ' call' + (calls.length === 1 ? '' : 's') +
      (calls.length ? ', last ' + fmt(calls.at(-1).sent) + ' tokens sent, ' + fmt(calls.at(-1).saved) + ' saved, ' + calls.at(-1).edits + ' edits' : '')
    : 'no session selected';
  const W = 900, H = 320, M = { top: 20, right: 110, bottom: 34, left: 60 };
  const plotW = W - M.left - M.right, plotH = H - M.top - M.bottom;
  let max = 1;
  for (const call of calls) max = Math.max(max, call.sent + call.saved, call.window || 0);
  const ticks = valueTicks(max);
  const yMax = ticks.at(-1) || 1;
  const y = (v) => M.top + plotH * (1 - Math.min(v, yMax) / yMax);
  for (const tick of ticks) {
    svg.append(el('line', { class: 'grid', x1: M.left, x2: M.left + plotW, y1: y(tick), y2: y(tick) }));
    svg.append(el('text', { x: M.left - 6, y: y(tick) + 4, 'text-anchor': 'end' }, fmt(tick)));
  }
  svg.append(el('line', { class: 'baseline', x1: M.left, x2: M.left + plotW, y1: y(0), y2: y(0) }));
  svg.append(el('text', { x: M.left + plotW / 2, y: H - 4, 'text-anchor': 'middle' }, 'model call'));
  if (calls.length === 0) {
    svg.append(el('text', { x: M.left + plotW / 2, y: M.top + plotH / 2, 'text-anchor': 'middle' }, 'no calls yet'));
    return;
  }
  const band = plotW / calls.length;
  const gap = band > 6 ? band * 0.2 : 0;
  calls.forEach((call, i) => {
    const g = el('g', { 'data-call': i + 1 });
    const x = M.left + i * band + gap / 2;
    g.append(el('rect', { class: 'bar', x, width: Math.max(0.5, band - gap), y: y(call.sent), height: y(0) - y(call.sent) }));
    if (call.saved > 0)
      g.append(el('rect', { class: 'saved', x, width: Math.max(0.5, band - gap), y: y(call.sent + call.saved), height: y(call.sent) - y(call.sent + call.saved) }));
    g.append(el('title', {}, 'call ' + (i + 1) + ' at ' + new Date(call.at).toLocaleTimeString() + ': ' + fmt(call.sent) + ' sent, ' + fmt(call.saved) + ' saved' + (call.window ? ' of ' + fmt(call.window) : '') + ', ' + call.edits + ' edits'));
    svg.append(g);
    const every = Math.ceil(calls.length / 12);
    if ((i + 1) % every === 0 || i === 0)
      svg.append(el('text', { x: M.left + (i + 0.5) * band, y: y(0) + 14, 'text-anchor': 'middle' }, String(i + 1)));
  });
  // The window as a step line: each call's own (it may change as the upstream names it).
  let d = '';
  calls.forEach((call, i) => {
    if (!call.window) return;
    const x0 = M.left + i * band, x1 = x0 + band;
    d += (d && calls[i - 1] && calls[i - 1].window ? 'L' : 'M') + x0 + ' ' + y(call.window) + 'L' + x1 + ' ' + y(call.window);
  });
  if (d) {
    const windowLine = el('g', { class: 'window' });
    windowLine.append(el('path', { d, fill: 'none', stroke: 'currentColor', 'stroke-dasharray': '4 3', 'data-window': calls.at(-1).window || '' }));
    const last = calls.at(-1).window;
    if (last) windowLine.append(el('text', { x: M.left + plotW + 4, y: y(last) + 4 }, 'window ' + fmt(last)));
    svg.append(windowLine);
  }
}

async function select(id) {
  state.selected = id;
  const session = entry(id);
  try {
    const { calls } = await getJson('/api/sessions/' + encodeURIComponent(id) + '/calls');
    // Keep any call that arrived over the stream while this was on its way.
    const known = new Set(calls.map((call) => call.at + ':' + call.sent));
    session.calls = [...calls, ...session.calls.filter((call) => !known.has(call.at + ':' + call.sent) && call.at > (calls.at(-1)?.at ?? 0))];
  } catch {
    // No call recorded in this process (a session from before it started): an empty chart.
  }
  renderList();
  renderChart();
}

async function load() {
  const { sessions } = await getJson('/api/sessions');
  for (const listed of sessions) entry(listed.id).updatedAt = listed.updatedAt;
  const recent = [...state.sessions.values()].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, 50);
  await Promise.all(recent.map(async (session) => {
    try {
      session.calls = (await getJson('/api/sessions/' + encodeURIComponent(session.id) + '/calls')).calls;
    } catch {}
  }));
  state.selected = state.selected ?? recent[0]?.id;
  renderList();
  renderChart();
}

function onCall({ session: id, call }) {
  const session = entry(id);
  session.calls.push(call);
  if (session.calls.length > 1000) session.calls.splice(0, session.calls.length - 1000);
  session.updatedAt = Math.max(session.updatedAt, call.at);
  if (state.selected === undefined) state.selected = id;
  renderList();
  if (state.selected === id) renderChart();
}

// The event stream read with fetch (EventSource cannot send the token), reconnecting after a drop.
async function listen() {
  for (;;) {
    try {
      const response = await fetch('/api/events', { headers });
      if (!response.ok || !response.body) throw new Error('events: ' + response.status);
      $('status').textContent = 'live';
      $('status').className = 'live';
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf('\\n\\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message', data = '';
          for (const line of block.split('\\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += (data ? '\\n' : '') + line.slice(5).replace(/^ /, '');
          }
          if (event === 'call' && data) onCall(JSON.parse(data));
        }
      }
    } catch {}
    $('status').textContent = 'reconnecting…';
    $('status').className = '';
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

load().catch((error) => { $('status').textContent = String(error.message || error); });
listen();
`;

/** JSON safe inside a `<script>` element: no `<` to close it. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replace(/</g, '\\u003c');

export function renderDashboardPage(thresholds: ContextLevelThresholds): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="referrer" content="no-referrer">
<title>ctxkit proxy</title>
<style>${STYLE}</style>
</head>
<body>
<header><h1>ctxkit proxy</h1><p>Sessions and model calls through this proxy · <span id="status">connecting…</span></p></header>
<main>
<section><h2>Sessions</h2><p id="empty" class="muted" hidden>No session yet.</p><ul id="sessions"></ul></section>
<section>
<h2 id="chart-title">Input tokens per call</h2>
<p id="chart-meta" class="muted"></p>
<svg id="chart" class="plot" viewBox="0 0 900 320" role="img" aria-label="input tokens per model call"></svg>
<ul class="legend"><li><span class="swatch" style="background:var(--history)"></span>sent</li><li><span class="swatch" style="background:var(--saved)"></span>saved</li><li><span class="swatch" style="border:1px dashed var(--window)"></span>window</li></ul>
</section>
</main>
<script type="application/json" id="thresholds">${scriptJson({ warnAt: thresholds.warnAt, dangerAt: thresholds.dangerAt })}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
