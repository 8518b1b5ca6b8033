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
    recoveryBill: 1_000,
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

describe('the recovery goal of bench:peers', () => {
  // deepagents overflows at this window, LangChain.js does not: only LangChain.js's coverage is compared.
  const peers = [
    summary('langchain', true, { recoveryBill: 1_500, workingSetCoverage: 0.7 }),
    summary('deepagents', true, { recoveryBill: 1_200, workingSetCoverage: 0.95, overflows: 40 }),
  ];
  const goal = (figures: Partial<SystemSummary>, window = 32_000, others = peers) =>
    evaluateGoals(
      [summary('ctxkit:default', false, figures), ...others],
      'ctxkit:default',
      'langchain',
      window,
    ).recovery;

  it('holds with a bill at most deepagents’, coverage above every peer without overflows, and no overflow', () => {
    expect(goal({ recoveryBill: 1_200, workingSetCoverage: 0.71 })).toMatchObject({
      ratio: 1,
      coverageFloor: undefined,
      met: true,
    });
    expect(goal({ recoveryBill: 1_200, workingSetCoverage: 0.71 })?.byPeer).toEqual([
      {
        peer: 'langchain',
        recoveryBill: 1_500,
        ratio: 0.8,
        coverage: 0.7,
        overflows: 0,
        coverageCompared: true,
      },
      {
        peer: 'deepagents',
        recoveryBill: 1_200,
        ratio: 1,
        coverage: 0.95,
        overflows: 40,
        coverageCompared: false,
      },
    ]);
  });

  it('fails on each condition alone', () => {
    const passing = { recoveryBill: 1_000, workingSetCoverage: 0.8 };
    expect(goal(passing)?.met).toBe(true);
    expect(goal({ ...passing, recoveryBill: 1_201 })?.met).toBe(false);
    // Equal coverage is not above.
    expect(goal({ ...passing, workingSetCoverage: 0.7 })?.met).toBe(false);
    expect(goal({ ...passing, overflows: 1 })?.met).toBe(false);
    // Once deepagents sends no overflowing request, its coverage counts too.
    const fitting = [peers[0], { ...peers[1], overflows: 0 }] as SystemSummary[];
    expect(goal(passing, 32_000, fitting)?.met).toBe(false);
    expect(goal({ ...passing, workingSetCoverage: 0.96 }, 32_000, fitting)?.met).toBe(true);
    // Without deepagents there is nothing to hold the bill to.
    expect(goal(passing, 32_000, [peers[0] as SystemSummary])).toMatchObject({
      ratio: undefined,
      met: false,
    });
  });

  it('asks for coverage of at least 0.6 at 16k, above the peers or not', () => {
    const low = [
      summary('langchain', true, { recoveryBill: 1_500, workingSetCoverage: 0.4 }),
      peers[1],
    ] as SystemSummary[];
    expect(goal({ workingSetCoverage: 0.59 }, 16_000, low)).toMatchObject({ coverageFloor: 0.6, met: false });
    expect(goal({ workingSetCoverage: 0.6 }, 16_000, low)).toMatchObject({ coverageFloor: 0.6, met: true });
    expect(goal({ workingSetCoverage: 0.59 }, 128_000, low)?.met).toBe(true);
  });
});

describe('the speed goal of bench:peers', () => {
  const long = (p50: number, p99: number, total: number) => ({
    longSession: {
      calls: 471,
      timeMsP50: p50,
      timeMsP99: p99,
      timeMsMax: p99,
      timeMsTotal: total,
      overflows: 0,
      retention: 1,
    },
  });
  const speed = (ctxkit: ReturnType<typeof long>, langchain: ReturnType<typeof long>) =>
    evaluateGoals(
      [summary('ctxkit:default', false, ctxkit), summary('langchain', true, langchain)],
      'ctxkit:default',
      'langchain',
      16_000,
    ).speed;

  it('holds when the long session’s p99 is at most 5 ms and its total at least 20 × under LangChain.js’s', () => {
    expect(speed(long(0.2, 4.9, 150), long(6, 30, 3_500))).toMatchObject({
      ratioTotal: 23.3,
      ratioP50: 30,
      metP99: true,
      metTotal: true,
      met: true,
    });
  });

  it('fails on a p99 over 5 ms, or a total less than 20 × under, whatever the medians', () => {
    expect(speed(long(0.2, 5.1, 150), long(6, 30, 3_500))).toMatchObject({ metP99: false, met: false });
    expect(speed(long(0.2, 4, 200), long(6, 30, 3_500))).toMatchObject({
      ratioTotal: 17.5,
      metTotal: false,
      met: false,
    });
  });
});
