import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetReport,
  contextPressure,
  historyBudget,
  isOverContextBudget,
  oversizedFixedRegion,
} from './context-budget.ts';
import { windowFromSettings } from './context-window.ts';
import { clampKeepRecentTokens, effectiveTokenLimit } from './effective-token-limit.ts';

const regions = {
  contextWindow: 128_000,
  maxOutputTokens: 16_000,
  system: 3_000,
  toolDefinitions: 5_000,
  summary: 1_000,
  history: 90_000,
};

describe('budget regions (picoclaw)', () => {
  it('history_budget = ContextWindow - system_prompt - summary - tool_definitions - MaxTokens', () => {
    expect(historyBudget(regions)).toBe(128_000 - 3_000 - 1_000 - 5_000 - 16_000);
  });

  it('is over budget exactly when message + tool defs + system + summary + MaxTokens > ContextWindow', () => {
    expect(isOverContextBudget(regions)).toBe(false);
    expect(isOverContextBudget({ ...regions, history: 103_000 })).toBe(false);
    expect(isOverContextBudget({ ...regions, history: 103_001 })).toBe(true);
  });

  it('pressure is input over the window less the output reserve', () => {
    const report = budgetReport(regions);
    expect(report.inputTokens).toBe(99_000);
    expect(report.pressure).toBeCloseTo(99_000 / 112_000, 10);
    expect(report.free).toBe(13_000);
    expect(contextPressure(10, 100, 100)).toBe(Number.POSITIVE_INFINITY);
    expect(contextPressure(0, 100, 100)).toBe(0);
  });

  it('names the largest fixed region when even an empty history cannot fit', () => {
    expect(oversizedFixedRegion(regions)).toBeUndefined();
    expect(oversizedFixedRegion({ ...regions, toolDefinitions: 120_000 })).toBe('toolDefinitions');
    expect(oversizedFixedRegion({ ...regions, contextWindow: 8_000 })).toBe('maxOutputTokens');
  });

  it('over budget agrees with a non-positive free figure for any regions', () => {
    const nat = fc.integer({ min: 0, max: 300_000 });
    fc.assert(
      fc.property(
        nat,
        nat,
        nat,
        nat,
        nat,
        nat,
        (contextWindow, maxOutputTokens, system, tools, summary, history) => {
          const report = budgetReport({
            contextWindow,
            maxOutputTokens,
            system,
            toolDefinitions: tools,
            summary,
            history,
          });
          expect(report.overBudget).toBe(report.free < 0);
          expect(report.overBudget).toBe(history > report.historyBudget);
        },
      ),
    );
  });
});

describe('effective token limit (tiancai)', () => {
  it('is contextWindow - ReserveTokens when the context window is set and positive', () => {
    expect(
      effectiveTokenLimit({ contextWindow: 128_000, reserveTokens: 16_384, maxContextTokens: 8_000 }),
    ).toBe(111_616);
  });

  it('else MaxTokens, else no token threshold', () => {
    expect(effectiveTokenLimit({ contextWindow: 0, reserveTokens: 16_384, maxContextTokens: 8_000 })).toBe(
      8_000,
    );
    expect(effectiveTokenLimit({ maxContextTokens: 0 })).toBeUndefined();
  });

  it('KeepRecentTokens is also clamped to at most half of the effective token limit', () => {
    expect(clampKeepRecentTokens(20_000, 8_000)).toBe(4_000);
    expect(clampKeepRecentTokens(20_000, 111_616)).toBe(20_000);
    expect(clampKeepRecentTokens(20_000, undefined)).toBe(20_000);
  });
});

describe('context window vs max output (picoclaw)', () => {
  it('Current default when not explicitly configured: ContextWindow = MaxTokens * 4', () => {
    expect(windowFromSettings({ maxOutputTokens: 8_192 })).toBe(32_768);
    expect(windowFromSettings({ contextWindow: 200_000, maxOutputTokens: 8_192 })).toBe(200_000);
    expect(windowFromSettings({ contextWindow: 0 })).toBeUndefined();
  });
});
