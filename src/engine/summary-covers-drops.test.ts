import { describe, expect, it } from 'vitest';
import { textOf } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createExtractiveSummarizer } from '../summarize/extractive-summarizer.ts';
import type { SummarizeInput, Summarizer } from '../summarize/summarizer.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

/** A session at a 6k window whose turns each read a 1,500-token file; turn `n`'s answer names its plan item. */
function turn(n: number) {
  return [
    user(`turn ${n}: read src/f${n}.ts`),
    callsTo([`t${n}`, 'read', JSON.stringify({ path: `src/f${n}.ts` })]),
    result(`t${n}`, Array.from({ length: 150 }, (_, i) => `src/f${n}.ts:${i}: let x${i} = ${i};`).join('\n')),
    assistant(`Plan:\n- [ ] PLAN-ITEM-${n}`),
  ];
}

describe('a summary covers what a drop took out since the last summary', () => {
  it('the emergency drop leaves nothing the next summary never sees', async () => {
    const inputs: SummarizeInput[] = [];
    const extractive = createExtractiveSummarizer();
    const summarizer: Summarizer = {
      name: extractive.name,
      usesModel: false,
      summarize: (input) => {
        inputs.push(input);
        return extractive.summarize(input);
      },
    };
    const manager = createContextManager({
      policy: PRESETS.default,
      contextWindow: 6_000,
      maxOutputTokens: 500,
      summarizer,
    });
    for (let n = 0; n < 3; n++) await manager.append('s', turn(n));
    await manager.compact('s');
    expect(inputs).toHaveLength(1);
    for (let n = 3; n < 6; n++) await manager.append('s', turn(n));
    // The emergency path (as after an overflow, with no model call) drops the older turns.
    expect((await manager.emergencyCompact('s')).compacted).toBe(true);
    const { edits } = await manager.history('s');
    const drop = edits.findLast((edit) => edit.type === 'drop');
    expect(drop?.layer).toBe('emergency');
    await manager.append('s', turn(6));
    await manager.compact('s');
    const last = inputs.at(-1);
    const seen = (last?.messages ?? []).map((message) => textOf(message)).join('\n');
    // Each turn is 4 messages: every plan item the drop took out (after what the first summary covered)
    // reaches the second summary's input.
    const first = edits.find((edit) => edit.type === 'summarize');
    const droppedTurns: number[] = [];
    for (let n = 0; n < 6; n++) {
      const answerSeq = n * 4 + 3;
      if (first?.type === 'summarize' && answerSeq <= first.throughSeq) continue;
      if (drop?.type === 'drop' && answerSeq <= drop.throughSeq) droppedTurns.push(n);
    }
    expect(droppedTurns.length).toBeGreaterThan(0);
    for (const n of droppedTurns) expect(seen).toContain(`PLAN-ITEM-${n}`);
    const stats = await manager.stats('s');
    expect(stats.summary).toBeDefined();
  });
});
