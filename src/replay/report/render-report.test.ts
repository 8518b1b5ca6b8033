import { describe, expect, it } from 'vitest';
import type { SessionReplay } from '../replay-types.ts';
import { BAR_LIMIT } from './chart.ts';
import { escapeHtml, jsonForScript } from './escape.ts';
import { CLEAR_EVENT, fixtureReplay, SUMMARY_EVENT } from './fixture-replay.ts';
import { renderReplayReport } from './render-report.ts';
import { callTicks, valueTicks } from './scale.ts';

const embedded = (html: string): unknown => {
  const match = /<script type="application\/json" id="ctxkit-replays">([\s\S]*?)<\/script>/.exec(html);
  if (!match?.[1]) throw new Error('no embedded data');
  return JSON.parse(match[1]);
};

/** Each chart's `data-calls` and the number of `data-call` elements inside it, in order. */
const charts = (html: string) =>
  [...html.matchAll(/<figure class="chart"[^>]*data-calls="(\d+)"[^>]*>([\s\S]*?)<\/figure>/g)].map(
    (match) => ({
      calls: Number(match[1]),
      columns: (match[2]?.match(/data-call="\d+"/g) ?? []).length,
      markers: (match[2]?.match(/data-marker="\d+"/g) ?? []).length,
      body: match[2] ?? '',
    }),
  );

const withEvents = (options: Parameters<typeof fixtureReplay>[0] = {}) =>
  fixtureReplay({
    thresholds: { clearing: 3_500, summarize: 5_600 },
    events: { 5: [CLEAR_EVENT], 9: [CLEAR_EVENT, SUMMARY_EVENT] },
    ...options,
  });

describe('renderReplayReport', () => {
  it('is one self-contained page: nothing fetched, no URL of any kind', () => {
    const html = renderReplayReport([withEvents(), withEvents({ system: 'ctxkit:cowagent' })]);
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<title>ctxkit replay report</title>');
    expect(html).not.toMatch(/https?:/i);
    expect(html).not.toContain('//');
    expect(html).not.toMatch(/\s(src|href)="(?!#)/i);
    expect(html).not.toMatch(/url\(|@import|<link|<img|<iframe/i);
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).toContain("default-src 'none'");
  });

  it('embeds the replays as JSON that reads back unchanged', () => {
    const replays = [withEvents(), fixtureReplay({ session: 'other.jsonl', system: 'langchain' })];
    expect(embedded(renderReplayReport(replays))).toEqual(JSON.parse(JSON.stringify(replays)));
  });

  it('escapes every text it embeds, so a session name cannot break out of the page', () => {
    const hostile = '</script><script>alert(1)</script><!--';
    const replay = withEvents({
      session: hostile,
      system: 'a & b "quoted" <i>',
      events: { 3: [{ ...SUMMARY_EVENT, error: '<img src=x onerror=alert(2)>' }] },
    });
    replay.retention.lost = [{ kind: 'path', text: '</details><b>lost</b>', messageIndex: 1 }];
    const html = renderReplayReport([replay], { title: '<ctxkit> & co' });
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>lost</b>');
    expect(html).not.toContain('<!--');
    expect(html).toContain(`<h2 id="session-1-title">${escapeHtml(hostile)}</h2>`);
    expect(html).toContain('a &amp; b &quot;quoted&quot; &lt;i&gt;');
    expect(html).toContain('<title>&lt;ctxkit&gt; &amp; co</title>');
    expect(html).toContain('&lt;/details&gt;&lt;b&gt;lost&lt;/b&gt;');
    expect(embedded(html)).toEqual(JSON.parse(JSON.stringify([replay])));
  });

  it('shows controls and bidi overrides in names as escapes, never as characters the page obeys', () => {
    const replay = fixtureReplay({ session: 'evil\u001b[31m name \u202egnp.exe\u0007' });
    const html = renderReplayReport([replay], { title: 'report' });
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters.
    expect(html.replace(/<script[\s\S]*?<\/script>/g, '')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u202e]/);
    expect(html).toContain('evil\\u001b[31m name \\u202egnp.exe\\u0007');
  });

  it('allows a URL only inside escaped user text', () => {
    const url = 'https://example.com/a?b=1&c=2';
    const replay = withEvents({ session: `from ${url}` });
    const html = renderReplayReport([replay]);
    const forms = [escapeHtml(url), jsonForScript(url).slice(1, -1)];
    expect(forms.every((form) => html.includes(form))).toBe(true);
    const outside = forms.reduce((rest, form) => rest.replaceAll(form, ''), html);
    expect(outside).not.toMatch(/https?:/i);
    expect(outside).not.toContain('//');
  });

  it('draws one chart per replay with one column per call, and a marker per call with edits', () => {
    const replays = [withEvents({ calls: 17 }), withEvents({ calls: 17, system: 'ctxkit:cowagent' })];
    const found = charts(renderReplayReport(replays));
    expect(found).toHaveLength(2);
    for (const chart of found) {
      expect(chart.calls).toBe(17);
      expect(chart.columns).toBe(17);
      expect(chart.markers).toBe(2);
      expect(chart.body).toContain('role="group" aria-label="Input tokens per call of');
      expect(chart.body).toMatch(/<g class="mk mk-summarize" data-marker="9" tabindex="0" role="button"/);
      expect(chart.body).toContain(
        'aria-label="Call 9: clear (context_pressure) 3,900 → 2,100 tokens; summarize',
      );
      expect(chart.body).toMatch(/<g class="mk mk-clear" data-marker="5"/);
    }
  });

  it('labels the window, the input limit and the thresholds, with a legend', () => {
    const [chart] = charts(renderReplayReport([withEvents()]));
    for (const label of ['window 8k', 'input limit 7k', 'summarize 5.6k', 'clearing 3.5k'])
      expect(chart?.body).toContain(label);
    for (const entry of ['system', 'tools', 'summary', 'history', 'window 8,000', 'clearing'])
      expect(chart?.body).toMatch(new RegExp(`<li>.*?${entry}`));
    const peer = charts(renderReplayReport([fixtureReplay({ system: 'langchain' })]))[0]?.body ?? '';
    expect(peer).not.toContain('ln-summarize');
    expect(peer).not.toContain('ln-clearing');
  });

  it('stacks the categories, or the whole request as history when a replay has none', () => {
    const [chart] = charts(renderReplayReport([withEvents({ calls: 3 })]));
    expect(chart?.body.match(/<rect class="c-system"/g)).toHaveLength(3);
    const [bare] = charts(renderReplayReport([fixtureReplay({ calls: 3, withoutCategories: true })]));
    expect(bare?.body).not.toMatch(/<rect class="c-system"/);
    expect(bare?.body.match(/<rect class="c-history"/g)).toHaveLength(3);
  });

  it('puts several policies of a session side by side on one scale, with a comparison table', () => {
    const small = withEvents({ calls: 6 });
    const large = withEvents({ calls: 6, system: 'ctxkit:freeze', events: {} });
    const html = renderReplayReport([small, large]);
    expect(html.match(/<section class="session"/g)).toHaveLength(1);
    expect(html).not.toContain('All sessions');
    const [a, b] = charts(html);
    const topTick = (body: string) =>
      [...body.matchAll(/class="tick"[^>]*text-anchor="end">([^<]+)</g)].at(-1)?.[1];
    expect(topTick(a?.body ?? '')).toBe(topTick(b?.body ?? ''));
    expect(html).toContain('<caption>Comparison</caption>');
    expect(html.match(/<tr><th scope="row">/g)).toHaveLength(2);
  });

  it('adds an overview per policy when there are several sessions', () => {
    const html = renderReplayReport([
      withEvents({ session: 'a.jsonl' }),
      withEvents({ session: 'b.jsonl' }),
      withEvents({ session: 'b.jsonl', system: 'ctxkit:cowagent' }),
    ]);
    expect(html.match(/<section class="session"/g)).toHaveLength(2);
    expect(html).toContain('Totals per policy over all sessions');
    expect(html).toContain('<a href="#session-2">b.jsonl</a>');
    expect(charts(html)).toHaveLength(3);
  });

  it('marks overflows and orphans red when not zero', () => {
    const clean = renderReplayReport([fixtureReplay({ calls: 3 })]);
    expect(clean).not.toContain('class="num bad"');
    const replay = fixtureReplay({ calls: 30 });
    replay.totals.orphans = 2;
    const html = renderReplayReport([replay]);
    expect(replay.totals.overflows).toBeGreaterThan(0);
    expect(html.match(/<td class="num bad">/g)).toHaveLength(2);
    expect(html).toContain(`overflow (${replay.totals.overflows})`);
    expect(html).toContain('<rect class="hit over"');
  });

  it('shows retention with its breakdown and the facts lost', () => {
    const html = renderReplayReport([fixtureReplay()]).replace(/<\/?span[^>]*>/g, '');
    expect(html).toContain('75%');
    expect(html).toContain('view 2 · summary 1 · pointer 0 · lost 1');
    expect(html).toContain('path 2/2 · command 0/1 · request 1/1');
    expect(html).toContain('<code>npm run build</code>');
  });

  it('draws a long session as areas, keeping one column per call, quickly', () => {
    const calls = 5_000;
    const events = Object.fromEntries(
      Array.from({ length: 50 }, (_, index) => [index * 100 + 7, [SUMMARY_EVENT]]),
    );
    const replays: SessionReplay[] = [
      withEvents({ calls, events }),
      withEvents({ calls, system: 'x', events }),
    ];
    const started = performance.now();
    const html = renderReplayReport(replays);
    expect(performance.now() - started).toBeLessThan(2_000);
    const found = charts(html);
    expect(found.map((chart) => [chart.calls, chart.columns, chart.markers])).toEqual([
      [calls, calls, 50],
      [calls, calls, 50],
    ]);
    expect(found[0]?.body).toContain('<g class="areas">');
    expect(found[0]?.body).not.toContain('class="col"');
    expect(charts(renderReplayReport([withEvents({ calls: BAR_LIMIT })]))[0]?.body).toContain('class="col"');
  });

  it('renders a replay without calls', () => {
    const [chart] = charts(renderReplayReport([fixtureReplay({ calls: 0 })]));
    expect(chart?.calls).toBe(0);
    expect(chart?.body).toContain('No model calls');
  });
});

describe('jsonForScript', () => {
  it('hides <, >, & and line separators from HTML and reads back unchanged', () => {
    const value = { text: '</script><!-- & \u2028 \u2029 >' };
    const json = jsonForScript(value);
    expect(json).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('axis ticks', () => {
  it('ends the value axis at the lowest round top at or above the maximum', () => {
    expect(valueTicks(8_000)).toEqual([0, 2_000, 4_000, 6_000, 8_000]);
    expect(valueTicks(5_387)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000]);
    expect(valueTicks(0)).toEqual([0, 1, 2, 3, 4]);
    for (const max of [7, 99, 1_234, 31_999, 128_000, 2_000_000]) {
      const ticks = valueTicks(max);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(max);
      expect(ticks.length).toBeGreaterThanOrEqual(5);
      expect(ticks.length).toBeLessThanOrEqual(9);
    }
  });

  it('labels calls with whole round steps', () => {
    expect(callTicks(5)).toEqual([1, 2, 3, 4, 5]);
    expect(callTicks(20)).toEqual([2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    expect(callTicks(100)).toEqual([1, 20, 40, 60, 80, 100]);
    expect(callTicks(0)).toEqual([]);
  });
});

describe('working-set coverage in the chart', () => {
  it('a point per call that used earlier output, at its share of the plot height, with its figures', () => {
    const replay = withEvents();
    replay.calls[2] = {
      ...replay.calls[2],
      workingSet: { needed: 4, seen: 3, readBacks: 1 },
    } as (typeof replay.calls)[2];
    replay.calls[6] = {
      ...replay.calls[6],
      workingSet: { needed: 2, seen: 2, readBacks: 0 },
    } as (typeof replay.calls)[6];
    const html = renderReplayReport([replay]);
    const [chart] = charts(html);
    const dots = [
      ...(chart?.body ?? '').matchAll(
        /<circle cx="[\d.]+" cy="([\d.]+)" r="2.2" data-ws="(\d+)"><title>([^<]*)<\/title>/g,
      ),
    ];
    expect(dots.map((dot) => Number(dot[2]))).toEqual([3, 7]);
    expect(dots[0]?.[3]).toBe(
      'Call 3: 3 of 4 things used from earlier output in the request (75 %), 1 read-backs',
    );
    // 100 % sits higher than 75 %.
    expect(Number(dots[1]?.[1])).toBeLessThan(Number(dots[0]?.[1]));
    expect(html).toContain('working set in the request');
    expect(renderReplayReport([withEvents()])).not.toContain('data-ws=');
  });
});
