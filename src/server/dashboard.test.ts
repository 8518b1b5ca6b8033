import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextLevel } from '../core/budget/context-level.ts';
import type { ContextEvent } from '../core/events.ts';
import { PRESETS } from '../core/policy/index.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { launchTestChromium } from '../testing/test-chromium.ts';
import type { CallRecord } from './dashboard/call-history.ts';
import type { DashboardView, ViewItem } from './dashboard/dashboard-view.ts';
import type { SessionThresholds } from './dashboard/session-thresholds.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it): never a downloaded browser. */
const KEY = 'sk-test-DASHBOARD-0123456789';
const OTHER_KEY = 'sk-test-SOMEONE-ELSE-987654';
const WINDOW = 16_000;
/** A tool result of about 1,800 tokens: a few of them fill the 16k window until the summary fires. */
const SMALL = 150;
/** A tool result of about 40,000 tokens: over the 20,000-token limit, offloaded as it arrives. */
const LARGE = 3_000;
/** Text a page that rendered data as markup would run. */
const HOSTILE = '<img src=x onerror="globalThis.pwned=1"><script>globalThis.pwned=2</script>';
/** The page as the test saw it: in the temp directory, or where `CTXKIT_DASHBOARD_SCREENSHOT` says. */
const SCREENSHOT = process.env.CTXKIT_DASHBOARD_SCREENSHOT ?? join(tmpdir(), 'ctxkit-dashboard.png');

const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** The lines of step `step`'s file; one line of each is a needle to find again. */
const fileLines = (step: number, count: number): string[] =>
  Array.from({ length: count }, (_, n) =>
    n === Math.floor(count / 2)
      ? `NEEDLE_${step} is in the middle of f${step}.txt`
      : `f${step} line ${n}: value_${n * 7} ok`,
  );

describe('the dashboard in Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let h: ProxyHarness;
  /** The conversation so far, as the client resends it. */
  const messages: unknown[] = [{ role: 'system', content: 'You are a coding agent.' }];
  let session = '';

  /** One turn through the proxy's OpenAI route: the user asks, the agent reads a file, the model answers. */
  async function turn(step: number, lines: number, text = ''): Promise<string> {
    // No usage in the reply: the fake's fixed figures would anchor ctxkit's count of every call.
    h.upstream.enqueue(openAIReply({ content: `done with step ${step}`, usage: null }));
    messages.push(
      { role: 'user', content: `step ${step}: read f${step}.txt${text}` },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: `call_${step}`,
            type: 'function',
            function: { name: 'read_file', arguments: `{"path":"f${step}.txt"}` },
          },
        ],
      },
      { role: 'tool', tool_call_id: `call_${step}`, content: fileLines(step, lines).join('\n') },
    );
    const response = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'local-test-model', messages },
      auth(KEY),
    );
    expect(response.status).toBe(200);
    messages.push({ role: 'assistant', content: `done with step ${step}` });
    const id = response.headers.get('x-ctxkit-session');
    expect(id).toMatch(/^conv_/);
    return id ?? '';
  }

  async function getJson<T>(path: string, key = KEY): Promise<{ status: number; body: T }> {
    const response = await fetch(`${h.proxy.url}${path}`, { headers: auth(key) });
    return { status: response.status, body: (await response.json()) as T };
  }
  const callsOf = async (): Promise<CallRecord[]> =>
    (await getJson<{ calls: CallRecord[] }>(`/api/sessions/${session}/calls`)).body.calls;
  const viewOf = async (): Promise<DashboardView & { thresholds: SessionThresholds | null }> =>
    (await getJson<DashboardView & { thresholds: SessionThresholds | null }>(`/api/sessions/${session}/view`))
      .body;

  beforeAll(async () => {
    h = await startProxyHarness({ contextWindow: WINDOW, detectWindow: false });
    dir = mkdtempSync(join(tmpdir(), 'ctxkit-dashboard-'));
    context = await launchTestChromium(join(dir, 'profile'), "the dashboard's browser test");
  });

  afterAll(async () => {
    await context?.close();
    await h?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens the dashboard with every request not to the proxy blocked and recorded. */
  async function open(): Promise<{ page: Page; attempted: string[]; errors: string[] }> {
    const page = await context.newPage();
    const attempted: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.route('**', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${h.proxy.url}/`)) return route.continue();
      attempted.push(url);
      return route.abort();
    });
    await page.goto(`${h.proxy.url}/#key=${KEY}`);
    return { page, attempted, errors };
  }

  it('records the calls per session by category, for their owner only', async () => {
    session = await turn(0, SMALL);
    expect(await turn(1, SMALL)).toBe(session);
    const calls = await callsOf();
    expect(calls).toHaveLength(2);
    expect(calls[0]?.window).toBe(WINDOW);
    expect(calls[1]?.sent).toBeGreaterThan(calls[0]?.sent ?? Number.POSITIVE_INFINITY);
    for (const call of calls) {
      const { system, tools, summary, memory, history, input } = call.tokens;
      expect(system + tools + summary + memory + history).toBe(input);
      expect(history).toBeGreaterThan(0);
    }
    expect((await getJson(`/api/sessions/${session}/calls`, OTHER_KEY)).status).toBe(404);
  });

  it('serves the view, whole messages and offloaded outputs to their owner only', async () => {
    for (let step = 2; step <= 5; step++) await turn(step, SMALL, step === 4 ? ` ${HOSTILE}` : '');
    await turn(6, LARGE);
    const calls = await callsOf();
    // The window filled up: a summary replaced the oldest turns, and the large output was offloaded.
    const summarized = calls.flatMap((call) => call.compactions).find(isSummarize);
    expect(summarized).toBeDefined();
    const spilled = calls.at(-1)?.compactions.find((event) => event.type === 'tool-output-spilled');
    expect(spilled).toBeDefined();

    const view = await viewOf();
    expect(view.cut?.type).toBe('summarize');
    const through = view.cut?.throughSeq ?? -1;
    expect(view.summary?.throughSeq).toBe(through);
    expect(view.summary?.text).toMatch(/^# Summary/);
    const logged = view.items.filter((item) => item.seq !== null && item.seq <= through);
    expect(logged.length).toBe(through + 1);
    for (const item of logged) expect(item).toMatchObject({ inView: false, mark: 'summarized' });
    expect(view.items.filter((item) => item.inView && item.mark === 'kept').length).toBeGreaterThan(0);
    // The newest output is offloaded: the model sees a pointer, the log (and the blob) the whole of it.
    const offloaded = view.items.find((item) => item.mark === 'offloaded' && item.inView) as ViewItem;
    expect(offloaded.blobRef).toBe(spilled?.type === 'tool-output-spilled' ? spilled.blobRef : 'none');
    expect(offloaded.edit).toMatchObject({ type: 'evict', layer: 'normalize' });
    expect(offloaded.text).toContain(offloaded.blobRef);
    expect(offloaded.original?.text.startsWith('f6 line 0: value_0 ok')).toBe(true);
    expect(offloaded.original?.chars).toBe(fileLines(6, LARGE).join('\n').length);
    // The threshold lines are the session's own, as its /context reports them.
    const context = await getJson<{ stats: { thresholds: SessionThresholds } }>(
      `/api/sessions/${session}/context`,
    );
    expect(view.thresholds?.summarize?.tokens).toBe(context.body.stats.thresholds.summarize?.tokens);
    expect(view.thresholds?.clearing?.tokens).toBe(context.body.stats.thresholds.clearing?.tokens);
    expect(view.thresholds?.contextWindow).toBe(WINDOW);
    // Every text is clipped: the answer stays small whatever the outputs hold.
    for (const item of view.items) expect(item.text.length).toBeLessThanOrEqual(1_500);
    expect((await getJson(`/api/sessions/${session}/view?before=x`)).status).toBe(400);
    const earlier = await getJson<DashboardView>(`/api/sessions/${session}/view?before=3`);
    expect(earlier.body.items.map((item) => item.seq)).toEqual([0, 1, 2]);

    // The offloaded output read back, as plain text that no browser runs.
    const ref = encodeURIComponent(offloaded.blobRef ?? '');
    const blob = await fetch(`${h.proxy.url}/api/sessions/${session}/offloaded?ref=${ref}`, {
      headers: auth(KEY),
    });
    expect(blob.status).toBe(200);
    expect(blob.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(blob.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await blob.text()).toBe(fileLines(6, LARGE).join('\n'));
    // A whole logged message, the hostile one too: text, never markup.
    const hostile = view.items.find((item) => item.text.includes(HOSTILE)) as ViewItem;
    const whole = await fetch(`${h.proxy.url}/api/sessions/${session}/log/${hostile.seq}`, {
      headers: auth(KEY),
    });
    expect(whole.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await whole.text()).toBe(`step 4: read f4.txt ${HOSTILE}`);

    // Another owner sees none of it, whatever it asks for; a ref that is not one is refused.
    for (const path of [
      `/api/sessions/${session}/view`,
      `/api/sessions/${session}/offloaded?ref=${ref}`,
      `/api/sessions/${session}/log/0`,
    ])
      expect((await getJson(path, OTHER_KEY)).status, path).toBe(404);
    const status = async (path: string) => (await getJson(`/api/sessions/${session}${path}`)).status;
    expect(await status('/offloaded')).toBe(400);
    expect(await status('/offloaded?ref=nope')).toBe(400);
    expect(await status(`/offloaded?ref=${encodeURIComponent('../../etc/passwd')}`)).toBe(400);
    expect(await status(`/offloaded?ref=${encodeURIComponent('other_kind/x')}`)).toBe(400);
    expect(await status(`/offloaded?ref=${encodeURIComponent('large_tool_results/missing')}`)).toBe(404);
    expect(await status('/log/x')).toBe(400);
    expect(await status('/log/99999')).toBe(404);
    expect((await getJson('/api/sessions/conv_nobody/view')).status).toBe(404);
  });

  it('shows the sessions, the chart, the savings and the view, and appends a new call without a reload', async () => {
    expect(session).not.toBe('');
    const { page, attempted, errors } = await open();
    const item = page.locator(`#sessions li[data-session="${session}"]`);
    await item.waitFor();
    const before = await callsOf();
    await page.locator(`#chart .hit[data-call="${before.length}"]`).waitFor();
    await page.locator('#chart .ln-summarize').waitFor();
    expect(await page.locator('#status').textContent()).toBe('live');

    // A bar per call, stacked by category: each category's path holds one bar per call that has it.
    expect(await page.locator('#chart .hit').count()).toBe(before.length);
    for (const category of ['system', 'tools', 'history'] as const) {
      const bars = before.filter((call) => call.tokens[category] > 0).length;
      expect(await page.locator(`#chart path.c-${category}`).getAttribute('data-bars')).toBe(String(bars));
    }
    const withSaved = before.filter((call) => call.saved > 0).length;
    expect(await page.locator('#chart path.c-saved').getAttribute('data-bars')).toBe(String(withSaved));
    // The window, and the thresholds the view route gave, as lines; a legend entry for every series.
    expect(await page.locator('#chart .ln-window path').getAttribute('data-window')).toBe(String(WINDOW));
    const thresholds = (await viewOf()).thresholds;
    for (const line of ['clearing', 'summarize', 'warn', 'danger'] as const)
      expect(await page.locator(`#chart .ln-${line}`).getAttribute('data-tokens')).toBe(
        String(thresholds?.[line]?.tokens),
      );
    const legend = await page.locator('#legend').textContent();
    for (const name of [
      'system prompt',
      'tool definitions',
      'summary',
      'memory',
      'history',
      'saved',
      'window',
    ])
      expect(legend).toContain(name);
    // A marker above each call that compacted.
    const compacted = before.map((call, i) => (call.compactions.length > 0 ? i + 1 : 0)).filter(Boolean);
    expect(
      await page
        .locator('#chart .marker')
        .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('data-call')))),
    ).toEqual(compacted);

    // The savings: what the client sent against what went upstream, over the recorded calls.
    const sent = before.reduce((sum, call) => sum + call.sent, 0);
    const saved = before.reduce((sum, call) => sum + call.saved, 0);
    expect(await page.locator('[data-figure="upstream"] dd').textContent()).toBe(
      `${sent.toLocaleString('en-US')} tokens`,
    );
    expect(await page.locator('[data-figure="saved"] dd').textContent()).toBe(
      `${saved.toLocaleString('en-US')} tokens (${((saved / (sent + saved)) * 100).toFixed(1)} %)`,
    );

    // The percentage is the last call's pressure, coloured at the policy's display thresholds.
    const pressure = before.at(-1)?.pressure ?? Number.NaN;
    expect(await item.locator('.pct').textContent()).toBe(`${Math.round(pressure * 100)} %`);
    expect(await item.locator('.pct').getAttribute('data-level')).toBe(
      contextLevel(pressure, PRESETS.default.display),
    );
    const levels = await page.evaluate(() => {
      const levelOf = (globalThis as unknown as { levelOf: (pressure: number) => string }).levelOf;
      return [0.69, 0.7, 0.89, 0.9, 1.2].map(levelOf);
    });
    expect(levels).toEqual(['ok', 'warn', 'warn', 'danger', 'danger']);

    // The view: summarized messages folded, readable when opened; the hostile text shown as text.
    const group = page.locator('#view li.group[data-mark="summarized"]');
    await group.waitFor();
    await group.locator('summary').click();
    await expect.poll(() => group.locator('li.item').count()).toBeGreaterThan(0);
    expect(await page.locator('#view-summary pre').textContent()).toMatch(/^# Summary/);
    const hostile = page.locator('#view li.item', { hasText: 'step 4: read f4.txt' });
    expect(await hostile.locator('pre.text').textContent()).toBe(`step 4: read f4.txt ${HOSTILE}`);
    expect(await page.locator('#view img, #view script').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();

    // Another owner's session never reaches this page, listed or streamed.
    await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 42;
    });
    h.upstream.enqueue(openAIReply({ content: 'hidden' }));
    const other = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'local-test-model', messages: [{ role: 'user', content: 'not yours' }] },
      auth(OTHER_KEY),
    );
    expect(other.status).toBe(200);

    // A new call that offloads its output: its bar and its marker appear over the event stream, and the
    // view shows the new pointer, whose output reads back in full; the page never reloaded.
    await turn(7, LARGE);
    const after = await callsOf();
    const n = after.length;
    await page.locator(`#chart .hit[data-call="${n}"]`).waitFor({ timeout: 10_000 });
    const marker = page.locator(`#chart .marker[data-call="${n}"]`);
    await marker.waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.locator('#sessions li').count()).toBe(1);
    expect(await page.locator('#chart-meta').textContent()).toMatch(new RegExp(`^${n} calls`));
    const events = after.at(-1)?.compactions ?? [];
    const spill = events.find((event) => event.type === 'tool-output-spilled');
    expect(spill).toBeDefined();
    const pointer = page.locator(
      `#view li.item[data-seq="${spill?.type === 'tool-output-spilled' ? spill.seq : -1}"]`,
    );
    await pointer.waitFor({ timeout: 10_000 });
    expect(await pointer.getAttribute('data-mark')).toBe('offloaded');
    await pointer.locator('button.read-offloaded').click();
    const content = pointer.locator('.offloaded-content pre.loaded');
    await content.waitFor();
    expect(await content.textContent()).toBe(fileLines(7, LARGE).join('\n'));

    // Clicking the new marker shows that call's events, as the call record has them.
    await marker.click();
    await page.locator('#detail-title').waitFor();
    expect(await page.locator('#detail-title').textContent()).toMatch(new RegExp(`^Call ${n} `));
    expect(
      await page
        .locator('#detail-events > li')
        .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-event'))),
    ).toEqual(events.map((event) => event.type));
    expect(await page.locator('#detail-events li[data-event="tool-output-spilled"]').textContent()).toContain(
      spill?.type === 'tool-output-spilled' ? spill.blobRef : 'none',
    );

    // The summary's marker by keyboard: Enter on it shows its layer and figures.
    const summaryCall = before.findIndex((call) => call.compactions.some(isSummarize)) + 1;
    const summaryEvent = before[summaryCall - 1]?.compactions.find(isSummarize);
    await page.locator(`#chart .marker[data-call="${summaryCall}"]`).focus();
    await page.keyboard.press('Enter');
    await expect
      .poll(() => page.locator('#detail-title').textContent())
      .toMatch(new RegExp(`^Call ${summaryCall} `));
    const finished = page.locator('#detail-events li[data-event="compaction-finished"]').first();
    expect(await finished.locator('[data-fact="layer"]').textContent()).toBe('layer summarize');
    if (summaryEvent?.type === 'compaction-finished') {
      expect(await finished.locator('[data-fact="tokens"]').textContent()).toBe(
        `tokens ${summaryEvent.tokensBefore.toLocaleString('en-US')} → ${summaryEvent.tokensAfter.toLocaleString('en-US')}`,
      );
      expect(await finished.locator('[data-fact="edits"]').textContent()).toBe(
        `edits ${summaryEvent.editIds.join(', ')}`,
      );
    }

    // The picture: the summary's marker open, the view from its start (the summarized part folded).
    await group.locator('summary').click();
    await page.locator('#view').evaluate((list) => {
      list.scrollTop = 0;
    });
    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    expect(attempted).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps the chart readable from one call to a thousand', async () => {
    const { page, errors } = await open();
    await page.locator('#sessions li').first().waitFor();
    /** Shows `count` synthetic calls (every 50th compacted) as session `id`, as the event stream would. */
    const show = (id: string, count: number) =>
      page.evaluate(
        async ([id, count]) => {
          const g = globalThis as unknown as {
            onCall: (event: { session: string; call: unknown }) => void;
            select: (id: string) => Promise<void>;
          };
          for (let i = 0; i < count; i++)
            g.onCall({
              session: id,
              call: {
                at: 1_700_000_000_000 + i * 1000,
                sent: 9_000,
                saved: 500,
                window: 16_000,
                pressure: 0.6,
                edits: 0,
                tokens: { system: 10, tools: 350, summary: 600, memory: 40, history: 8_000, input: 9_000 },
                compactions:
                  i % 50 === 49 ? [{ type: 'tool-results-cleared', at: 0, count: 2, tokensFreed: 900 }] : [],
                status: 200,
                model: 'synthetic',
              },
            });
          await g.select(id);
        },
        [id, count] as const,
      );
    const measure = async () => {
      const chart = page.locator('#chart');
      const hits = await chart
        .locator('.hit')
        .evaluateAll((nodes) => nodes.map((node) => Number(node.getAttribute('width'))));
      const bars = (await chart.locator('path.c-history').getAttribute('d'))?.match(/h[\d.]+/g) ?? [];
      return {
        nodes: await chart.locator('*').count(),
        hits: hits.length,
        narrowest: Math.min(...hits),
        widestBar: Math.max(...bars.map((bar) => Number(bar.slice(1)))),
        labels: await chart.locator(':scope > text').count(),
        markers: await chart.locator('.marker').count(),
        history: await chart.locator('path.c-history').getAttribute('data-bars'),
      };
    };
    await show('synthetic-one', 1);
    const one = await measure();
    // One call is one bar of a readable width, not the whole plot.
    expect(one).toMatchObject({ hits: 1, history: '1', markers: 0 });
    expect(one.widestBar).toBeLessThanOrEqual(56);
    await show('synthetic-many', 1_000);
    const many = await measure();
    expect(many).toMatchObject({ hits: 1_000, history: '1000', markers: 20 });
    expect(many.narrowest).toBeGreaterThan(0.5);
    // Axis labels stay few (ticks, every hundredth call, titles, line labels), and so do the nodes.
    expect(many.labels).toBeLessThan(30);
    expect(many.nodes).toBeLessThan(1_200);
    // The synthetic sessions have nothing stored: their 404s are expected, nothing else is.
    expect(errors.filter((error) => !error.includes('404'))).toEqual([]);
    await page.close();
  });
});

function isSummarize(event: ContextEvent): boolean {
  return event.type === 'compaction-finished' && event.layer === 'summarize';
}
