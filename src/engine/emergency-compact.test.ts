import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { contextEventSchema } from '../store/trace-event-schema.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { asInput } from '../testing/replay-session.ts';
import { createContextManager } from './context-manager.ts';
import { EMERGENCY_ON_DEMAND_FALLBACK, EMERGENCY_ON_DEMAND_REASON } from './emergency-compact.ts';

const TAU = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
const REQUEST = { system: TAU.system.join('\n\n'), contextWindow: 128_000, maxOutputTokens: 4_096 };

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

/** A summarizer that says it calls a model and counts how often it was asked to. */
function modelSummarizer(): Summarizer & { calls: number } {
  const summarizer = {
    name: 'model',
    usesModel: true,
    calls: 0,
    async summarize(): Promise<never> {
      summarizer.calls++;
      throw new Error('the emergency path called the model');
    },
  };
  return summarizer;
}

async function sessionOn(preset: keyof typeof PRESETS) {
  const summarizer = modelSummarizer();
  const cm = createContextManager({
    policy: { ...PRESETS[preset], model: 'gpt-4o' },
    summarizer,
    clock: clock(),
  });
  await cm.append('s', TAU.messages.map(asInput));
  const before = await cm.prepare('s', REQUEST);
  return { cm, summarizer, before };
}

describe('emergencyCompact: emergency compaction on demand', () => {
  for (const preset of Object.keys(PRESETS) as (keyof typeof PRESETS)[]) {
    it(`${preset}: runs its own emergency steps, never calls a model, and frees context`, async () => {
      const { cm, summarizer, before } = await sessionOn(preset);
      const { log } = await cm.history('s');
      const callsBefore = summarizer.calls;
      const { compacted, events } = await cm.emergencyCompact('s');
      expect(compacted).toBe(true);
      expect(summarizer.calls).toBe(callsBefore);
      const after = await cm.prepare('s', REQUEST);
      expect(after.stats.tokens.history).toBeLessThan(before.stats.tokens.history);
      // The log is the record: untouched.
      expect((await cm.history('s')).log).toEqual(log);

      const event = events.find((found) => found.type === 'emergency-compacted');
      const sequence = PRESETS[preset].emergency.sequence;
      expect(event).toMatchObject({ sessionId: 's', compacted: true });
      // Its own steps first; digitorn's truncate only when they freed nothing.
      expect(event?.type === 'emergency-compacted' && event.steps.slice(0, sequence.length)).toEqual(
        sequence,
      );
      expect(contextEventSchema.parse(event)).toEqual(event);
      const finished = events.filter((found) => found.type === 'compaction-finished');
      expect(finished.length).toBeGreaterThan(0);
      for (const compaction of finished) expect(compaction.reason).toBe(EMERGENCY_ON_DEMAND_REASON);
      expect(finished.some((compaction) => compaction.layer === 'emergency')).toBe(true);
      if (event?.type === 'emergency-compacted') {
        expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
        expect(event.messagesAfter).toBeLessThan(event.messagesBefore);
      }
    });
  }

  it('falls back to halving keep_recent when the policy has no steps (deepagents) or they free nothing (drop-to-fit on a request that fits)', async () => {
    for (const preset of ['deepagents', 'default'] as const) {
      const { cm } = await sessionOn(preset);
      const { events } = await cm.emergencyCompact('s');
      const event = events.find((found) => found.type === 'emergency-compacted');
      expect(event?.type === 'emergency-compacted' && event.steps.at(-1)).toBe(EMERGENCY_ON_DEMAND_FALLBACK);
      // Neither sets keep_recent in messages: half of 0, at least emergency.minKeepRecent (4).
      const prepared = await cm.prepare('s', REQUEST);
      const logged = prepared.messages.filter((message) => message.meta.userVisible !== false);
      expect(logged.length).toBeLessThanOrEqual(PRESETS[preset].emergency.minKeepRecent);
      expect(logged.length).toBeGreaterThan(0);
    }
  });

  it("steps that summarize do it extractively: tiancai's compact, cowagent's memory note", async () => {
    const summarizer = modelSummarizer();
    const tiancai = PRESETS.tiancai;
    const cm = createContextManager({
      // A keep window smaller than the history, so that compact has something to summarize.
      policy: { ...tiancai, model: 'gpt-4o', summarize: { ...tiancai.summarize, keepRecentTokens: 1_000 } },
      summarizer,
      clock: clock(),
    });
    await cm.append('s', TAU.messages.map(asInput));
    const { events } = await cm.emergencyCompact('s');
    expect(events.find((event) => event.type === 'emergency-compacted')).toMatchObject({
      steps: ['compact'],
      compacted: true,
    });
    const summarized = (await cm.history('s')).edits.find((edit) => edit.type === 'summarize');
    expect(summarized?.type === 'summarize' && summarized.summary.producer).toBe('extractive');
    expect(summarizer.calls).toBe(0);

    const { cm: cowagent, summarizer: cowSummarizer } = await sessionOn('cowagent');
    const calls = cowSummarizer.calls;
    const notesBefore = (await cowagent.memory.search('s', '')).length;
    await cowagent.emergencyCompact('s');
    expect(cowSummarizer.calls).toBe(calls);
    expect((await cowagent.memory.search('s', '')).length).toBe(notesBefore + 1);
  });

  it('digitorn: keep_recent 10 is halved to 5 (moved to a safe split point) and nothing else runs', async () => {
    const { cm } = await sessionOn('digitorn');
    const { events } = await cm.emergencyCompact('s');
    const event = events.find((found) => found.type === 'emergency-compacted');
    expect(event).toMatchObject({ steps: ['truncate'] });
    const prepared = await cm.prepare('s', REQUEST);
    const logged = prepared.messages.filter((message) => message.meta.userVisible !== false);
    expect(logged.length).toBeGreaterThanOrEqual(5);
    expect(logged.length).toBeLessThan(10);
    expect(logged.map((message) => message.seq)).toEqual(
      Array.from({ length: logged.length }, (_, i) => TAU.messages.length - logged.length + i),
    );
  });

  it('with nothing older than what it keeps, says so: no edit, compacted false, the event all the same', async () => {
    const summarizer = modelSummarizer();
    const cm = createContextManager({
      policy: { ...PRESETS.digitorn, model: 'gpt-4o' },
      summarizer,
      clock: clock(),
    });
    await cm.append('s', TAU.messages.slice(0, 2).map(asInput));
    const { compacted, events } = await cm.emergencyCompact('s');
    expect(compacted).toBe(false);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'emergency-compacted',
        steps: ['truncate'],
        compacted: false,
        messagesBefore: 2,
        messagesAfter: 2,
      }),
    ]);
    expect((await cm.history('s')).edits).toEqual([]);
    expect(summarizer.calls).toBe(0);
  });

  it('is not an overflow: a later overflow is still the first, and is retried', async () => {
    const { cm } = await sessionOn('digitorn');
    await cm.emergencyCompact('s');
    const overflow = new ModelCallError('maximum context length exceeded', {
      status: 400,
      providerCode: 'context_length_exceeded',
    });
    const recovered = await cm.recover('s', overflow);
    const overflowed = recovered.events.find(
      (event): event is Extract<ContextEvent, { type: 'context-overflowed' }> =>
        event.type === 'context-overflowed',
    );
    expect(overflowed?.attempt).toBe(1);
  });

  it('reaches the listeners, as every event does', async () => {
    const { cm } = await sessionOn('picoclaw');
    const heard: ContextEvent[] = [];
    cm.on((event) => heard.push(event));
    const { events } = await cm.emergencyCompact('s');
    expect(heard).toEqual(events);
  });
});
