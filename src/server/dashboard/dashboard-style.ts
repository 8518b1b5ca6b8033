/**
 * The dashboard's stylesheet: light, system fonts only (nothing to fetch). The categories, lines and
 * markers use the replay report's colours (`src/replay/report/report-style.ts`), and the context
 * percentage the CLI's levels (yellow from `warnAt`, red from `dangerAt`), so a number means the same
 * colour wherever ctxkit shows it.
 */
export const DASHBOARD_STYLE = `
:root {
  color-scheme: light;
  --ink: #0f172a; --muted: #475569; --faint: #94a3b8; --rule: #e2e8f0; --paper: #ffffff; --ground: #f1f5f9;
  --system: #64748b; --tools: #0d9488; --summary: #a78bfa; --memory: #f472b6; --history: #60a5fa;
  --saved: #22c55e; --saved-bg: #dcfce7; --window: #0f172a; --summarize: #7c3aed; --clearing: #d97706;
  --offload: #0891b2; --compaction: #be185d; --emergency: #dc2626;
  --warn: #a16207; --warn-bg: #fef9c3; --danger: #b91c1c; --danger-bg: #fee2e2; --good: #15803d;
  --select: #dbeafe; --link: #1d4ed8;
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--ground); color: var(--ink); font: 14px/1.45 system-ui, sans-serif; }
header { padding: 14px 24px 6px; } header h1 { margin: 0; font-size: 20px; }
header p { margin: 2px 0 0; color: var(--muted); }
main { display: grid; grid-template-columns: 280px minmax(0, 1fr); gap: 16px; padding: 8px 24px 24px; align-items: start; }
.column { display: grid; gap: 16px; min-width: 0; }
section { background: var(--paper); border: 1px solid var(--rule); border-radius: 10px; padding: 12px 16px; min-width: 0; }
h2 { font-size: 15px; margin: 0 0 6px; word-break: break-all; }
h3 { font-size: 14px; margin: 0 0 6px; }
button {
  font: inherit; font-size: 12px; border: 1px solid var(--rule); background: var(--ground); color: var(--ink);
  border-radius: 6px; padding: 1px 8px; cursor: pointer;
}
button:hover { background: var(--select); }
:focus-visible { outline: 2px solid #2563eb; outline-offset: 2px; }
.muted { color: var(--muted); }
.num { font-variant-numeric: tabular-nums; }

ul#sessions { list-style: none; margin: 0; padding: 0; }
ul#sessions li { display: flex; justify-content: space-between; gap: 8px; padding: 6px 8px; border-radius: 6px; cursor: pointer; }
ul#sessions li:hover { background: var(--ground); }
ul#sessions li.selected { background: var(--select); }
ul#sessions .id { font-family: ui-monospace, monospace; font-size: 12px; overflow: hidden; text-overflow: ellipsis; }
.pct { font-variant-numeric: tabular-nums; white-space: nowrap; }
.pct.level-warn { color: var(--warn); background: var(--warn-bg); padding: 0 4px; border-radius: 4px; }
.pct.level-danger { color: var(--danger); background: var(--danger-bg); font-weight: 700; padding: 0 4px; border-radius: 4px; }

dl.figures { display: flex; flex-wrap: wrap; gap: 8px 28px; margin: 4px 0 8px; }
dl.figures div { min-width: 110px; }
dl.figures dt { color: var(--muted); font-size: 12px; }
dl.figures dd { margin: 0; font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
dl.figures dd .sub { font-size: 13px; font-weight: 400; color: var(--good); }
#savings-note { font-size: 12px; margin: 6px 0 0; }

svg.plot { width: 100%; height: auto; display: block; font-size: 11px; }
svg.plot text { fill: var(--muted); }
svg.plot .axis-title { fill: var(--faint); font-size: 12px; }
svg.plot .grid { stroke: var(--rule); } svg.plot .baseline { stroke: var(--faint); }
.c-system { fill: var(--system); } .c-tools { fill: var(--tools); } .c-summary { fill: var(--summary); }
.c-memory { fill: var(--memory); } .c-history { fill: var(--history); } .c-saved { fill: url(#saved-hatch); }
svg.plot .cut { fill: var(--paper); }
svg.plot .cut-label { fill: #166534; font-weight: 700; font-size: 11px; paint-order: stroke; stroke: var(--paper); stroke-width: 3px; }
svg.plot .hit { fill: transparent; cursor: pointer; }
svg.plot .hit:hover { fill: rgba(15, 23, 42, 0.06); }
svg.plot .hit.selected { fill: rgba(37, 99, 235, 0.12); }
svg.plot .ln line, svg.plot .ln path { fill: none; stroke-width: 1.5; }
svg.plot .ln text { font-weight: 600; }
svg.plot .ln-window path { stroke: var(--window); stroke-dasharray: 5 3; } svg.plot .ln-window text { fill: var(--window); }
svg.plot .ln-clearing line { stroke: var(--clearing); stroke-dasharray: 8 4; } svg.plot .ln-clearing text { fill: var(--clearing); }
svg.plot .ln-summarize line { stroke: var(--summarize); stroke-dasharray: 8 4; } svg.plot .ln-summarize text { fill: var(--summarize); }
svg.plot .ln-warn line { stroke: var(--warn); stroke-dasharray: 2 3; stroke-width: 1; } svg.plot .ln-warn text { fill: var(--warn); font-weight: 400; }
svg.plot .ln-danger line { stroke: var(--danger); stroke-dasharray: 2 3; stroke-width: 1; } svg.plot .ln-danger text { fill: var(--danger); font-weight: 400; }
svg.plot .guides { stroke: var(--faint); stroke-dasharray: 2 3; fill: none; pointer-events: none; }
.marker { cursor: pointer; outline: none; }
.marker path { fill: currentColor; stroke: #fff; stroke-width: 1.2; }
.marker:hover path, .marker:focus-visible path, .marker.selected path { stroke: var(--ink); stroke-width: 2; }
.mk-summarize { color: var(--summarize); } .mk-clear { color: var(--clearing); } .mk-offload { color: var(--offload); }
.mk-compaction { color: var(--compaction); } .mk-emergency { color: var(--emergency); }

ul.legend { list-style: none; display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 6px 0 0; padding: 0; font-size: 12px; color: var(--muted); }
ul.legend li { display: inline-flex; align-items: center; gap: 5px; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; }
.swatch.c-system { background: var(--system); } .swatch.c-tools { background: var(--tools); }
.swatch.c-summary { background: var(--summary); } .swatch.c-memory { background: var(--memory); }
.swatch.c-history { background: var(--history); }
.swatch.c-saved { background: repeating-linear-gradient(45deg, var(--saved) 0 2px, var(--saved-bg) 2px 5px); }
.line-sample { display: inline-block; width: 18px; height: 0; border-top: 2px dashed; }
.line-sample.ln-window { border-color: var(--window); } .line-sample.ln-clearing { border-color: var(--clearing); }
.line-sample.ln-summarize { border-color: var(--summarize); }
.line-sample.ln-warn { border-top: 1px dotted var(--warn); } .line-sample.ln-danger { border-top: 1px dotted var(--danger); }
.tri { display: inline-block; width: 0; height: 0; border-left: 5px solid transparent; border-right: 5px solid transparent; border-top: 9px solid currentColor; }

#tooltip {
  position: fixed; z-index: 10; max-width: 340px; pointer-events: none;
  background: var(--ink); color: #f8fafc; border-radius: 6px; padding: 6px 9px; font-size: 12px; line-height: 1.4;
  box-shadow: 0 4px 14px rgba(15, 23, 42, 0.25);
}
#tooltip[hidden] { display: none; }

#detail[hidden], #view-section[hidden] { display: none; }
.detail-head { display: flex; justify-content: space-between; align-items: baseline; gap: 8px; }
dl.facts { display: grid; grid-template-columns: repeat(auto-fill, minmax(150px, 1fr)); gap: 2px 16px; margin: 0 0 8px; }
dl.facts div { display: flex; gap: 6px; align-items: baseline; }
dl.facts dt { color: var(--muted); font-size: 12px; }
dl.facts dd { margin: 0; font-variant-numeric: tabular-nums; }
ol.events { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
ol.events li { border: 1px solid var(--rule); border-left: 4px solid currentColor; border-radius: 6px; padding: 6px 10px; }
ol.events .event-type { font-weight: 700; color: var(--ink); }
ol.events .event-facts { color: var(--ink); margin: 2px 0 0; display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: 13px; }
ol.events .event-facts span b { color: var(--muted); font-weight: 400; }
code, .mono { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }

.view-marks { color: var(--muted); margin: 0 0 8px; }
ol#view { list-style: none; margin: 0; padding: 0; max-height: 680px; overflow: auto; border-top: 1px solid var(--rule); }
ol#view > li, ol.group-items > li { border-bottom: 1px solid var(--rule); padding: 6px 4px; }
.item-head { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 8px; font-size: 12px; color: var(--muted); }
.item-head .seq { font-family: ui-monospace, monospace; min-width: 34px; }
.item-head .role { font-weight: 600; color: var(--ink); }
.item-head .by { font-size: 12px; }
.badge { border-radius: 4px; padding: 0 6px; font-size: 11px; font-weight: 600; border: 1px solid currentColor; }
.badge.mark-kept { color: var(--good); border-color: transparent; background: #f0fdf4; }
.badge.mark-cleared, .badge.mark-truncated, .badge.mark-compressed { color: var(--clearing); background: #fffbeb; }
.badge.mark-offloaded { color: var(--offload); background: #ecfeff; }
.badge.mark-summarized, .badge.mark-dropped, .badge.mark-reset { color: var(--summarize); background: #f5f3ff; }
.badge.mark-archived, .badge.mark-hidden, .badge.mark-branched, .badge.mark-invisible, .badge.mark-orphan { color: var(--muted); background: var(--ground); }
.badge.mark-digest, .badge.mark-stand-in { color: var(--muted); background: var(--ground); border-style: dashed; }
pre.text { margin: 4px 0 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.45 ui-monospace, monospace; max-height: 5.8em; overflow: hidden; color: var(--ink); }
pre.text.open { max-height: none; }
li.out pre.text { color: var(--muted); }
.more { font-size: 12px; color: var(--muted); }
.block { margin: 6px 0 0; padding: 6px 8px; border-radius: 6px; background: var(--ground); }
.block h4 { margin: 0 0 2px; font-size: 12px; color: var(--muted); font-weight: 600; }
.block pre { margin: 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.45 ui-monospace, monospace; max-height: 320px; overflow: auto; }
li.group > details > summary { cursor: pointer; font-size: 13px; color: var(--muted); }
li.group > details > summary .badge { margin-right: 4px; }
ol.group-items { list-style: none; margin: 4px 0 0 14px; padding: 0; border-left: 2px solid var(--rule); padding-left: 8px; }
li.summary-block { background: #faf5ff; }
li.summary-block pre.text { max-height: 11.6em; overflow: auto; }
`;
