import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { loadCorpusSession } from '../../testing/corpus.ts';
import { launchTestChromium } from '../../testing/test-chromium.ts';
import { COMPACTING_LAYERS, computeReplayMetrics } from '../compute-replay-metrics.ts';
import type { SessionReplay } from '../replay-types.ts';
import { replayWithCtxkit } from '../replay-with-ctxkit.ts';
import { fixtureReplay, SUMMARY_EVENT } from './fixture-replay.ts';
import { writeReplayReport } from './write-report.ts';

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it): never a downloaded browser. */

/** Two sessions each policy compacts at this window: default summarizes and clears, cowagent trims. */
const SESSIONS = ['tau-bench__gpt-4o-airline_task4_trial2.jsonl', 'aider__chat_2024-08-14T095032.jsonl'];
const POLICIES = ['default', 'cowagent'] as const;
const WINDOW = { contextWindow: 8_000, maxOutputTokens: 1_000 };

async function corpusReplays(): Promise<SessionReplay[]> {
  const replays: SessionReplay[] = [];
  for (const file of SESSIONS) {
    const transcript = loadCorpusSession(file);
    for (const name of POLICIES) {
      const { requests, finalMemory } = await replayWithCtxkit(transcript, PRESETS[name], WINDOW);
      replays.push(
        computeReplayMetrics(file, `ctxkit:${name}`, transcript.messages, requests, finalMemory, WINDOW),
      );
    }
  }
  return replays;
}

describe('the replay report in Chromium', () => {
  let dir: string;
  let context: BrowserContext;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ctxkit-report-'));
    context = await launchTestChromium(join(dir, 'profile'), "the report's browser test");
  });

  afterAll(async () => {
    await context?.close();
    // The screenshot stays for people to look at; the rest goes.
    if (dir) rmSync(join(dir, 'profile'), { recursive: true, force: true });
  });

  /** Opens a report from disk with every non-file request blocked and recorded. */
  async function open(path: string): Promise<{ page: Page; attempted: string[]; errors: string[] }> {
    const page = await context.newPage();
    const attempted: string[] = [];
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.route('**', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      attempted.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(path).href);
    return { page, attempted, errors };
  }

  it('draws every call of a real replay, explains a compaction on hover and click, offline', async () => {
    const replays = await corpusReplays();
    const path = join(dir, 'report.html');
    await writeReplayReport(replays, path);
    const { page, attempted, errors } = await open(path);

    expect(await page.title()).toBe('ctxkit replay report');
    const figures = page.locator('figure[data-calls]');
    expect(await figures.count()).toBe(replays.length);
    for (const [index, replay] of replays.entries()) {
      const figure = figures.nth(index);
      expect(await figure.getAttribute('data-calls')).toBe(String(replay.calls.length));
      expect(await figure.locator('[data-call]').count()).toBe(replay.calls.length);
      const box = await figure.locator('svg.plot').boundingBox();
      expect(box?.width).toBeGreaterThan(400);
      // Drawn, not just present: the tallest bar has a visible height on the page.
      const heights = await figure
        .locator('rect.c-history')
        .evaluateAll((rects) => rects.map((rect) => rect.getBoundingClientRect().height));
      expect(Math.max(...heights)).toBeGreaterThan(50);
    }
    // Two policies of one session side by side, on the same row.
    const [left, right] = await Promise.all([figures.nth(0).boundingBox(), figures.nth(1).boundingBox()]);
    expect(left && right && Math.abs(left.y - right.y)).toBe(0);

    // A compaction marker (a summary, wherever one happened) explains its event on hover…
    const marker = page.locator('figure[data-replay] [data-marker].mk-summarize').first();
    const replayIndex = Number(
      await marker.evaluate((element) => element.closest('figure')?.getAttribute('data-replay') ?? '-1'),
    );
    const call = Number(await marker.getAttribute('data-marker'));
    const layer =
      replays[replayIndex]?.calls[call - 1]?.events?.find((event) => COMPACTING_LAYERS.has(event.layer))
        ?.layer ?? '';
    expect(layer).toBe('summarize');
    const tooltip = page.locator('#tooltip');
    await expect(tooltip.isVisible()).resolves.toBe(false);
    await marker.hover();
    await tooltip.waitFor({ state: 'visible' });
    expect(await tooltip.textContent()).toContain(`Call ${call}`);
    expect(await tooltip.textContent()).toContain(layer);

    // …and in the details panel on click.
    await marker.click();
    const details = page.locator(`figure[data-replay="${replayIndex}"] .details`);
    await details.waitFor({ state: 'visible' });
    expect(await details.textContent()).toContain(`Call ${call}`);
    expect(await details.locator('td.layer').allTextContents()).toContain(layer);

    // Keyboard: a trim marker of cowagent, focused and opened with Enter. The pointer leaves the charts
    // first, as a keyboard user's would: the opened panel moves the layout under it.
    await page.mouse.move(0, 0);
    const trim = page.locator('figure[data-replay="1"] [data-marker].mk-compaction').first();
    await trim.focus();
    await tooltip.waitFor({ state: 'visible' });
    expect(await tooltip.textContent()).toContain('trim');
    await page.keyboard.press('Enter');
    await page.locator('figure[data-replay="1"] .details').waitFor({ state: 'visible' });
    expect(await page.locator('figure[data-replay="1"] .details').textContent()).toContain('trim');

    const screenshot = join(dir, 'report.png');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(20_000);

    expect(attempted).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('opens a 2,000-call report quickly with every call counted', async () => {
    const calls = 2_000;
    const events = Object.fromEntries(
      Array.from({ length: 20 }, (_, index) => [index * 100 + 50, [SUMMARY_EVENT]]),
    );
    const replays = [
      fixtureReplay({ calls, events, thresholds: { summarize: 5_600 } }),
      fixtureReplay({ calls, events, system: 'ctxkit:cowagent' }),
    ];
    const path = join(dir, 'large.html');
    await writeReplayReport(replays, path);
    const started = performance.now();
    const { page, attempted, errors } = await open(path);
    expect(performance.now() - started).toBeLessThan(10_000);
    const figures = page.locator('figure[data-calls]');
    expect(await figures.count()).toBe(2);
    for (const index of [0, 1]) {
      expect(await figures.nth(index).getAttribute('data-calls')).toBe(String(calls));
      expect(await figures.nth(index).locator('[data-call]').count()).toBe(calls);
    }
    await page.locator('[data-marker]').first().hover();
    await page.locator('#tooltip').waitFor({ state: 'visible' });
    expect(await page.locator('#tooltip').textContent()).toContain('summarize');
    expect(attempted).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });
});
