/**
 * Issue 15's acceptance run (src/testing/coding-session-scenario.ts): 60 scripted turns of coding work
 * with large tool outputs against a 16k-window model, through the real `ctxkit chat` processes, killed
 * mid-way and resumed. `npm run bench:chat-acceptance` prints the same run's figures.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  runCodingSessionScenario,
  SCENARIO_KILL_TURN,
  SCENARIO_TURNS,
  SCENARIO_WINDOW,
} from '../../testing/coding-session-scenario.ts';

it('60 turns at 16k: nothing over the window, the forced overflow recovered, resumed after a kill, the plan and files kept', async () => {
  const root = await mkdtemp(join(tmpdir(), 'ctxkit-acceptance-'));
  try {
    const figures = await runCodingSessionScenario({ root });
    const { model } = figures;
    expect(model.overWindow).toBe(0);
    expect(model.maxInputTokens).toBeLessThan(SCENARIO_WINDOW);
    expect(model.forcedOverflows).toBe(1);
    expect(figures.overflowsRecovered).toBe(1);
    // Every turn answered, the killed one again after the resume; real work was done and compacted.
    for (let turn = 0; turn < SCENARIO_TURNS; turn++) expect(figures.stdout).toContain(`Turn ${turn} done.`);
    expect(figures.stdout.match(/resuming acceptance/g)).toHaveLength(1);
    expect(figures.toolOutputChars).toBeGreaterThan(1_000_000);
    expect(figures.editsByLayer.summarize ?? 0).toBeGreaterThan(5);
    expect(model.summaryRequests).toBeGreaterThan(5);
    expect(figures.killedInTurn).toBe(SCENARIO_KILL_TURN);
    // The last summary still names every file the session touched and every plan item left open.
    expect(figures.finalSummary).toBeDefined();
    expect(figures.missingFiles).toEqual([]);
    expect(figures.missingPlanItems).toEqual([]);
    expect(figures.openPlanItems.length).toBeGreaterThan(3);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}, 120_000);
