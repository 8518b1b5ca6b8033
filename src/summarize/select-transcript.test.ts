import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { selectTranscript } from './select-transcript.ts';

const counter = createHeuristicCounter(4);
const countTokens = (text: string): number => counter.count(text);

const session = numbered(
  Array.from({ length: 60 }, (_, turn) => [
    user(`request ${turn}: ${'please '.repeat(turn % 7)}do the thing`),
    callsTo([`c${turn}`, 'bash', `{"command":"make step-${turn}"}`]),
    result(`c${turn}`, `output ${turn}\n${'log line\n'.repeat((turn * 37) % 400)}`),
    assistant(`done with step ${turn}`),
  ]).flat(),
);

describe('selectTranscript', () => {
  it('keeps everything, without a marker, when it fits', () => {
    const selected = selectTranscript({
      messages: session.slice(0, 4),
      maxTokens: 10_000,
      countTokens,
      toolResultMaxChars: 1800,
    });
    expect(selected.elided).toBe(0);
    expect(selected.text).not.toContain('elided');
    expect(selected.text.startsWith('[#0 user]\nrequest 0: do the thing')).toBe(true);
  });

  it('never exceeds its budget, keeps the opening and the newest message, marks the elided middle', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 40, max: 6000 }),
        fc.integer({ min: 50, max: 3000 }),
        (maxTokens, cut) => {
          const selected = selectTranscript({
            messages: session,
            maxTokens,
            countTokens,
            toolResultMaxChars: cut,
          });
          expect(countTokens(selected.text)).toBeLessThanOrEqual(maxTokens);
          expect(selected.tokens).toBe(countTokens(selected.text));
          if (selected.elided > 0)
            expect(selected.text).toMatch(/\[… \d+ messages? elided \(#\d+–#\d+\) …\]/);
          if (maxTokens >= 400) expect(selected.text).toContain('[#239 assistant]\ndone with step 59');
        },
      ),
      { numRuns: 80, seed: 7 },
    );
  });

  it("unverified, picks the same messages and reports the blocks' own counts", () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 6000 }), (maxTokens) => {
        const input = { messages: session, maxTokens, countTokens, toolResultMaxChars: 1800 };
        const verified = selectTranscript(input);
        const trusted = selectTranscript({ ...input, verify: false });
        // The heuristic counter is additive up to a separator's rounding: the same choice either way.
        expect(trusted.elided).toBe(verified.elided);
        expect(trusted.text).toBe(verified.text);
        // The figure is the sum of the pieces, not a recount: within a token per block of the real one.
        const blocks = trusted.text.split('\n\n[#').length;
        expect(Math.abs(trusted.tokens - countTokens(trusted.text))).toBeLessThanOrEqual(blocks + 2);
      }),
      { numRuns: 40, seed: 11 },
    );
  });
});
