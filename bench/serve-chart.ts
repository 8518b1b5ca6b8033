/**
 * The proxy's memory over a `bench/serve.ts` run as a hand-written SVG line chart: one colour per case,
 * RSS solid and heapUsed dashed, time from the start of its load; dotted lines mark where the phases
 * (warm-up, saturated, paced) change.
 */

export interface MemorySeries {
  label: string;
  /** Seconds since the case's load began, and MB. */
  points: { t: number; rss: number; heap: number }[];
}

export interface PhaseMark {
  label: string;
  /** Seconds since the load began. */
  at: number;
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];
const WIDTH = 880;
const HEIGHT = 440;
const MARGIN = { left: 64, right: 200, top: 40, bottom: 48 };

const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A round step giving about `count` ticks over `span`. */
function tickStep(span: number, count: number): number {
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  for (const factor of [1, 2, 5, 10]) if (raw <= factor * magnitude) return factor * magnitude;
  return 10 * magnitude;
}

export function memoryChart(
  title: string,
  series: readonly MemorySeries[],
  phases: readonly PhaseMark[],
): string {
  const points = series.flatMap((entry) => entry.points);
  const maxT = Math.max(1, ...points.map((point) => point.t));
  const maxMb = Math.max(1, ...points.map((point) => Math.max(point.rss, point.heap)));
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const yStep = tickStep(maxMb, 6);
  const yTop = Math.ceil(maxMb / yStep) * yStep;
  const xStep = tickStep(maxT, 8);
  const x = (t: number) => MARGIN.left + (t / maxT) * plotW;
  const y = (mb: number) => MARGIN.top + plotH - (mb / yTop) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14" font-weight="bold">${escapeXml(title)}</text>`,
  ];
  for (let mb = 0; mb <= yTop + 1e-9; mb += yStep) {
    out.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotW}" y1="${y(mb).toFixed(1)}" y2="${y(mb).toFixed(1)}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 6}" y="${(y(mb) + 4).toFixed(1)}" text-anchor="end">${mb}</text>`,
    );
  }
  for (let t = 0; t <= maxT + 1e-9; t += xStep) {
    out.push(
      `<line x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${MARGIN.top + plotH}" y2="${MARGIN.top + plotH + 4}" stroke="#333"/>`,
      `<text x="${x(t).toFixed(1)}" y="${MARGIN.top + plotH + 18}" text-anchor="middle">${t}</text>`,
    );
  }
  for (const phase of phases) {
    out.push(
      `<line x1="${x(phase.at).toFixed(1)}" x2="${x(phase.at).toFixed(1)}" y1="${MARGIN.top}" y2="${MARGIN.top + plotH}" stroke="#999" stroke-dasharray="2,3"/>`,
      `<text x="${(x(phase.at) + 4).toFixed(1)}" y="${MARGIN.top + plotH - 6}" fill="#666">${escapeXml(phase.label)}</text>`,
    );
  }
  out.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`,
    `<text x="${MARGIN.left + plotW / 2}" y="${HEIGHT - 10}" text-anchor="middle">seconds since the load began</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotH / 2}) rotate(-90)" text-anchor="middle">MB</text>`,
  );
  series.forEach((entry, index) => {
    const colour = COLOURS[index % COLOURS.length];
    const line = (value: (point: MemorySeries['points'][number]) => number) =>
      entry.points.map((point) => `${x(point.t).toFixed(1)},${y(value(point)).toFixed(1)}`).join(' ');
    out.push(
      `<polyline fill="none" stroke="${colour}" stroke-width="2" points="${line((point) => point.rss)}"/>`,
      `<polyline fill="none" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6,4" points="${line((point) => point.heap)}"/>`,
    );
    const legendY = MARGIN.top + 10 + index * 36;
    const legendX = MARGIN.left + plotW + 14;
    out.push(
      `<line x1="${legendX}" x2="${legendX + 24}" y1="${legendY}" y2="${legendY}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${legendX + 30}" y="${legendY + 4}">${escapeXml(entry.label)} RSS</text>`,
      `<line x1="${legendX}" x2="${legendX + 24}" y1="${legendY + 16}" y2="${legendY + 16}" stroke="${colour}" stroke-width="1.5" stroke-dasharray="6,4"/>`,
      `<text x="${legendX + 30}" y="${legendY + 20}">${escapeXml(entry.label)} heap</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
