import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contextLevel } from '../core/budget/context-level.ts';
import { PRESETS } from '../core/policy/index.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { launchTestChromium } from '../testing/test-chromium.ts';
import type { CallRecord } from './dashboard/call-history.ts';
import { type ProxyHarness, postJson, startProxyHarness } from './testing/proxy-harness.ts';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it): never a downloaded browser. */
const KEY = 'sk-test-DASHBOARD-0123456789';
const OTHER_KEY = 'sk-test-SOMEONE-ELSE-987654';
const WINDOW = 16_000;
/** The page as the test saw it: in the temp directory, or where `CTXKIT_DASHBOARD_SCREENSHOT` says. */
const SCREENSHOT = process.env.CTXKIT_DASHBOARD_SCREENSHOT ?? join(tmpdir(), 'ctxkit-dashboard.png');

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('the dashboard in Chromium', () => {
  let dir: string;
  let context: BrowserContext;
  let h: ProxyHarness;
  /** The conversation so far, as the client resends it. */
  const messages: Array<{ role: string; content: string }> = [
    { role: 'system', content: 'You are a coding agent.' },
  ];
  let session: string | undefined;

  /** One more turn of the conversation through the proxy's OpenAI route. */
  async function turn(text: string, key = KEY): Promise<string> {
    h.upstream.enqueue(openAIReply({ content: `reply to ${text}` }));
    messages.push({ role: 'user', content: `${text} ${'context '.repeat(400)}` });
    const response = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'local-test-model', messages },
      auth(key),
    );
    expect(response.status).toBe(200);
    messages.push({ role: 'assistant', content: `reply to ${text}` });
    const id = response.headers.get('x-ctxkit-session');
    expect(id).toMatch(/^conv_/);
    return id ?? '';
  }

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

  it('records the calls per session, for their owner only', async () => {
    session = await turn('first');
    expect(await turn('second')).toBe(session);
    const response = await fetch(`${h.proxy.url}/api/sessions/${session}/calls`, { headers: auth(KEY) });
    expect(response.status).toBe(200);
    const { calls } = (await response.json()) as { calls: CallRecord[] };
    expect(calls).toHaveLength(2);
    expect(calls[0]?.window).toBe(WINDOW);
    expect(calls[1]?.sent).toBeGreaterThan(calls[0]?.sent ?? Number.POSITIVE_INFINITY);
    const other = await fetch(`${h.proxy.url}/api/sessions/${session}/calls`, { headers: auth(OTHER_KEY) });
    expect(other.status).toBe(404);
  });

  it('shows the sessions and the chart, and appends a new call without a reload', async () => {
    expect(session).toBeDefined();
    const { page, attempted, errors } = await open();
    const item = page.locator(`#sessions li[data-session="${session}"]`);
    await item.waitFor();
    await page.locator('#chart [data-call]').nth(1).waitFor();
    expect(await page.locator('#chart [data-call]').count()).toBe(2);
    expect(await page.locator('#chart .window path').getAttribute('data-window')).toBe(String(WINDOW));
    expect(await page.locator('#status').textContent()).toBe('live');

    // The percentage is the last call's pressure, coloured at the policy's display thresholds.
    const calls = (
      (await (
        await fetch(`${h.proxy.url}/api/sessions/${session}/calls`, { headers: auth(KEY) })
      ).json()) as {
        calls: CallRecord[];
      }
    ).calls;
    const pressure = calls.at(-1)?.pressure ?? Number.NaN;
    expect(await item.locator('.pct').textContent()).toBe(`${Math.round(pressure * 100)} %`);
    expect(await item.locator('.pct').getAttribute('data-level')).toBe(
      contextLevel(pressure, PRESETS.default.display),
    );

    // The page's thresholds are the policy's: yellow from 70 %, red from 90 %.
    const levels = await page.evaluate(() => {
      const levelOf = (globalThis as unknown as { levelOf: (pressure: number) => string }).levelOf;
      return [0.69, 0.7, 0.89, 0.9, 1.2].map(levelOf);
    });
    expect(levels).toEqual(['ok', 'warn', 'warn', 'danger', 'danger']);

    // Another owner's session never reaches this page, listed or streamed.
    await page.evaluate(() => {
      (globalThis as unknown as { marker: number }).marker = 42;
    });
    const otherMessages = [{ role: 'user', content: 'not yours' }];
    h.upstream.enqueue(openAIReply({ content: 'hidden' }));
    const other = await postJson(
      `${h.proxy.url}/v1/chat/completions`,
      { model: 'local-test-model', messages: otherMessages },
      auth(OTHER_KEY),
    );
    expect(other.status).toBe(200);

    // A new call: it appears over the event stream, the page never reloaded.
    await turn('third');
    await page.locator('#chart [data-call="3"]').waitFor({ timeout: 10_000 });
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.locator('#sessions li').count()).toBe(1);
    expect(await page.locator('#chart-meta').textContent()).toMatch(/^3 calls/);

    mkdirSync(join(process.cwd(), 'bench', 'results'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(statSync(SCREENSHOT).size).toBeGreaterThan(10_000);
    expect(attempted).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
