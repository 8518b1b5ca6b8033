import type { CallMetrics, SessionReplay } from '../replay-types.ts';
import {
  CATEGORIES,
  type ChartLine,
  callCategories,
  chartLines,
  describeEvent,
  type MarkerKind,
  markerKind,
} from './chart-model.ts';
import { escapeHtml } from './escape.ts';
import { formatCompact, formatInt } from './format.ts';
import { callTicks } from './scale.ts';

/** Above this many calls the categories are drawn as stacked step areas, not one bar group per call. */
export const BAR_LIMIT = 360;

/** The chart's width in SVG units: narrow when charts sit side by side, wide when one is alone. */
export const CHART_WIDTH = { sideBySide: 640, alone: 1200 } as const;
const HEIGHT = 330;
const MARGIN = { top: 36, right: 134, bottom: 42, left: 56 };
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;
const LABEL_GAP = 13;

/** A coordinate with one decimal at most: short markup for long sessions. */
const c = (value: number): string => String(Math.round(value * 10) / 10);

interface Frame {
  plotW: number;
  count: number;
  band: number;
  yMax: number;
  x: (index: number) => number;
  y: (tokens: number) => number;
}

/**
 * The chart of one replay, an inline SVG: input tokens per call stacked by category, the window, input
 * limit and thresholds as labelled lines, a marker above each call something was compacted before, axes.
 * Every call is one `[data-call]` element (its column), whatever the drawing.
 */
export function renderChartSvg(
  replay: SessionReplay,
  ticks: readonly number[],
  label: string,
  width: number = CHART_WIDTH.sideBySide,
): string {
  const count = replay.calls.length;
  const yMax = ticks.at(-1) ?? 1;
  const plotW = width - MARGIN.left - MARGIN.right;
  const band = plotW / Math.max(1, count);
  const frame: Frame = {
    plotW,
    count,
    band,
    yMax,
    x: (index) => MARGIN.left + index * band,
    y: (tokens) => MARGIN.top + PLOT_H * (1 - Math.min(tokens, yMax) / yMax),
  };
  const parts = [
    `<svg class="plot" viewBox="0 0 ${width} ${HEIGHT}" role="group" aria-label="${escapeHtml(label)}">`,
    yAxis(ticks, frame),
    count <= BAR_LIMIT ? bars(replay.calls, frame) : areas(replay.calls, frame),
    lines(chartLines(replay), frame),
    workingSetLine(replay.calls, frame),
    xAxis(frame),
    markers(replay.calls, frame),
    count === 0
      ? `<text class="empty" x="${c(MARGIN.left + plotW / 2)}" y="${c(MARGIN.top + PLOT_H / 2)}" text-anchor="middle">No model calls</text>`
      : '',
    '</svg>',
  ];
  return parts.join('');
}

function yAxis(ticks: readonly number[], frame: Frame): string {
  const right = MARGIN.left + frame.plotW;
  const rows = ticks.map((tick) => {
    const y = c(frame.y(tick));
    return `<line class="grid" x1="${MARGIN.left}" x2="${right}" y1="${y}" y2="${y}"/><text class="tick" x="${MARGIN.left - 8}" y="${y}" dy="0.32em" text-anchor="end">${formatCompact(tick)}</text>`;
  });
  const middle = c(MARGIN.top + PLOT_H / 2);
  return `<g class="axis y-axis">${rows.join('')}<text class="axis-title" transform="translate(14 ${middle}) rotate(-90)" text-anchor="middle">input tokens</text></g>`;
}

function xAxis(frame: Frame): string {
  const bottom = MARGIN.top + PLOT_H;
  const labels = callTicks(frame.count).map((call) => {
    const x = c(frame.x(call - 1) + frame.band / 2);
    return `<line class="tick-mark" x1="${x}" x2="${x}" y1="${bottom}" y2="${bottom + 4}"/><text class="tick" x="${x}" y="${bottom + 16}" text-anchor="middle">${call}</text>`;
  });
  return `<g class="axis x-axis"><line class="baseline" x1="${MARGIN.left}" x2="${MARGIN.left + frame.plotW}" y1="${bottom}" y2="${bottom}"/>${labels.join('')}<text class="axis-title" x="${c(MARGIN.left + frame.plotW / 2)}" y="${HEIGHT - 6}" text-anchor="middle">model call</text></g>`;
}

/** The column a call owns: hovering or clicking anywhere in it shows the call. */
function hitRect(call: CallMetrics, index: number, frame: Frame, attributes: string): string {
  const over = call.overflow ? ' over' : '';
  return `<rect class="hit${over}"${attributes} x="${c(frame.x(index))}" y="${MARGIN.top}" width="${c(frame.band)}" height="${PLOT_H}"/>`;
}

function bars(calls: readonly CallMetrics[], frame: Frame): string {
  const gap = frame.band >= 4 ? frame.band * 0.2 : 0;
  const width = c(Math.max(0.5, frame.band - gap));
  const columns = calls.map((call, index) => {
    const x = c(frame.x(index) + gap / 2);
    const categories = callCategories(call);
    let base = 0;
    const stack: string[] = [];
    for (const category of CATEGORIES) {
      const tokens = categories[category];
      if (tokens <= 0) continue;
      const top = frame.y(base + tokens);
      const height = frame.y(base) - top;
      base += tokens;
      stack.push(
        `<rect class="c-${category}" x="${x}" y="${c(top)}" width="${width}" height="${c(height)}"/>`,
      );
    }
    return `<g class="col" data-call="${call.call}">${hitRect(call, index, frame, '')}${stack.join('')}</g>`;
  });
  return `<g class="bars">${columns.join('')}</g>`;
}

/** Long sessions: one step area per category, and one transparent column per call to point at. */
function areas(calls: readonly CallMetrics[], frame: Frame): string {
  const lower = calls.map(() => 0);
  const paths: string[] = [];
  for (const category of CATEGORIES) {
    const upper = calls.map((call, index) => (lower[index] ?? 0) + callCategories(call)[category]);
    if (upper.every((value, index) => value === lower[index])) continue;
    const top: string[] = [];
    const bottom: string[] = [];
    upper.forEach((value, index) => {
      const x0 = c(frame.x(index));
      const x1 = c(frame.x(index + 1));
      top.push(`${x0} ${c(frame.y(value))}`, `${x1} ${c(frame.y(value))}`);
      const base = c(frame.y(lower[index] ?? 0));
      bottom.push(`${x1} ${base}`, `${x0} ${base}`);
    });
    bottom.reverse();
    paths.push(`<path class="c-${category}" d="M${top.join('L')}L${bottom.join('L')}Z"/>`);
    upper.forEach((value, index) => {
      lower[index] = value;
    });
  }
  const columns = calls.map((call, index) => hitRect(call, index, frame, ` data-call="${call.call}"`));
  return `<g class="areas">${paths.join('')}</g><g class="cols">${columns.join('')}</g>`;
}

/** Labels sit in the right margin, pushed apart so close lines stay readable. */
function lines(chartLines: readonly ChartLine[], frame: Frame): string {
  const right = MARGIN.left + frame.plotW;
  let previous = Number.NEGATIVE_INFINITY;
  const labelY = chartLines.map((line) => {
    const y = Math.max(frame.y(line.value), previous + LABEL_GAP);
    previous = y;
    return y;
  });
  const overflow = (labelY.at(-1) ?? 0) - (MARGIN.top + PLOT_H);
  if (overflow > 0)
    for (let index = 0; index < labelY.length; index++) labelY[index] = (labelY[index] ?? 0) - overflow;
  const drawn = chartLines.map((line, index) => {
    const y = c(frame.y(line.value));
    const textY = c(labelY[index] ?? 0);
    return `<g class="ln ln-${line.kind}"><line x1="${MARGIN.left}" x2="${right}" y1="${y}" y2="${y}"/><line class="leader" x1="${right}" x2="${right + 6}" y1="${y}" y2="${textY}"/><text x="${right + 8}" y="${textY}" dy="0.32em">${escapeHtml(line.label)} ${formatCompact(line.value)}</text></g>`;
  });
  return `<g class="lines">${drawn.join('')}</g>`;
}

/**
 * Working-set coverage per call (replay/working-set.ts), on its own scale: the plot's bottom is 0 %, its
 * top 100 %. A point at each call that used earlier tool output, joined in call order.
 */
function workingSetLine(calls: readonly CallMetrics[], frame: Frame): string {
  const points: string[] = [];
  const dots: string[] = [];
  calls.forEach((call, index) => {
    const used = call.workingSet;
    if (!used || used.needed === 0) return;
    const share = used.seen / used.needed;
    const x = c(frame.x(index) + frame.band / 2);
    const y = c(MARGIN.top + PLOT_H * (1 - share));
    points.push(`${x} ${y}`);
    dots.push(
      `<circle cx="${x}" cy="${y}" r="2.2" data-ws="${call.call}"><title>Call ${call.call}: ${used.seen} of ${used.needed} things used from earlier output in the request (${Math.round(share * 100)} %), ${used.readBacks} read-backs</title></circle>`,
    );
  });
  if (points.length === 0) return '';
  return `<g class="ws"><path d="M${points.join('L')}"/>${dots.join('')}</g>`;
}

export const MARKER_SHAPES: Record<MarkerKind, string> = {
  summarize: '<path class="shape" d="M0 -7L7 0L0 7L-7 0Z"/>',
  compaction: '<path class="shape" d="M0 -7L7 0L0 7L-7 0Z"/>',
  clear: '<circle class="shape" r="4.5"/>',
  edit: '<circle class="shape" r="3.5"/>',
};

/** Compactions on the upper lane, with a guide line down the plot; clearing and lighter edits below. */
const LANES: Record<MarkerKind, number> = { summarize: 14, compaction: 14, clear: 28, edit: 28 };

/** A focusable marker above each call with edits, in call order (the keyboard's order too). */
function markers(calls: readonly CallMetrics[], frame: Frame): string {
  const guides: string[] = [];
  const drawn: string[] = [];
  calls.forEach((call, index) => {
    const events = call.events ?? [];
    if (events.length === 0) return;
    const kind = markerKind(events);
    const x = c(frame.x(index) + frame.band / 2);
    const y = LANES[kind];
    const label = `Call ${call.call}: ${events.map(describeEvent).join('; ')}`;
    if (kind === 'summarize' || kind === 'compaction')
      guides.push(
        `<line class="guide mk-${kind}" x1="${x}" x2="${x}" y1="${y + 8}" y2="${MARGIN.top + PLOT_H}"/>`,
      );
    drawn.push(
      `<g class="mk mk-${kind}" data-marker="${call.call}" tabindex="0" role="button" aria-label="${escapeHtml(label)}" transform="translate(${x} ${y})"><rect class="target" x="-7" y="-7" width="14" height="14"/>${MARKER_SHAPES[kind]}</g>`,
    );
  });
  return `<g class="guides">${guides.join('')}</g><g class="markers">${drawn.join('')}</g>`;
}

/** Plain-text summary of a chart for its aria-label. */
export function chartLabel(replay: SessionReplay): string {
  const peak = replay.calls.reduce((max, call) => Math.max(max, call.inputTokens), 0);
  const marked = replay.calls.filter((call) => (call.events ?? []).length > 0).length;
  return `Input tokens per call of ${replay.session} under ${replay.system}: ${replay.calls.length} calls, peak ${formatInt(peak)} tokens, window ${formatInt(replay.contextWindow)}, ${marked} calls with compaction markers`;
}
