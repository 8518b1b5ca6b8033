import type { CallEvent, CallMetrics, SessionReplay } from '../replay-types.ts';

export interface FixtureOptions {
  session?: string;
  system?: string;
  calls?: number;
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Events by call number. */
  events?: Record<number, CallEvent[]>;
  thresholds?: SessionReplay['thresholds'];
  /** Leave `categories` out, as a replay computed before they existed. */
  withoutCategories?: boolean;
}

/**
 * A synthetic replay for the report's tests: history grows by 300 tokens a call and falls back after
 * each event, over a 1,000-token system prompt and a 200-token summary once one was made.
 */
export function fixtureReplay(options: FixtureOptions = {}): SessionReplay {
  const count = options.calls ?? 12;
  const contextWindow = options.contextWindow ?? 8_000;
  const maxOutputTokens = options.maxOutputTokens ?? 1_000;
  const calls: CallMetrics[] = [];
  let history = 0;
  let summary = 0;
  for (let call = 1; call <= count; call++) {
    const events = options.events?.[call] ?? [];
    history = events.length > 0 ? 500 : history + 300;
    if (events.some((event) => event.layer === 'summarize')) summary = 200;
    const categories = { system: 1_000, tools: 0, summary, history };
    const inputTokens = categories.system + categories.summary + categories.history;
    calls.push({
      call,
      messageIndex: call * 2 - 1,
      inputTokens,
      pressure: inputTokens / (contextWindow - maxOutputTokens),
      sharedPrefixTokens: call === 1 ? 0 : 1_000,
      billed: inputTokens,
      billedWithCache: inputTokens - 900,
      overflow: inputTokens + maxOutputTokens > contextWindow,
      orphans: 0,
      edits: events.length,
      compactions: events.filter((event) => event.layer !== 'clear').length,
      summaryCalls: 0,
      timeMs: 1 + (call % 5),
      ...(options.withoutCategories ? {} : { categories }),
      ...(events.length > 0 ? { events } : {}),
    });
  }
  const sum = (pick: (call: CallMetrics) => number) => calls.reduce((total, call) => total + pick(call), 0);
  return {
    session: options.session ?? 'fixture.jsonl',
    system: options.system ?? 'ctxkit:default',
    contextWindow,
    maxOutputTokens,
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    calls,
    totals: {
      calls: calls.length,
      inputTokens: sum((call) => call.inputTokens),
      billed: sum((call) => call.billed),
      billedWithCache: sum((call) => call.billedWithCache),
      workingSetNeeded: 0,
      workingSetSeen: 0,
      readBacks: 0,
      oversizedReadBacks: 0,
      readBackBill: 0,
      effectiveBill: sum((call) => call.billedWithCache),
      recoveryReadBacks: 0,
      recoveryReRuns: 0,
      recoveryCost: 0,
      recoveryBill: sum((call) => call.billedWithCache),
      overflows: sum((call) => (call.overflow ? 1 : 0)),
      orphans: sum((call) => call.orphans),
      compactions: sum((call) => call.compactions),
      summaryCalls: 0,
      timeMsP50: 3,
      timeMsP99: 5,
    },
    retention: {
      total: 4,
      kept: 3,
      share: 0.75,
      byPlace: { view: 2, summary: 1, pointer: 0, lost: 1 },
      byKind: {
        path: { total: 2, kept: 2 },
        command: { total: 1, kept: 0 },
        error: { total: 0, kept: 0 },
        request: { total: 1, kept: 1 },
      },
      lost: [{ kind: 'command', text: 'npm run build', messageIndex: 3 }],
    },
  };
}

export const SUMMARY_EVENT: CallEvent = {
  layer: 'summarize',
  reason: 'context_pressure',
  tokensBefore: 4_200,
  tokensAfter: 500,
};

export const CLEAR_EVENT: CallEvent = {
  layer: 'clear',
  reason: 'context_pressure',
  tokensBefore: 3_900,
  tokensAfter: 2_100,
};
