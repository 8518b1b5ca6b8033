/**
 * The dashboard's chart, plain browser JavaScript kept as a string: per call a bar of the request's
 * input tokens by category (ctxkit's count, what the thresholds are measured in) with the tokens saved
 * stacked on it; the window as a dashed step line; the session's clearing, summarize, warn and danger
 * thresholds as lines; and a marker above every call that compacted, which opens the call's events in
 * the detail panel (by click or by keyboard). Each category is one path whatever the number of calls,
 * so a thousand calls stay a few thousand nodes (a hit area and at most a marker per call).
 */
export const CHART_SCRIPT = `
const CATEGORIES = ['system', 'tools', 'summary', 'memory', 'history'];
const SVG = 'http://www.w3.org/2000/svg';
const W = 1000, H = 340, M = { top: 30, right: 170, bottom: 40, left: 66 };

function el(name, attrs, text) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
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

/** A call's input tokens: ctxkit's count by category when the record has it, else what was sent. */
const inputOf = (call) => (call.tokens ? call.tokens.input : call.sent);
const valueOf = (call, category) => (call.tokens ? call.tokens[category] || 0 : category === 'history' ? call.sent : 0);

/** The kind of compaction a call's marker shows: the heaviest of its events. */
function markerKind(events) {
  const types = new Set(events.map((event) => event.type === 'compaction-finished' ? 'layer:' + event.layer : event.type));
  if (types.has('emergency-compacted') || types.has('layer:emergency')) return 'emergency';
  if (types.has('summary-applied') || types.has('layer:summarize') || types.has('layer:drop') || types.has('layer:trim')) return 'summarize';
  if (types.has('tool-results-cleared') || types.has('layer:clear')) return 'clear';
  if (types.has('tool-output-spilled')) return 'offload';
  return 'compaction';
}
const MARKER_NAMES = { emergency: 'emergency', summarize: 'summarized or dropped', clear: 'cleared or offloaded under pressure', offload: 'output offloaded on arrival', compaction: 'other compaction' };

/** The threshold lines a session has, as tokens (only those with a finite, positive value). */
function thresholdLines(thresholds) {
  if (!thresholds) return [];
  const lines = [];
  const add = (key, line, label) => {
    if (line && Number.isFinite(line.tokens) && line.tokens > 0) lines.push({ key, tokens: line.tokens, pressure: line.pressure, label });
  };
  add('clearing', thresholds.clearing, 'clearing');
  add('summarize', thresholds.summarize, 'summarize');
  add('warn', thresholds.warn, 'warn');
  add('danger', thresholds.danger, 'danger');
  return lines;
}

const r2 = (v) => Math.round(v * 100) / 100;
const rectPath = (x, y, w, hgt) => 'M' + r2(x) + ' ' + r2(y) + 'h' + r2(w) + 'v' + r2(hgt) + 'h' + r2(-w) + 'z';

function renderChart() {
  const svg = $('chart');
  svg.replaceChildren();
  const session = selectedSession();
  const calls = session ? session.calls : [];
  $('chart-title').textContent = session ? 'Input tokens per call — ' + session.id : 'Input tokens per call';
  const last = calls.at(-1);
  $('chart-meta').textContent = !session ? 'no session selected' : calls.length + ' call' + (calls.length === 1 ? '' : 's') +
    (last ? ' · last: ' + fmt(inputOf(last)) + ' input tokens, ' + fmt(last.saved) + ' saved, pressure ' + percent(last.pressure) + ', ' + last.edits + ' edits' : '');
  const defs = el('defs', {});
  const hatch = el('pattern', { id: 'saved-hatch', patternUnits: 'userSpaceOnUse', width: 6, height: 6, patternTransform: 'rotate(45)' });
  hatch.append(el('rect', { width: 6, height: 6, fill: 'var(--saved-bg)' }), el('rect', { width: 2, height: 6, fill: 'var(--saved)' }));
  defs.append(hatch);
  svg.append(defs);
  const plotW = W - M.left - M.right, plotH = H - M.top - M.bottom;

  // The scale: the bars, the window and the thresholds near it. Saved tokens count only when no window
  // is known (a 40k output offloaded against a 16k window would flatten every bar); beyond the top they
  // are cut, with a notch.
  let windowMax = 0, max = 1;
  for (const call of calls) {
    max = Math.max(max, inputOf(call));
    windowMax = Math.max(windowMax, call.window || 0);
  }
  if (windowMax) max = Math.max(max, windowMax);
  else for (const call of calls) max = Math.max(max, inputOf(call) + call.saved);
  const lines = thresholdLines(session && session.thresholds).filter((line) => line.tokens <= max * 1.25);
  for (const line of lines) max = Math.max(max, line.tokens);
  const ticks = valueTicks(max * 1.04);
  const yMax = ticks.at(-1) || 1;
  const y = (v) => M.top + plotH * (1 - Math.min(Math.max(v, 0), yMax) / yMax);

  for (const tick of ticks) {
    svg.append(el('line', { class: 'grid', x1: M.left, x2: M.left + plotW, y1: y(tick), y2: y(tick) }));
    svg.append(el('text', { x: M.left - 6, y: y(tick) + 4, 'text-anchor': 'end' }, fmt(tick)));
  }
  svg.append(el('line', { class: 'baseline', x1: M.left, x2: M.left + plotW, y1: y(0), y2: y(0) }));
  svg.append(el('text', { class: 'axis-title', x: M.left + plotW / 2, y: H - 4, 'text-anchor': 'middle' }, 'model call'));
  svg.append(el('text', { class: 'axis-title', x: 14, y: M.top + plotH / 2, 'text-anchor': 'middle', transform: 'rotate(-90 14 ' + (M.top + plotH / 2) + ')' }, 'input tokens'));
  if (calls.length === 0) {
    svg.append(el('text', { x: M.left + plotW / 2, y: M.top + plotH / 2, 'text-anchor': 'middle' }, session ? 'no call recorded yet' : 'no session selected'));
    return;
  }

  const n = calls.length;
  const band = plotW / n;
  // Bars thin out with the calls (no gap under 4 px a call) and never grow past 56 px.
  const gap = band >= 4 ? band * 0.25 : 0;
  const barW = Math.min(Math.max(band - gap, 0.6), 56);
  const paths = Object.fromEntries([...CATEGORIES, 'saved'].map((key) => [key, { d: '', count: 0 }]));
  let cuts = '', guides = '';
  const cutLabels = [];
  const hits = el('g', { class: 'hits' });
  const markers = el('g', { class: 'markers' });
  const every = Math.ceil(n / 10);
  calls.forEach((call, i) => {
    const x = M.left + i * band + (band - barW) / 2;
    let base = 0;
    for (const key of CATEGORIES) {
      const value = valueOf(call, key);
      if (value > 0) {
        paths[key].d += rectPath(x, y(base + value), barW, y(base) - y(base + value));
        paths[key].count++;
      }
      base += value;
    }
    let top = base;
    if (call.saved > 0) {
      top = base + call.saved;
      paths.saved.d += rectPath(x, y(top), barW, y(base) - y(top));
      paths.saved.count++;
      if (top > yMax) {
        // Off the scale: a notch, and the figure where the bar is wide enough to hold it.
        cuts += rectPath(x, M.top + 6, barW, 4);
        if (barW >= 34) cutLabels.push(el('text', { class: 'cut-label', x: r2(x + barW / 2), y: M.top + 22, 'text-anchor': 'middle' }, '↑' + fmtK(call.saved)));
      }
    }
    hits.append(el('rect', { class: 'hit' + (state.call === i + 1 ? ' selected' : ''), 'data-call': i + 1, x: r2(M.left + i * band), y: M.top, width: r2(Math.max(band, 0.5)), height: plotH }));
    if ((i + 1) % every === 0 || i === 0)
      svg.append(el('text', { x: M.left + (i + 0.5) * band, y: y(0) + 14, 'text-anchor': 'middle' }, String(i + 1)));
    if (call.compactions && call.compactions.length) {
      const cx = r2(M.left + (i + 0.5) * band);
      const kind = markerKind(call.compactions);
      const names = [...new Set(call.compactions.map((event) => event.type + (event.layer ? ' (' + event.layer + ')' : '')))].join(', ');
      const marker = el('g', {
        class: 'marker mk-' + kind + (state.call === i + 1 ? ' selected' : ''), role: 'button', tabindex: 0, 'data-call': i + 1, 'data-kind': kind,
        'aria-label': 'call ' + (i + 1) + ' compacted: ' + names + '. Show its events.',
      });
      marker.append(el('path', { d: 'M' + (cx - 5.5) + ' ' + (M.top - 21) + 'h11l-5.5 10z' }));
      markers.append(marker);
      guides += 'M' + cx + ' ' + (M.top - 10) + 'V' + r2(y(top));
    }
  });
  for (const key of [...CATEGORIES, 'saved'])
    if (paths[key].count) svg.append(el('path', { class: 'bars c-' + key, 'data-category': key, 'data-bars': paths[key].count, d: paths[key].d }));
  if (cuts) svg.append(el('path', { class: 'cut', d: cuts }), ...cutLabels);

  // Labels at the right end, moved apart where two lines are close.
  const labels = [];
  let d = '';
  calls.forEach((call, i) => {
    if (!call.window) return;
    const x0 = M.left + i * band;
    d += (d && calls[i - 1] && calls[i - 1].window ? 'L' : 'M') + r2(x0) + ' ' + r2(y(call.window)) + 'L' + r2(x0 + band) + ' ' + r2(y(call.window));
  });
  if (d) {
    const group = el('g', { class: 'ln ln-window' });
    group.append(el('path', { d, 'data-window': last.window || '' }));
    svg.append(group);
    if (last.window) labels.push({ group, y: y(last.window), text: 'window ' + fmt(last.window) });
  }
  for (const line of lines) {
    const group = el('g', { class: 'ln ln-' + line.key, 'data-tokens': line.tokens, 'data-pressure': line.pressure });
    group.append(el('line', { x1: M.left, x2: M.left + plotW, y1: r2(y(line.tokens)), y2: r2(y(line.tokens)) }));
    svg.append(group);
    labels.push({ group, y: y(line.tokens), text: line.label + ' ' + percent(line.pressure) + ' · ' + fmtK(line.tokens) });
  }
  labels.sort((a, b) => a.y - b.y);
  let previous = -Infinity;
  for (const label of labels) {
    const at = Math.max(label.y + 4, previous + 13);
    label.group.append(el('text', { x: M.left + plotW + 6, y: r2(at) }, label.text));
    previous = at;
  }
  if (guides) svg.append(el('path', { class: 'guides', d: guides }));
  svg.append(hits, markers);
}

/** Opens call n (1-based) in the detail panel. */
function openCall(n) {
  state.call = n;
  renderChart();
  renderDetail();
  $('detail').scrollIntoView({ block: 'nearest' });
}

function eventFacts(event) {
  const facts = [];
  const add = (label, value) => { if (value !== undefined && value !== null && value !== '') facts.push([label, String(value)]); };
  add('layer', event.layer);
  add('reason', event.reason);
  if (event.tokensBefore !== undefined) add('tokens', fmt(event.tokensBefore) + ' → ' + fmt(event.tokensAfter ?? event.tokensBefore));
  if (event.messagesBefore !== undefined && event.messagesAfter !== undefined) add('messages', fmt(event.messagesBefore) + ' → ' + fmt(event.messagesAfter));
  if (event.count !== undefined) add('results', fmt(event.count));
  if (event.tokensFreed !== undefined) add('freed', fmt(event.tokensFreed) + ' tokens');
  if (event.seq !== undefined) add('message', '#' + event.seq);
  if (event.bytes !== undefined) add('bytes', fmt(event.bytes));
  if (event.blobRef !== undefined) add('offloaded to', event.blobRef);
  if (event.throughSeq !== undefined) add('through', '#' + event.throughSeq);
  if (event.tokens !== undefined) add('summary', fmt(event.tokens) + ' tokens');
  if (event.steps !== undefined) add('steps', event.steps.map((step) => (typeof step === 'string' ? step : JSON.stringify(step))).join(', '));
  if (event.compacted !== undefined) add('compacted', event.compacted ? 'yes' : 'no');
  if (event.editIds && event.editIds.length) add('edits', event.editIds.join(', '));
  add('error', event.error);
  add('at', timeOf(event.at));
  return facts;
}

function renderDetail() {
  const panel = $('detail');
  const session = selectedSession();
  const call = session && state.call ? session.calls[state.call - 1] : undefined;
  if (!call) {
    panel.hidden = true;
    panel.replaceChildren();
    return;
  }
  panel.hidden = false;
  const close = h('button', { type: 'button', 'aria-label': 'close the call details' }, 'close');
  close.addEventListener('click', () => { state.call = undefined; renderChart(); renderDetail(); });
  const fact = (label, value) => h('div', {}, h('dt', {}, label), h('dd', {}, value));
  const facts = h('dl', { class: 'facts' },
    fact('model', call.model), fact('status', String(call.status)),
    fact('input', fmt(inputOf(call)) + ' tokens'), fact('sent (proxy count)', fmt(call.sent)),
    fact('saved', fmt(call.saved)), fact('window', call.window ? fmt(call.window) : 'unknown'),
    fact('pressure', percent(call.pressure)), fact('edits', String(call.edits)),
    ...(call.tokens ? CATEGORIES.map((key) => fact(key, fmt(call.tokens[key] || 0))) : []));
  const events = call.compactions || [];
  const list = h('ol', { class: 'events', id: 'detail-events' });
  for (const event of events) {
    const kind = markerKind([event]);
    const item = h('li', { class: 'mk-' + kind, 'data-event': event.type },
      h('span', { class: 'event-type' }, event.type),
      h('div', { class: 'event-facts' }, ...eventFacts(event).map(([label, value]) => h('span', { 'data-fact': label }, h('b', {}, label + ' '), value))));
    if (event.blobRef) item.append(offloadedBlock(event.blobRef, 'event:' + state.call + ':' + event.blobRef));
    list.append(item);
  }
  panel.replaceChildren(
    h('div', { class: 'detail-head' }, h('h3', { id: 'detail-title' }, 'Call ' + state.call + ' · ' + timeOf(call.at)), close),
    facts,
    h('h3', {}, events.length ? 'What compacted the context for this call' : 'Nothing compacted for this call'),
    list,
  );
}

function showTooltip(event) {
  const tip = $('tooltip');
  const target = event.target.closest && event.target.closest('[data-call]');
  const session = selectedSession();
  const call = target && session ? session.calls[Number(target.dataset.call) - 1] : undefined;
  if (!call) { tip.hidden = true; return; }
  const n = Number(target.dataset.call);
  const lines = ['call ' + n + ' · ' + timeOf(call.at), fmt(inputOf(call)) + ' input tokens · ' + fmt(call.saved) + ' saved',
    (call.window ? 'window ' + fmt(call.window) + ' · ' : '') + 'pressure ' + percent(call.pressure)];
  if (call.compactions && call.compactions.length) lines.push(call.compactions.length + ' compaction event' + (call.compactions.length === 1 ? '' : 's') + ': click');
  tip.replaceChildren(...lines.map((line) => h('div', {}, line)));
  tip.hidden = false;
  tip.style.left = Math.min(event.clientX + 14, window.innerWidth - 350) + 'px';
  tip.style.top = (event.clientY + 14) + 'px';
}

function chartTarget(event) {
  const target = event.target.closest && event.target.closest('.hit, .marker');
  return target ? Number(target.dataset.call) : undefined;
}

function wireChart() {
  const svg = $('chart');
  svg.addEventListener('click', (event) => { const n = chartTarget(event); if (n) openCall(n); });
  svg.addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' && event.key !== ' ') return;
    const n = chartTarget(event);
    if (!n) return;
    event.preventDefault();
    openCall(n);
    const marker = svg.querySelector('.marker[data-call="' + n + '"]');
    if (marker) marker.focus();
  });
  svg.addEventListener('mousemove', showTooltip);
  svg.addEventListener('mouseleave', () => { $('tooltip').hidden = true; });
}
wireChart();
`;
