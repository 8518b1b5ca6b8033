import { describe, expect, it } from 'vitest';
import type { SummarizeInput } from '../entries/summarize.ts';
import { createHeuristicCounter } from '../entries/tokens.ts';
import {
  type ContextEvent,
  createContextManager,
  type MessageInput,
  PRESETS,
  type Summarizer,
} from '../index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';

type SummaryGenerated = Extract<ContextEvent, { type: 'summary-generated' }>;

const counter = createHeuristicCounter(4);
const window = { contextWindow: 6_000, maxOutputTokens: 500 };
const request = window;

function turn(index: number): MessageInput[] {
  return [
    user(`step ${index}: run the next check`),
    callsTo([`c${index}`, 'bash', `{"command":"make check-${index}"}`]),
    result(`c${index}`, `check ${index}\n${'ok line\n'.repeat(60)}`, { name: 'bash' }),
  ];
}

/** A summarizer that reports what a provider would: its usage, model and time. */
const reportingSummarizer = (calls: SummarizeInput[]): Summarizer => ({
  name: 'model:summary-model-1',
  usesModel: true,
  async summarize(input) {
    calls.push(input);
    const text = `## Intent\n- checks through ${input.throughSeq}`;
    input.onReport?.({
      summarizer: 'model',
      model: 'summary-model-1',
      inputTokens: 1_000 + calls.length,
      outputTokens: 40,
      tokenSource: 'provider',
      durationMs: 12,
      throughSeq: input.throughSeq,
    });
    return {
      text,
      sections: { intent: [text] },
      throughSeq: input.throughSeq,
      tokens: 20,
      producer: 'summary-model-1',
    };
  },
});

describe('summary-generated: one event per summarizer call', () => {
  it('a manual compaction emits the call with its tokens, reason and layer', async () => {
    const calls: SummarizeInput[] = [];
    const manager = createContextManager({
      policy: PRESETS.default,
      ...window,
      counter,
      summarizer: reportingSummarizer(calls),
    });
    for (let step = 0; step < 4; step++) await manager.append('s', turn(step));
    const seen: ContextEvent[] = [];
    manager.on((event) => seen.push(event));
    const { compacted, events } = await manager.compact('s');
    expect(compacted).toBe(true);
    const generated = events.filter((event): event is SummaryGenerated => event.type === 'summary-generated');
    expect(generated).toHaveLength(calls.length);
    expect(generated[0]).toMatchObject({
      sessionId: 's',
      reason: 'manual',
      layer: 'manual',
      model: 'summary-model-1',
      inputTokens: 1_001,
      outputTokens: 40,
      tokenSource: 'provider',
      throughSeq: calls[0]?.throughSeq,
    });
    expect(seen.filter((event) => event.type === 'summary-generated')).toEqual(generated);
  });

  it('the extractive default reports counted tokens', async () => {
    const manager = createContextManager({ policy: PRESETS.default, ...window, counter });
    for (let step = 0; step < 4; step++) await manager.append('s', turn(step));
    const { events } = await manager.compact('s');
    const generated = events.filter((event): event is SummaryGenerated => event.type === 'summary-generated');
    expect(generated).toHaveLength(1);
    expect(generated[0]?.tokenSource).toBe('counted');
    expect(generated[0]?.inputTokens).toBeGreaterThan(0);
    expect(generated[0]?.outputTokens).toBeGreaterThan(0);
  });

  it('a background summary reports through a later call, once for each summarizer call', async () => {
    const calls: SummarizeInput[] = [];
    const manager = createContextManager({
      policy: PRESETS.default,
      ...window,
      counter,
      summarizer: reportingSummarizer(calls),
    });
    const generated: ContextEvent[] = [];
    manager.on((event) => {
      if (event.type === 'summary-generated') generated.push(event);
    });
    let step = 0;
    while (calls.length < 2 && step < 400) {
      await manager.append('s', turn(step++));
      await manager.prepare('s', request);
      await (await manager.afterTurn('s')).done;
    }
    expect(calls.length).toBeGreaterThanOrEqual(2);
    // The newest background summary is reported by the next prepare, which takes it up.
    await manager.prepare('s', request);
    expect(generated).toHaveLength(calls.length);
    expect(generated.map((event) => (event as SummaryGenerated).throughSeq)).toEqual(
      calls.map((call) => call.throughSeq),
    );
  });
});
