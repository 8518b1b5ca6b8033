/** The report's stylesheet: light, system fonts only (nothing to fetch). */
export const REPORT_STYLE = `
:root {
  color-scheme: light;
  --ink: #0f172a; --muted: #475569; --faint: #94a3b8; --rule: #e2e8f0; --paper: #ffffff; --ground: #f1f5f9;
  --system: #64748b; --tools: #0d9488; --summary: #a78bfa; --history: #60a5fa;
  --window: #0f172a; --limit: #dc2626; --summarize: #7c3aed; --clearing: #d97706; --compaction: #ea580c;
  --bad: #b91c1c; --bad-bg: #fee2e2; --good: #15803d;
}
* { box-sizing: border-box; }
body {
  margin: 0; background: var(--ground); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
main { max-width: 1480px; margin: 0 auto; padding: 24px 28px 48px; }
header h1 { margin: 0 0 4px; font-size: 24px; letter-spacing: -0.01em; }
header p { margin: 0 0 6px; color: var(--muted); }
.howto { max-width: 900px; }
nav.toc { margin: 12px 0 0; display: flex; flex-wrap: wrap; gap: 6px 14px; }
nav.toc a { color: #1d4ed8; text-decoration: none; }
nav.toc a:hover, nav.toc a:focus-visible { text-decoration: underline; }
section.session, section.overview {
  background: var(--paper); border: 1px solid var(--rule); border-radius: 10px;
  padding: 18px 20px 16px; margin: 20px 0; box-shadow: 0 1px 2px rgba(15, 23, 42, 0.05);
}
section h2 { margin: 0 0 2px; font-size: 18px; word-break: break-all; }
section > .meta { margin: 0 0 12px; color: var(--muted); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: 18px; }
figure.chart { margin: 0; border: 1px solid var(--rule); border-radius: 8px; padding: 12px 12px 8px; min-width: 0; }
figure.chart figcaption h3 { margin: 0; font-size: 15px; }
figure.chart figcaption p { margin: 2px 0 4px; color: var(--muted); font-size: 13px; }
svg.plot { display: block; width: 100%; height: auto; font-size: 12px; }
svg.plot text { fill: var(--muted); }
svg.plot .axis-title { fill: var(--faint); font-size: 12px; }
svg.plot .empty { fill: var(--faint); font-size: 14px; }
svg.plot .grid { stroke: var(--rule); }
svg.plot .baseline, svg.plot .tick-mark { stroke: var(--faint); }
.c-system { fill: var(--system); } .c-tools { fill: var(--tools); }
.c-summary { fill: var(--summary); } .c-history { fill: var(--history); }
svg.plot .hit { fill: transparent; }
svg.plot .hit.over { fill: rgba(220, 38, 38, 0.13); }
svg.plot .col:hover .hit, svg.plot .cols .hit:hover, svg.plot .col.selected .hit, svg.plot .cols .hit.selected {
  fill: rgba(15, 23, 42, 0.08);
}
svg.plot .col:hover rect:not(.hit) { filter: brightness(0.92); }
.ln line { stroke-width: 1.5; }
.ln .leader { stroke-width: 1; }
.ln-window line { stroke: var(--window); stroke-dasharray: 2 3; }
.ln-limit line { stroke: var(--limit); }
.ln-summarize line { stroke: var(--summarize); stroke-dasharray: 7 4; }
.ln-clearing line { stroke: var(--clearing); stroke-dasharray: 7 4; }
svg.plot .ln text { font-weight: 600; }
svg.plot .ln-window text { fill: var(--window); } svg.plot .ln-limit text { fill: var(--limit); }
svg.plot .ln-summarize text { fill: var(--summarize); } svg.plot .ln-clearing text { fill: var(--clearing); }
.mk { cursor: pointer; outline: none; }
.mk .target { fill: transparent; }
.guide { stroke: currentColor; stroke-width: 1; stroke-dasharray: 3 3; opacity: 0.5; pointer-events: none; }
.mk .shape { stroke: #fff; stroke-width: 1.5; }
.mk-summarize { color: var(--summarize); } .mk-compaction { color: var(--compaction); }
.ws path { fill: none; stroke: var(--good); stroke-width: 1.2; opacity: 0.8; } .ws circle { fill: var(--good); }
.mk-clear { color: var(--clearing); } .mk-edit { color: var(--faint); }
.mk .shape { fill: currentColor; stroke: #fff; }
.mk:hover .shape, .mk:focus-visible .shape, .mk.selected .shape { stroke: var(--ink); stroke-width: 2; }
ul.legend { list-style: none; margin: 4px 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); }
ul.legend li { display: inline-flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; }
.swatch.c-system { background: var(--system); } .swatch.c-tools { background: var(--tools); }
.swatch.c-summary { background: var(--summary); } .swatch.c-history { background: var(--history); }
.sample .shape { fill: currentColor; stroke: #fff; stroke-width: 1; }
.swatch.over { background: rgba(220, 38, 38, 0.18); border: 1px solid rgba(220, 38, 38, 0.4); }
ul.legend svg { display: block; }
.details { margin-top: 8px; border-top: 1px solid var(--rule); padding-top: 8px; font-size: 13px; }
.details .details-head { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
.details h4 { margin: 0 0 6px; font-size: 14px; }
.details button {
  font: inherit; font-size: 12px; border: 1px solid var(--rule); background: var(--ground); color: var(--ink);
  border-radius: 6px; padding: 2px 8px; cursor: pointer;
}
.details table { border-collapse: collapse; margin: 0 0 8px; }
.details th, .details td { text-align: left; padding: 3px 10px 3px 0; border-bottom: 1px solid var(--rule); }
.details dl { max-width: 720px; display: grid; grid-template-columns: max-content 1fr max-content 1fr; gap: 2px 12px; margin: 0; }
.details dt { color: var(--muted); }
.details dd { margin: 0; font-variant-numeric: tabular-nums; }
.layer { font-weight: 700; }
#tooltip {
  position: fixed; z-index: 10; max-width: 360px; pointer-events: none;
  background: #0f172a; color: #f8fafc; border-radius: 6px; padding: 7px 10px; font-size: 12px; line-height: 1.4;
  box-shadow: 0 4px 14px rgba(15, 23, 42, 0.25);
}
#tooltip[hidden] { display: none; }
#tooltip ul { margin: 4px 0; padding-left: 16px; }
#tooltip .layer { color: #c4b5fd; }
#tooltip .dim { color: #cbd5e1; }
#tooltip .bad { color: #fca5a5; font-weight: 700; }
.table-wrap { overflow-x: auto; margin-top: 14px; }
table.totals { border-collapse: collapse; width: 100%; font-size: 13px; }
table.totals caption { text-align: left; font-weight: 600; padding: 0 0 6px; }
table.totals th, table.totals td { padding: 6px 8px; border-bottom: 1px solid var(--rule); vertical-align: top; }
table.totals thead th { text-align: right; vertical-align: bottom; color: var(--muted); font-weight: 600; border-bottom: 2px solid var(--rule); }
table.totals thead th:first-child, table.totals tbody th { text-align: left; }
table.totals tbody th { font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.text, table.totals thead th.text { text-align: left; min-width: 17em; }
.nw { white-space: nowrap; }
td.bad { color: var(--bad); background: var(--bad-bg); font-weight: 700; }
td.best { color: var(--good); font-weight: 700; }
.share { font-weight: 600; }
.sub { color: var(--muted); font-weight: 400; font-size: 12px; }
.sub.block { display: block; }
.change { display: block; color: var(--muted); font-size: 11px; font-weight: 400; }
details.lost { margin-top: 8px; font-size: 13px; }
details.lost summary { cursor: pointer; color: var(--muted); }
details.lost ul { margin: 6px 0 0; padding-left: 18px; }
details.lost code { background: var(--ground); border-radius: 4px; padding: 0 4px; word-break: break-all; }
.kind { display: inline-block; min-width: 62px; color: var(--muted); font-size: 12px; }
:focus-visible { outline: 2px solid #2563eb; outline-offset: 2px; }
`;
