import { stripVTControlCharacters } from 'node:util';
import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../core/policy/presets/index.ts';
import type { SessionReplay } from '../../replay/replay-types.ts';
import { aggregate, pressureCell, renderRecovery, renderSideBySide, renderTotals } from './render-replay.ts';

const colors = pc.createColors(true);
const YELLOW = '\u001b[33m';
const RED = '\u001b[31m';

describe('pressureCell', () => {
  it("colours a pressure by the policy's display levels: plain, yellow from warnAt, red from dangerAt (002: 70 %, 90 %)", () => {
    const { display } = PRESETS.deepagents;
    expect(display).toEqual({ warnAt: 0.7, dangerAt: 0.9 });
    expect(pressureCell(0.69, display, colors)).toBe('69.0%');
    expect(pressureCell(0.7, display, colors)).toContain(YELLOW);
    expect(pressureCell(0.89, display, colors)).toContain(YELLOW);
    const danger = pressureCell(0.9, display, colors);
    expect(danger).toContain(RED);
    expect(danger).not.toContain(YELLOW);
    expect(pressureCell(Number.POSITIVE_INFINITY, display, colors)).toContain('∞');
  });

  it('follows the levels a policy sets, not fixed figures', () => {
    const display = { warnAt: 0.5, dangerAt: 0.6 };
    expect(pressureCell(0.55, display, colors)).toContain(YELLOW);
    expect(pressureCell(0.65, display, colors)).toContain(RED);
    expect(pressureCell(0.85, { warnAt: 0.95, dangerAt: 0.99 }, colors)).toBe('85.0%');
  });
});

describe('the recovery bill in the report', () => {
  const replay = (recoveryReadBacks: number, recoveryReRuns: number, recoveryBill: number): SessionReplay =>
    ({
      session: 's.jsonl',
      system: 'ctxkit:default',
      contextWindow: 16_000,
      maxOutputTokens: 1_000,
      calls: [],
      totals: {
        calls: 0,
        inputTokens: 0,
        billed: 0,
        billedWithCache: 1_000,
        workingSetNeeded: 4,
        workingSetSeen: 2,
        readBacks: 2,
        oversizedReadBacks: 0,
        readBackBill: 0,
        effectiveBill: 1_100,
        recoveryReadBacks,
        recoveryReRuns,
        recoveryCost: recoveryBill - 1_000,
        recoveryBill,
        overflows: 0,
        orphans: 0,
        compactions: 0,
        summaryCalls: 0,
        timeMsP50: 0,
        timeMsP99: 0,
      },
      retention: {
        total: 0,
        kept: 0,
        share: 1,
        byPlace: { view: 0, summary: 0, pointer: 0, lost: 0 },
        byKind: {
          path: { total: 0, kept: 0 },
          command: { total: 0, kept: 0 },
          error: { total: 0, kept: 0 },
          request: { total: 0, kept: 0 },
        },
      },
    }) as SessionReplay;

  it('adds the sessions’ read-backs, re-runs and recovery bills, and says what they add to the cache bill', () => {
    const figures = aggregate([replay(1, 2, 1_300), replay(3, 0, 1_100)]);
    expect(figures.recovery).toEqual({ readBacks: 4, reRuns: 2, bill: 2_400 });
    const text = stripVTControlCharacters(renderRecovery(figures));
    expect(text).toContain(
      '4 read-backs of pointed-to output · 2 tools run again · recovery bill 2,400 (20.0% over the cache bill)',
    );
    expect(renderTotals(figures, { readMultiplier: 0.1, writeMultiplier: 1.25 })).toContain('recovery bill');
    const side = renderSideBySide(new Map([['ctxkit:default', [replay(1, 2, 1_300)]]]));
    expect(side).toContain('tools run again');
    expect(side).toContain('1,300');
  });
});
