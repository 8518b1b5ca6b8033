import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { budgetReport, isOverContextBudget } from './context-budget.ts';
import {
  measurePressure,
  PRESSURE_MEASURES,
  pressureCeiling,
  reachableThreshold,
  thresholdInputTokens,
} from './pressure-measure.ts';

const regions = {
  contextWindow: 32_768,
  maxOutputTokens: 8_192,
  system: 1_000,
  toolDefinitions: 2_000,
  summary: 500,
  history: 10_000,
};

describe('measurePressure', () => {
  it('divides the input, or the history alone, by the window less the reserve or by the whole window', () => {
    expect(measurePressure('input/usable', regions)).toBe(13_500 / 24_576);
    expect(measurePressure('input/window', regions)).toBe(13_500 / 32_768);
    expect(measurePressure('history/window', regions)).toBe(10_000 / 32_768);
  });

  it('input/usable is the budget report’s pressure (docs/ARCHITECTURE.md’s formula)', () => {
    expect(measurePressure('input/usable', regions)).toBe(budgetReport(regions).pressure);
  });

  it('the output reserve moves only input/usable', () => {
    const larger = { ...regions, maxOutputTokens: 16_384 };
    expect(measurePressure('input/usable', larger)).toBeGreaterThan(measurePressure('input/usable', regions));
    expect(measurePressure('input/window', larger)).toBe(measurePressure('input/window', regions));
    expect(measurePressure('history/window', larger)).toBe(measurePressure('history/window', regions));
  });

  it('is infinite with input and no room, 0 with neither', () => {
    const full = { ...regions, maxOutputTokens: regions.contextWindow };
    expect(measurePressure('input/usable', full)).toBe(Number.POSITIVE_INFINITY);
    const empty = { ...full, system: 0, toolDefinitions: 0, summary: 0, history: 0 };
    expect(measurePressure('input/usable', empty)).toBe(0);
    expect(measurePressure('input/window', { ...empty, contextWindow: 0, maxOutputTokens: 0 })).toBe(0);
  });
});

describe('reachableThreshold', () => {
  it('keeps a threshold the request can reach and brings one past the largest request that fits down to it', () => {
    // 24,576 of 32,768 can be input: 75 % of the window.
    expect(pressureCeiling('input/window', regions)).toBe(0.75);
    expect(reachableThreshold(0.6, 'input/window', regions)).toBe(0.6);
    expect(reachableThreshold(0.85, 'input/window', regions)).toBe(0.75);
    expect(reachableThreshold(0.85, 'input/usable', regions)).toBe(0.85);
    // picoclaw measures the history alone and leaves the request to its proactive check: never moved.
    expect(reachableThreshold(0.85, 'history/window', regions)).toBe(0.85);
  });

  it('property: a request at the reachable threshold of an input measure fits the window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_000, max: 400_000 }),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom('input/usable' as const, 'input/window' as const),
        (contextWindow, reserveShare, trigger, measure) => {
          const window = { contextWindow, maxOutputTokens: Math.floor(contextWindow * reserveShare) };
          const tokens = thresholdInputTokens(reachableThreshold(trigger, measure, window), measure, {
            ...window,
            system: 0,
            toolDefinitions: 0,
            summary: 0,
          });
          expect(
            isOverContextBudget({ ...window, system: 0, toolDefinitions: 0, summary: 0, history: tokens }),
          ).toBe(false);
        },
      ),
    );
  });
});

describe('thresholdInputTokens', () => {
  it('is the threshold times the denominator for the input measures', () => {
    expect(thresholdInputTokens(0.6, 'input/window', regions)).toBe(Math.floor(0.6 * 32_768));
    expect(thresholdInputTokens(0.6, 'input/usable', regions)).toBe(Math.floor(0.6 * 24_576));
  });

  it('adds the regions beside the history when only the history is measured', () => {
    expect(thresholdInputTokens(0.75, 'history/window', regions)).toBe(
      Math.floor(0.75 * 32_768) + 1_000 + 2_000 + 500,
    );
  });

  it('property: the threshold is crossed between its input tokens and one token more', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...PRESSURE_MEASURES),
        fc.integer({ min: 1_000, max: 400_000 }),
        fc.double({ min: 0.01, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 500 }),
        fc.double({ min: 0.05, max: 1, noNaN: true }),
        (measure, contextWindow, reserveShare, system, threshold) => {
          const window = { contextWindow, maxOutputTokens: Math.floor(contextWindow * reserveShare) };
          const fixed = { system, toolDefinitions: 0, summary: 0 };
          const tokens = thresholdInputTokens(threshold, measure, { ...window, ...fixed });
          const at = (input: number) =>
            measurePressure(measure, { ...window, ...fixed, history: input - system });
          // (within floating-point rounding of threshold × denominator)
          expect(at(tokens + 1)).toBeGreaterThanOrEqual(threshold - 1e-12);
          expect(at(tokens)).toBeLessThanOrEqual(threshold + 1e-12);
        },
      ),
    );
  });
});
