import { describe, expect, it } from 'vitest';
import { evaluateGoals, type SystemSummary } from './aggregate.ts';

const summary = (system: string, peer: boolean, figures: Partial<SystemSummary>): SystemSummary =>
  ({
    system,
    peer,
    sessions: 52,
    failed: [],
    overflows: 0,
    orphans: 0,
    billedWithCache: 1_000,
    retention: { total: 10, kept: 10, share: 1, byPlace: { view: 10, summary: 0, pointer: 0 }, byKind: {} },
    workingSetCoverage: 0.9,
    effectiveBill: 1_000,
    ...figures,
  }) as SystemSummary;

describe('the working-set goals of bench:peers', () => {
  const peers = [
    summary('langchain', true, { effectiveBill: 2_000 }),
    summary('deepagents', true, { effectiveBill: 1_400 }),
  ];

  it('holds when coverage meets the window goal and the bill is within both bounds', () => {
    const goals = evaluateGoals(
      [summary('ctxkit:default', false, {}), ...peers],
      'ctxkit:default',
      'langchain',
      32_000,
    );
    expect(goals.workingSet).toMatchObject({ coverageGoal: 0.8, met: true });
    expect(goals.workingSet?.byPeer).toEqual([
      { peer: 'langchain', ratio: 0.5, goal: 0.75, coverage: 0.9 },
      { peer: 'deepagents', ratio: 0.714, goal: 1, coverage: 0.9 },
    ]);
  });

  it('fails on coverage under the window goal, on retention, and on either bill bound', () => {
    const goal = (figures: Partial<SystemSummary>, window = 128_000) =>
      evaluateGoals(
        [summary('ctxkit:default', false, figures), ...peers],
        'ctxkit:default',
        'langchain',
        window,
      ).workingSet;
    expect(goal({ workingSetCoverage: 0.94 })).toMatchObject({ coverageGoal: 0.95, met: false });
    expect(goal({ workingSetCoverage: 0.61 }, 16_000)).toMatchObject({ coverageGoal: 0.6, met: true });
    expect(
      goal({
        retention: {
          total: 10,
          kept: 9,
          share: 0.98,
          byPlace: { view: 9, summary: 0, pointer: 0 },
          byKind: {},
        } as never,
      })?.met,
    ).toBe(false);
    // Each of these meets every goal but the one it breaks.
    expect(goal({ workingSetCoverage: 0.99 })?.met).toBe(true);
    expect(goal({ workingSetCoverage: 0.99, effectiveBill: 1_600 })?.met).toBe(false);
    expect(goal({ workingSetCoverage: 0.99, effectiveBill: 1_450 })?.met).toBe(false);
  });
});
