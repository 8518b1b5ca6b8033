import { describe, expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { HOSTILE_IDS } from './blob-store.conformance.ts';
import { TRACE_PAGE_SIZE, type TraceStore } from './trace-store.ts';

export interface TraceStoreHarness {
  store: TraceStore;
  /** Another store over the same storage, as a restarted process would open it (durable backends). */
  reopen?: () => Promise<TraceStore>;
  /** Overwrites the stored JSON of the session's first event behind the store's back. */
  tamper?: (sessionId: string, json: string) => Promise<void>;
  cleanup?: () => Promise<void>;
}

const T0 = 1_750_000_000_000;

/** One of each event type, in the session given. */
export function sampleEvents(sessionId: string, at = T0): ContextEvent[] {
  return [
    { type: 'session-restored', sessionId, at, messages: 12, edits: 2 },
    {
      type: 'model-usage',
      sessionId,
      at: at + 1,
      usage: { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 1000 },
      model: 'gpt-4o',
    },
    { type: 'tool-output-normalized', sessionId, at: at + 2, seq: 3, charsBefore: 9000, charsAfter: 2000 },
    {
      type: 'tool-output-spilled',
      sessionId,
      at: at + 3,
      seq: 3,
      blobRef: 'large_tool_results/3-call_1',
      sha256: 'a'.repeat(64),
      bytes: 90_000,
    },
    {
      type: 'compaction-started',
      sessionId,
      at: at + 4,
      reason: 'context_pressure',
      layer: 'summarize',
      tokensBefore: 90_000,
      messagesBefore: 40,
    },
    {
      type: 'compaction-finished',
      sessionId,
      at: at + 5,
      reason: 'context_pressure',
      layer: 'summarize',
      tokensBefore: 90_000,
      tokensAfter: 20_000,
      messagesBefore: 40,
      messagesAfter: 9,
      editIds: ['e1', 'e2'],
    },
    {
      type: 'compaction-finished',
      sessionId,
      at: at + 6,
      reason: 'hook',
      layer: 'drop',
      tokensBefore: 1,
      tokensAfter: 1,
      messagesBefore: 1,
      messagesAfter: 1,
      editIds: [],
      error: 'summarizer failed: "timeout"\nretrying',
    },
    { type: 'tool-results-cleared', sessionId, at: at + 7, count: 4, tokensFreed: 12_000 },
    {
      type: 'index-unavailable',
      sessionId,
      at: at + 7,
      index: 'memory',
      code: 'invalid_memory_path',
      message: 'MEMORY.md: is a symbolic link',
    },
    {
      type: 'budget-checked',
      sessionId,
      at: at + 7,
      contextWindow: 32_768,
      maxOutputTokens: 8_192,
      system: 1_200,
      toolDefinitions: 800,
      summary: 0,
      history: 23_000,
      over: true,
    },
    {
      type: 'context-overflowed',
      sessionId,
      at: at + 8,
      attempt: 1,
      error: 'maximum context length is 128000 tokens',
      retry: true,
    },
    {
      type: 'emergency-compacted',
      sessionId,
      at: at + 8,
      steps: ['truncate'],
      compacted: true,
      tokensBefore: 40_000,
      tokensAfter: 6_000,
      messagesBefore: 30,
      messagesAfter: 6,
    },
    { type: 'history-diverged', sessionId, at: at + 9, keptThroughSeq: 7, hidden: 2, added: 1 },
    { type: 'summary-scheduled', sessionId, at: at + 10, throughSeq: 20 },
    { type: 'summary-applied', sessionId, at: at + 11, throughSeq: 20, tokens: 900 },
    {
      type: 'summary-generated',
      sessionId,
      at: at + 12,
      reason: 'context_pressure',
      layer: 'summarize',
      summarizer: 'model',
      model: 'gpt-4o-mini',
      inputTokens: 12_000,
      outputTokens: 700,
      tokenSource: 'provider',
      usage: { inputTokens: 12_000, outputTokens: 700 },
      durationMs: 840,
      throughSeq: 20,
    },
    {
      type: 'tool-result-hidden',
      sessionId,
      at: at + 13,
      seq: 9,
      callId: 'call_7',
      reason: 'already-answered',
    },
  ];
}

/** One suite every TraceStore must pass: register it with a factory for a fresh, empty store. */
export function describeTraceStoreConformance(
  name: string,
  makeHarness: () => Promise<TraceStoreHarness>,
): void {
  describe(`TraceStore conformance: ${name}`, () => {
    const withStore = (test: (harness: TraceStoreHarness) => Promise<void>) => async () => {
      const harness = await makeHarness();
      try {
        await test(harness);
      } finally {
        await harness.store.close();
        await harness.cleanup?.();
      }
    };

    it(
      'keeps every event type exactly, in append order, per session',
      withStore(async ({ store }) => {
        const a = sampleEvents('a');
        const b = sampleEvents('b', T0 + 100);
        for (let i = 0; i < a.length; i++) {
          await store.append(a[i] as ContextEvent);
          await store.append(b[i] as ContextEvent);
        }
        expect(await store.list('a')).toEqual(a);
        expect(await store.list('b')).toEqual(b);
        expect(await store.list('c')).toEqual([]);
        expect(await store.count('a')).toBe(a.length);
      }),
    );

    it(
      'keeps any session id apart: hostile ids, case and normal-form twins',
      withStore(async ({ store }) => {
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          await store.appendMany(sampleEvents(sessionId, T0 + index));
        }
        for (const [index, sessionId] of HOSTILE_IDS.entries()) {
          expect(await store.list(sessionId), JSON.stringify(sessionId.slice(0, 40))).toEqual(
            sampleEvents(sessionId, T0 + index),
          );
        }
        expect(await store.deleteSession('Alice')).toBe(sampleEvents('Alice').length);
        expect(await store.count('alice')).toBe(sampleEvents('alice').length);
      }),
    );

    it(
      'filters by type and time, and limits',
      withStore(async ({ store }) => {
        await store.appendMany(sampleEvents('s'));
        const usage = await store.list('s', { types: ['model-usage'] });
        expect(usage.map((event) => event.type)).toEqual(['model-usage']);
        expect(
          (await store.list('s', { types: ['compaction-started', 'compaction-finished'] })).map(
            (event) => event.at - T0,
          ),
        ).toEqual([4, 5, 6]);
        expect((await store.list('s', { since: T0 + 9 })).map((event) => event.at - T0)).toEqual([
          9, 10, 11, 12, 13,
        ]);
        expect(
          (await store.list('s', { since: T0 + 2, until: T0 + 4 })).map((event) => event.at - T0),
        ).toEqual([2, 3]);
        expect((await store.list('s', { limit: 2 })).map((event) => event.at - T0)).toEqual([0, 1]);
        expect(await store.list('s', { types: [] })).toEqual([]);
      }),
    );

    it(
      'exports JSONL: one appended event per line, in append order, one session or all',
      withStore(async ({ store }) => {
        const a = sampleEvents('a');
        const b = sampleEvents('b');
        await store.appendMany(a.slice(0, 2));
        await store.appendMany(b.slice(0, 1));
        await store.append(a[2] as ContextEvent);
        const one = await store.exportJsonl('a');
        expect(one).toBe(
          `${a
            .slice(0, 3)
            .map((event) => JSON.stringify(event))
            .join('\n')}\n`,
        );
        const all = (await store.exportJsonl()).split('\n');
        expect(all.at(-1)).toBe('');
        expect(all.slice(0, -1).map((line) => JSON.parse(line))).toEqual([a[0], a[1], b[0], a[2]]);
        expect(await store.exportJsonl('a', { types: ['model-usage'] })).toBe(`${JSON.stringify(a[1])}\n`);
        expect(await store.exportJsonl('nobody')).toBe('');
        let streamed = '';
        for await (const line of store.streamJsonl('a')) streamed += line;
        expect(streamed).toBe(one);
      }),
    );

    it(
      'pages through traces larger than a page without losing or repeating an event',
      withStore(async ({ store }) => {
        const total = TRACE_PAGE_SIZE * 2 + 7;
        const events: ContextEvent[] = Array.from({ length: total }, (_, i) => ({
          type: 'model-usage',
          sessionId: i % 2 === 0 ? 'big' : 'other',
          at: T0 + i,
          usage: { inputTokens: i, outputTokens: 1 },
        }));
        await store.appendMany(events);
        const big = await store.list('big');
        expect(big.map((event) => event.at - T0)).toEqual(
          events.filter((_, i) => i % 2 === 0).map((_, i) => i * 2),
        );
        expect((await store.exportJsonl()).split('\n')).toHaveLength(total + 1);
        expect(await store.list('big', { limit: TRACE_PAGE_SIZE + 1 })).toHaveLength(TRACE_PAGE_SIZE + 1);
      }),
    );

    it(
      "deletes one session's events, leaving the others",
      withStore(async ({ store }) => {
        const perSession = sampleEvents('a').length;
        await store.appendMany([...sampleEvents('a'), ...sampleEvents('b')]);
        expect(await store.deleteSession('a')).toBe(perSession);
        expect(await store.deleteSession('a')).toBe(0);
        expect(await store.list('a')).toEqual([]);
        expect(await store.list('b')).toHaveLength(perSession);
        await store.appendMany(sampleEvents('a'));
        expect(
          (await store.exportJsonl())
            .split('\n')
            .slice(0, -1)
            .map((line) => JSON.parse(line).sessionId),
        ).toEqual([...Array(perSession).fill('b'), ...Array(perSession).fill('a')]);
      }),
    );

    it(
      'refuses what is not an event, writing nothing of the batch',
      withStore(async ({ store }) => {
        const bad = [
          { type: 'no-such-event', sessionId: 's', at: 1 },
          { type: 'model-usage', sessionId: 's', at: 1 },
          { type: 'model-usage', sessionId: '', at: 1, usage: { inputTokens: 1, outputTokens: 1 } },
          { type: 'model-usage', sessionId: 'a\u0000b', at: 1, usage: { inputTokens: 1, outputTokens: 1 } },
          { type: 'model-usage', sessionId: 's', at: Number.NaN, usage: { inputTokens: 1, outputTokens: 1 } },
          { type: 'summary-scheduled', sessionId: 's', at: 1, throughSeq: Number.POSITIVE_INFINITY },
        ];
        for (const event of bad) {
          await expect(
            store.append(event as unknown as ContextEvent),
            JSON.stringify(event),
          ).rejects.toMatchObject({
            code: 'invalid_trace_event',
          });
        }
        const [good] = sampleEvents('s');
        await expect(
          store.appendMany([good as ContextEvent, bad[0] as unknown as ContextEvent]),
        ).rejects.toMatchObject({
          code: 'invalid_trace_event',
        });
        expect(await store.count('s')).toBe(0);
        await expect(store.list('')).rejects.toMatchObject({ code: 'invalid_trace_event' });
      }),
    );

    it(
      'keeps fields a newer ctxkit adds, and is not changed by callers mutating what they appended or read',
      withStore(async ({ store }) => {
        const event = {
          type: 'model-usage',
          sessionId: 's',
          at: T0,
          usage: { inputTokens: 5, outputTokens: 6, futureTokens: 7 },
          provider: 'future',
        } as unknown as ContextEvent;
        await store.append(event);
        (event as { at: number }).at = 0;
        const [read] = await store.list('s');
        expect(read).toMatchObject({ at: T0, provider: 'future', usage: { futureTokens: 7 } });
        if (read) read.at = -1;
        expect((await store.list('s'))[0]?.at).toBe(T0);
      }),
    );

    it('survives a restart', async () => {
      const harness = await makeHarness();
      try {
        if (!harness.reopen) return;
        await harness.store.appendMany(sampleEvents('s'));
        await harness.store.close();
        const reopened = await harness.reopen();
        try {
          expect(await reopened.list('s')).toEqual(sampleEvents('s'));
          await reopened.append({ type: 'summary-scheduled', sessionId: 's', at: T0 + 99, throughSeq: 1 });
          expect((await reopened.list('s')).at(-1)?.at).toBe(T0 + 99);
        } finally {
          await reopened.close();
        }
      } finally {
        await harness.store.close();
        await harness.cleanup?.();
      }
    });

    it('refuses a stored row that is not an event, by where it is', async () => {
      const harness = await makeHarness();
      try {
        if (!harness.tamper) return;
        await harness.store.appendMany(sampleEvents('s'));
        await harness.tamper('s', '{"type":"model-usage"}');
        await expect(harness.store.list('s')).rejects.toMatchObject({ code: 'stored_data_invalid' });
        await expect(harness.store.exportJsonl('s')).rejects.toMatchObject({ code: 'stored_data_invalid' });
      } finally {
        await harness.store.close();
        await harness.cleanup?.();
      }
    });

    it(
      'refuses use after close',
      withStore(async ({ store }) => {
        await store.close();
        await expect(store.append(sampleEvents('s')[0] as ContextEvent)).rejects.toMatchObject({
          code: 'store_closed',
        });
        await expect(store.list('s')).rejects.toMatchObject({ code: 'store_closed' });
      }),
    );
  });
}
