import { describe, expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { callEventsIn, categoriesOf, compactionsIn, computeReplayMetrics } from './compute-replay-metrics.ts';
import { RequestMeasurer } from './measure-request.ts';
import type { ReplayedRequest } from './replay-types.ts';

const transcript = numbered([
  user('Please fix the failing build on main.'),
  callsTo(['c1', 'bash', '{"command":"npm run build"}']),
  result('c1', 'error: cannot find module src/a.ts'),
  assistant('Fixed.'),
  user('Now deploy it to staging please.'),
  assistant('Deployed.'),
]);

const request = (messageIndex: number, overrides: Partial<ReplayedRequest> = {}): ReplayedRequest => ({
  messageIndex,
  system: 'You are an agent.',
  messages: transcript.slice(0, messageIndex),
  tools: [],
  maxOutputTokens: 100,
  timeMs: messageIndex,
  summaryCalls: 0,
  ...overrides,
});

const finished = (layer: 'summarize' | 'clear'): ContextEvent => ({
  type: 'compaction-finished',
  sessionId: 's',
  at: 0,
  reason: 'context_pressure',
  layer,
  tokensBefore: 10,
  tokensAfter: 5,
  messagesBefore: 2,
  messagesAfter: 1,
  editIds: ['e1'],
});

describe('computeReplayMetrics', () => {
  const requests = [
    request(1),
    request(3, { edits: 2, summaryCalls: 1, events: [finished('summarize'), finished('clear')] }),
    request(5, { messages: [transcript[0], transcript[2], transcript[4]].filter((m) => m !== undefined) }),
  ];
  const replay = computeReplayMetrics(
    's.jsonl',
    'ctxkit:default',
    transcript,
    requests,
    { summary: '', pointers: [] },
    {
      contextWindow: 10_000,
      maxOutputTokens: 100,
    },
  );

  it('measures each call with the o200k counter and compares it with the previous one', () => {
    const measurer = new RequestMeasurer(createExactCounter('o200k'));
    const sizes = requests.map((entry) => measurer.measure(entry).total);
    expect(replay.calls.map((call) => call.inputTokens)).toEqual(sizes);
    expect(replay.calls[0]?.sharedPrefixTokens).toBe(0);
    expect(replay.calls[1]?.sharedPrefixTokens).toBe(sizes[0]);
    expect(replay.calls[1]?.pressure).toBeCloseTo((sizes[1] ?? 0) / 9_900, 3);
    expect(replay.calls[1]?.billedWithCache).toBeCloseTo(
      0.1 * (sizes[0] ?? 0) + 1.25 * ((sizes[1] ?? 0) - (sizes[0] ?? 0)),
      2,
    );
  });

  it('takes edits and summary calls as reported and counts compactions from events when not given', () => {
    expect(replay.calls[1]).toMatchObject({ edits: 2, summaryCalls: 1, compactions: 1 });
    expect(compactionsIn([finished('clear')])).toBe(0);
  });

  it('counts the orphan result of a view that lost its call', () => {
    expect(replay.calls.map((call) => call.orphans)).toEqual([0, 0, 1]);
    expect(replay.totals.orphans).toBe(1);
  });

  it('flags requests over the window and requests a system refused to make', () => {
    const small = computeReplayMetrics(
      's',
      'x',
      transcript,
      [request(1), request(3, { error: 'budget' })],
      { summary: '', pointers: [] },
      {
        contextWindow: 120,
        maxOutputTokens: 100,
      },
    );
    expect(small.calls.map((call) => call.overflow)).toEqual([true, true]);
    expect(small.totals.overflows).toBe(2);
  });

  it('totals the calls and takes p50/p99 of the time spent', () => {
    expect(replay.totals).toMatchObject({
      calls: 3,
      summaryCalls: 1,
      compactions: 1,
      timeMsP50: 3,
      timeMsP99: 5,
    });
    expect(replay.totals.billed).toBe(replay.calls.reduce((sum, call) => sum + call.billed, 0));
  });

  it('scores retention on the facts before the final call, in its view', () => {
    // Facts of messages 0–4: the first request, the command, its error, the second request.
    expect(replay.retention.total).toBe(4);
    expect(replay.retention.byKind.request).toEqual({ total: 2, kept: 2 });
    expect(replay.retention.byKind.command).toEqual({ total: 1, kept: 0 });
    expect(replay.retention.byKind.error).toEqual({ total: 1, kept: 1 });
    expect(replay.retention.lost?.map((fact) => fact.text)).toEqual(['npm run build']);
    expect(replay.retention.share).toBe(0.75);
  });

  it('splits each call by category, summing to its measured size', () => {
    const measurer = new RequestMeasurer(createExactCounter('o200k'));
    const first = measurer.measure(requests[0] as ReplayedRequest);
    // Without the system's own split: the system prompt as measured, the rest history.
    expect(replay.calls[0]?.categories).toEqual({
      system: first.systemTokens,
      tools: 0,
      summary: 0,
      history: first.total - first.systemTokens,
    });
    for (const call of replay.calls) {
      const { system = 0, tools = 0, summary = 0, history = 0 } = call.categories ?? {};
      expect(system + tools + summary + history).toBe(call.inputTokens);
    }
  });

  it('scales the system’s own split to the measured size', () => {
    const measured = { total: 1_000, systemTokens: 300, toolTokens: 0 } as Parameters<typeof categoriesOf>[0];
    expect(categoriesOf(measured, { system: 100, tools: 0, summary: 100, history: 300 })).toEqual({
      system: 200,
      tools: 0,
      summary: 200,
      history: 600,
    });
    const odd = categoriesOf(measured, { system: 1, tools: 1, summary: 1, history: 0 });
    expect(odd.system + odd.tools + odd.summary + odd.history).toBe(1_000);
    expect(categoriesOf(measured, { system: 0, tools: 0, summary: 0, history: 0 })).toEqual({
      system: 300,
      tools: 0,
      summary: 0,
      history: 700,
    });
  });

  it('keeps the compaction events that edited the view, and the thresholds the replayer reported', () => {
    expect(replay.calls[0]?.events).toBeUndefined();
    expect(replay.calls[1]?.events).toEqual([
      { layer: 'summarize', reason: 'context_pressure', tokensBefore: 10, tokensAfter: 5 },
      { layer: 'clear', reason: 'context_pressure', tokensBefore: 10, tokensAfter: 5 },
    ]);
    const noop = { ...finished('clear'), editIds: [] } as Extract<
      ContextEvent,
      { type: 'compaction-finished' }
    >;
    expect(callEventsIn([noop, { ...noop, error: 'boom' }])).toEqual([
      { layer: 'clear', reason: 'context_pressure', tokensBefore: 10, tokensAfter: 5, error: 'boom' },
    ]);
    expect(replay.thresholds).toBeUndefined();
    const withThresholds = computeReplayMetrics(
      's',
      'x',
      transcript,
      [request(1, { thresholds: { clearing: 5_000, summarize: 8_000 } })],
      { summary: '', pointers: [] },
      { contextWindow: 10_000, maxOutputTokens: 100 },
    );
    expect(withThresholds.thresholds).toEqual({ clearing: 5_000, summarize: 8_000 });
  });
});

describe('computeReplayMetrics: the Anthropic cache bill', () => {
  // A system prompt past the 1,024-token minimum, and a history that grows by a call each time.
  const system = 'You are a careful coding agent. Read before you write. '.repeat(150);
  const growing = [1, 3, 5].map((messageIndex) => request(messageIndex, { system }));
  const scored = (markings?: ('none' | 'end' | 'ctxkit')[]) =>
    computeReplayMetrics(
      's.jsonl',
      'ctxkit:default',
      transcript,
      growing,
      { summary: '', pointers: [] },
      {
        contextWindow: 10_000,
        maxOutputTokens: 100,
        ...(markings && { anthropicCache: { markings, model: 'claude-sonnet-4-5' } }),
      },
    ).totals;

  it('bills every token at list price without a breakpoint, and less where the cache reads', () => {
    const bills = scored(['none', 'end', 'ctxkit']).anthropicBills;
    const input = scored().inputTokens;
    // Rendered as Anthropic's body, the requests are about what the o200k measure counts.
    expect(bills?.none).toBeGreaterThan(0.9 * input);
    expect(bills?.none).toBeLessThan(1.2 * input);
    expect(bills?.end).toBeLessThan(bills?.none ?? 0);
    expect(bills?.ctxkit).toBeLessThanOrEqual(bills?.end ?? 0);
  });

  it('prices only the markings asked for, and none unless asked', () => {
    expect(Object.keys(scored(['end']).anthropicBills ?? {})).toEqual(['end']);
    expect(scored().anthropicBills).toBeUndefined();
  });
});
