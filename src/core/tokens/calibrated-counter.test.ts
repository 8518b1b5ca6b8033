import { describe, expect, it } from 'vitest';
import {
  CalibratedTokenCounter,
  DEFAULT_CALIBRATION_PRIOR_TOKENS_PER_UNIT,
  MAX_TOKENS_PER_UNIT,
} from './calibrated-counter.ts';
import { CalibratedCounterRegistry } from './calibrated-counter-registry.ts';
import { countRunes } from './count-runes.ts';
import { createExactCounter } from './exact-counter.ts';
import { countTokenUnits } from './token-units.ts';

const o200k = createExactCounter('o200k');
const cl100k = createExactCounter('cl100k');

/** Text of the kinds an agent session holds: prose, code, a command log, JSON. */
const PROSE = [
  'Please look at the failing test in packages/core and tell me why the token budget is exceeded when a large tool result arrives right after a compaction.',
  'The proactive check compares the full formula against the window, but the summary region was left out of the sum, so a session that had just been compacted looked one summary smaller than it was. I added it back and the test passes.',
];
const TOOL_OUTPUT = [
  `export function historyBudget(regions: Omit<BudgetRegions, 'history'>): number {\n  return (\n    regions.contextWindow -\n    regions.system -\n    regions.summary -\n    regions.toolDefinitions -\n    regions.maxOutputTokens\n  );\n}\n`,
  '$ npm test -- budget\n\n FAIL  src/core/budget/budget.test.ts > budget regions\nAssertionError: expected 103001 to be less than or equal to 103000\n    at src/core/budget/budget.test.ts:31:42\n\n Test Files  1 failed (1)\n      Tests  1 failed | 4 passed (5)\n',
  '{"path":"src/core/budget/context-budget.ts","old_string":"regions.history + regions.system","new_string":"regions.history + regions.system + regions.summary"}',
  `import { describe, expect, it } from 'vitest';\nimport { isOverContextBudget } from './context-budget.ts';\n\ndescribe('isOverContextBudget', () => {\n  it('counts the summary', () => {\n    expect(isOverContextBudget({ contextWindow: 100, maxOutputTokens: 10, system: 10, toolDefinitions: 10, summary: 10, history: 61 })).toBe(true);\n  });\n});\n`,
];
const SESSION_CHUNKS = [PROSE[0], ...TOOL_OUTPUT.slice(0, 3), PROSE[1], TOOL_OUTPUT[3]] as string[];

const anchorOf = (text: string, tokens: number) => ({ units: countTokenUnits(text), tokens });
const relative = (estimate: number, exact: number) => Math.abs(estimate - exact) / exact;

describe('CalibratedTokenCounter', () => {
  it('counts token units at the prior (1 per unit, the reading of chars/4) before any usage', () => {
    const counter = new CalibratedTokenCounter();
    expect(DEFAULT_CALIBRATION_PRIOR_TOKENS_PER_UNIT).toBe(1);
    expect(counter.tokensPerUnit).toBe(1);
    expect(counter.count('function')).toBe(1);
    expect(counter.count('abcdefgh')).toBe(2); // 1 + 8/8: an identifier, not a word
    expect(counter.count('')).toBe(0);
    expect(counter.name).toBe('calibrated:default');
    expect('charsPerToken' in counter).toBe(false);
    // A policy's chars/N is read as N/4 times fewer tokens than units: picoclaw's chars/2.5 → 1.6.
    expect(new CalibratedTokenCounter({ priorCharsPerToken: 2.5 }).tokensPerUnit).toBeCloseTo(1.6, 10);
    expect(
      new CalibratedTokenCounter({ priorCharsPerToken: 4, priorTokensPerUnit: 1.25 }).tokensPerUnit,
    ).toBe(1.25);
    expect(() => new CalibratedTokenCounter({ priorCharsPerToken: 0 })).toThrow(/priorCharsPerToken/);
    expect(() => new CalibratedTokenCounter({ priorTokensPerUnit: 10 })).toThrow(/priorTokensPerUnit/);
  });

  it('lets a large request decide and a small one only nudge', () => {
    const large = new CalibratedTokenCounter();
    large.observe({ units: 100_000, tokens: 120_000 });
    expect(large.tokensPerUnit).toBeCloseTo(1.2, 2);
    const small = new CalibratedTokenCounter();
    small.observe({ units: 100, tokens: 120 });
    expect(small.tokensPerUnit).toBeGreaterThan(1);
    expect(small.tokensPerUnit).toBeLessThan(1.05);
  });

  it('takes fixed tokens (media, framing) out before learning', () => {
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    const update = counter.observe({ units: 10_000, tokens: 13_200, fixedTokens: 1_200 });
    expect(update).toEqual({ accepted: true, anchorTokensPerUnit: 1.2, tokensPerUnit: 1.2 });
  });

  it('converges on exact o200k and cl100k counts of a growing session within a few percent', () => {
    for (const exact of [o200k, cl100k]) {
      const counter = new CalibratedTokenCounter();
      const errors: number[] = [];
      let context = '';
      for (let round = 0; round < 3; round++) {
        for (const chunk of SESSION_CHUNKS) {
          const next = `${context}${chunk}\n`;
          const tokens = exact.count(next);
          if (counter.anchors >= 2) errors.push(relative(counter.count(next), tokens));
          counter.observe(anchorOf(next, tokens));
          context = next;
        }
      }
      expect(Math.max(...errors)).toBeLessThan(0.05);
    }
  });

  it('learns a tokenizer that costs more than units model, whatever the text', () => {
    // A provider whose tokenizer spends 30% more than o200k (older, smaller vocabulary).
    const provider = (text: string) => Math.ceil(o200k.count(text) * 1.3);
    // Anchors of a few dozen tokens: without a prior weight, so they decide as large ones would.
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    counter.observe(anchorOf(PROSE[0] ?? '', provider(PROSE[0] ?? '')));
    const both = PROSE.join('\n');
    counter.observe(anchorOf(both, provider(both)));
    expect(counter.tokensPerUnit).toBeGreaterThan(1.2);
    const rest = TOOL_OUTPUT.join('\n');
    expect(relative(counter.count(rest), provider(rest))).toBeLessThan(0.08);
  });

  it('carries what two prose anchors taught over to code and tool output, where a character ratio does not', () => {
    // Both learn from the two anchors alone (no prior), as with the large requests of a real session.
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    const first = PROSE[0] ?? '';
    const both = PROSE.join('\n');
    counter.observe(anchorOf(first, o200k.count(first)));
    counter.observe(anchorOf(both, o200k.count(both)));
    const charsPerToken = (countRunes(first) + countRunes(both)) / (o200k.count(first) + o200k.count(both));
    const rest = TOOL_OUTPUT.join('\n');
    const exact = o200k.count(rest);
    expect(relative(counter.count(rest), exact)).toBeLessThan(0.08);
    expect(relative(Math.ceil(countRunes(rest) / charsPerToken), exact)).toBeGreaterThan(0.15);
  });

  it('follows content that changes (decay), rather than averaging over all history', () => {
    const counter = new CalibratedTokenCounter({ priorWeightUnits: 0 });
    for (let i = 0; i < 5; i++) counter.observe({ units: 10_000, tokens: 10_000 });
    expect(counter.tokensPerUnit).toBeCloseTo(1, 10);
    for (let i = 0; i < 5; i++) counter.observe({ units: 10_000, tokens: 13_000 });
    expect(counter.tokensPerUnit).toBeGreaterThan(1.28);
  });

  it('refuses figures that cannot describe what was sent, leaving the multiplier alone', () => {
    const counter = new CalibratedTokenCounter();
    const refusals = [
      [{ units: 0, tokens: 10 }, 'invalid-figures'],
      [{ units: 100, tokens: Number.NaN }, 'invalid-figures'],
      [{ units: 100, tokens: -5 }, 'invalid-figures'],
      [{ units: 100, tokens: 50, fixedTokens: -1 }, 'invalid-figures'],
      [{ units: 2_500, tokens: 1_200, fixedTokens: 1_200 }, 'no-text-tokens'],
      [{ units: 25_000, tokens: 1_000 }, 'implausible-ratio'], // usage without cached tokens
      [{ units: 250, tokens: 5_000 }, 'implausible-ratio'], // images the caller did not declare
    ] as const;
    for (const [anchor, reason] of refusals) {
      expect(counter.observe(anchor)).toEqual({ accepted: false, reason, tokensPerUnit: 1 });
    }
    expect(counter.anchors).toBe(0);
  });

  it('clamps the multiplier to plausible bounds', () => {
    const counter = new CalibratedTokenCounter({
      priorWeightUnits: 0,
      state: { units: 1, tokens: 10, anchors: 1 },
    });
    expect(counter.tokensPerUnit).toBe(MAX_TOKENS_PER_UNIT);
  });

  it('persists and resumes its evidence, and resets to the prior', () => {
    const counter = new CalibratedTokenCounter({ model: 'qwen3' });
    counter.observe({ units: 10_000, tokens: 12_000 });
    const resumed = new CalibratedTokenCounter({
      model: 'qwen3',
      state: JSON.parse(JSON.stringify(counter.state())),
    });
    expect(resumed.tokensPerUnit).toBe(counter.tokensPerUnit);
    expect(resumed.anchors).toBe(1);
    counter.reset();
    expect(counter.tokensPerUnit).toBe(1);
    expect(() => new CalibratedTokenCounter({ state: { units: -1, tokens: 0, anchors: 0 } })).toThrow(
      /state/,
    );
    // State written by the former chars-per-token counter has no units: refused, not misread.
    const legacy = JSON.parse('{"chars": 40000, "tokens": 12000, "anchors": 1}');
    expect(() => new CalibratedTokenCounter({ state: legacy })).toThrow(/state/);
  });
});

describe('CalibratedCounterRegistry', () => {
  it('keeps one counter per model, each learning its own multiplier', () => {
    const registry = new CalibratedCounterRegistry({ priorWeightUnits: 0 });
    registry.observe('claude-sonnet-4', { units: 10_000, tokens: 11_500 });
    registry.observe('llama-3.1-8b', { units: 10_000, tokens: 10_200 });
    expect(registry.get('claude-sonnet-4').tokensPerUnit).toBeCloseTo(1.15, 10);
    expect(registry.get('llama-3.1-8b').tokensPerUnit).toBeCloseTo(1.02, 10);
    expect(registry.get('claude-sonnet-4')).toBe(registry.get('claude-sonnet-4'));
    expect(registry.get('unseen').tokensPerUnit).toBe(1);
    expect(registry.models()).toEqual(['claude-sonnet-4', 'llama-3.1-8b', 'unseen']);
    expect(() => registry.get('')).toThrow(/model/);
  });

  it('starts every model at the policy’s chars/N prior, as the engine configures it', () => {
    const registry = new CalibratedCounterRegistry({ priorCharsPerToken: 2.5 });
    expect(registry.get('some-model').tokensPerUnit).toBeCloseTo(1.6, 10);
  });

  it('snapshots to JSON and resumes from it', () => {
    const registry = new CalibratedCounterRegistry();
    registry.observe('gpt-oss-20b', { units: 20_000, tokens: 21_000 });
    const resumed = new CalibratedCounterRegistry({}, JSON.parse(JSON.stringify(registry.snapshot())));
    expect(resumed.has('gpt-oss-20b')).toBe(true);
    expect(resumed.get('gpt-oss-20b').tokensPerUnit).toBe(registry.get('gpt-oss-20b').tokensPerUnit);
  });
});
