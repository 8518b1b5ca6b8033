import {
  DEFAULT_PRESSURE_MEASURE,
  measurePressure,
  type PressureMeasure,
} from '../core/budget/pressure-measure.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { anthropicCacheBillOfReplay, type CacheMarking } from './anthropic-cache-bill.ts';
import { billCall } from './bill.ts';
import { extractFacts } from './extract-facts.ts';
import { locateFacts, requestText } from './locate-facts.ts';
import { type MeasuredRequest, RequestMeasurer } from './measure-request.ts';
import { percentile, round } from './percentile.ts';
import { NO_RECOVERY, RecoveryPricer } from './recovery-bill.ts';
import {
  type CachePricing,
  type CallEvent,
  type CallMetrics,
  DEFAULT_CACHE_PRICING,
  type FinalMemory,
  type ReplayedRequest,
  type SessionReplay,
  type TokenCategories,
} from './replay-types.ts';
import { sharedPrefixTokens } from './shared-prefix.ts';
import { summarizeRetention } from './summarize-retention.ts';
import {
  callCoverage,
  carriedText,
  DEFAULT_READ_BACK_PRICING,
  messageText,
  type ReadBackPricing,
  readBackCost,
  readBackTokens,
  spokenTexts,
  workingSetNeeds,
} from './working-set.ts';

export interface ReplayMetricsOptions {
  contextWindow: number;
  /** The session's output reserve (each request also carries its own). */
  maxOutputTokens: number;
  /** Default {@link DEFAULT_CACHE_PRICING}. */
  pricing?: CachePricing;
  /** Default: the exact o200k counter, the same for every system so their requests compare. */
  counter?: TokenCounter;
  /**
   * What each call's pressure divides by what (a ctxkit policy's `budget.pressureOf`, so the replay shows
   * pressure as that preset's /context would). Default `input/usable`, the one measure every system
   * (ctxkit presets and peers alike) can be compared on.
   */
  pressureOf?: PressureMeasure;
  /**
   * What a read-back round trip costs (the effective bill and the recovery bill). Default
   * {@link DEFAULT_READ_BACK_PRICING}.
   */
  readBack?: ReadBackPricing;
  /**
   * Anthropic's prompt cache, priced by its rules (anthropic-cache-bill.ts), for each marking listed:
   * `none` (no breakpoint: every token at list price), `end` (one at each request's end, as agents
   * commonly mark) and `ctxkit` (what ctxkit's Anthropic client places). Unset: not priced (each request
   * is rendered as an Anthropic body to price it). `model` chooses the minimum cacheable prefix.
   */
  anthropicCache?: { markings: readonly CacheMarking[]; model?: string };
}

/** Layers whose edits rewrite the conversation's prefix: what "a compaction" means in the totals. */
export const COMPACTING_LAYERS: ReadonlySet<string> = new Set([
  'summarize',
  'trim',
  'drop',
  'compress-text',
  'emergency',
  'manual',
]);

export function compactionsIn(events: readonly ContextEvent[] | undefined): number {
  let count = 0;
  for (const event of events ?? []) {
    if (
      event.type === 'compaction-finished' &&
      event.editIds.length > 0 &&
      COMPACTING_LAYERS.has(event.layer)
    )
      count++;
  }
  return count;
}

/** The edits behind a call: `compaction-finished` events that committed edits (or failed), in order. */
export function callEventsIn(events: readonly ContextEvent[] | undefined): CallEvent[] {
  const found: CallEvent[] = [];
  for (const event of events ?? []) {
    if (event.type !== 'compaction-finished') continue;
    if (event.editIds.length === 0 && event.error === undefined) continue;
    found.push({
      layer: event.layer,
      reason: event.reason,
      tokensBefore: event.tokensBefore,
      tokensAfter: event.tokensAfter,
      ...(event.error !== undefined ? { error: event.error } : {}),
    });
  }
  return found;
}

/**
 * The measured request by category, summing to its total. With the system's own split (ctxkit's), that
 * split scaled to the total (largest remainders); without, the system prompt and tool definitions as
 * measured and the rest history (a peer's summary travels in its messages).
 */
export function categoriesOf(measured: MeasuredRequest, own: TokenCategories | undefined): TokenCategories {
  const total = measured.total;
  const ownTotal = own ? own.system + own.tools + own.summary + own.history : 0;
  if (!own || ownTotal <= 0) {
    const system = Math.min(measured.systemTokens, total);
    const tools = Math.min(measured.toolTokens, total - system);
    return { system, tools, summary: 0, history: total - system - tools };
  }
  const keys = ['system', 'tools', 'summary', 'history'] as const;
  const exact = keys.map((key) => (Math.max(0, own[key]) * total) / ownTotal);
  const floors = exact.map(Math.floor);
  let left = total - floors.reduce((sum, value) => sum + value, 0);
  const byRemainder = keys
    .map((_, index) => index)
    .sort((a, b) => {
      const ra = (exact[a] ?? 0) - (floors[a] ?? 0);
      const rb = (exact[b] ?? 0) - (floors[b] ?? 0);
      return rb - ra || a - b;
    });
  for (const index of byRemainder) {
    if (left <= 0) break;
    floors[index] = (floors[index] ?? 0) + 1;
    left--;
  }
  return { system: floors[0] ?? 0, tools: floors[1] ?? 0, summary: floors[2] ?? 0, history: floors[3] ?? 0 };
}

let defaultCounter: TokenCounter | undefined;

/**
 * Scores one replay: per call the exact size of the request, its pressure, the prefix it shares with
 * the previous request and what that costs with and without a prompt cache, overflow and tool-pairing
 * violations; per session the totals and the retention of the session's facts at the end.
 *
 * Retention looks at the facts of the messages the final call could have seen (those before the
 * assistant message it produced), located in the final request, the summary, or behind a pointer.
 */
export function computeReplayMetrics(
  sessionName: string,
  systemName: string,
  transcriptMessages: readonly Message[],
  requests: readonly ReplayedRequest[],
  finalMemory: FinalMemory,
  options: ReplayMetricsOptions,
): SessionReplay {
  const pricing = options.pricing ?? DEFAULT_CACHE_PRICING;
  defaultCounter ??= createExactCounter('o200k');
  const measurer = new RequestMeasurer(options.counter ?? defaultCounter);
  const calls: CallMetrics[] = [];
  let previous: MeasuredRequest | undefined;
  // What the recorded agent used at each call that only an earlier result (outside the latest batch) told
  // it: the working set (see working-set.ts). The first request's system prompt is the session's own.
  const needs = workingSetNeeds(requests[0]?.system ?? '', transcriptMessages);
  const spoken = spokenTexts(transcriptMessages);
  const readBackPricing = options.readBack ?? DEFAULT_READ_BACK_PRICING;
  const counter = options.counter ?? defaultCounter;
  const contentTokens = new Map<number, number>();
  const tokensOfResult = (index: number): number => {
    let tokens = contentTokens.get(index);
    if (tokens === undefined) {
      const message = transcriptMessages[index];
      tokens = message ? counter.count(messageText(message)) : 0;
      contentTokens.set(index, tokens);
    }
    return tokens;
  };
  const recovery = new RecoveryPricer(
    transcriptMessages,
    finalMemory.readable ?? [],
    counter,
    readBackPricing,
  );
  requests.forEach((request, index) => {
    const measured = measurer.measure(request);
    const shared = sharedPrefixTokens(previous, measured);
    previous = measured;
    const inputTokens = measured.total;
    const pressure = measurePressure(options.pressureOf ?? DEFAULT_PRESSURE_MEASURE, {
      contextWindow: options.contextWindow,
      maxOutputTokens: request.maxOutputTokens,
      system: measured.systemTokens,
      toolDefinitions: measured.toolTokens,
      summary: 0,
      history: inputTokens - measured.systemTokens - measured.toolTokens,
    });
    const bill = billCall(inputTokens, shared, pricing);
    const events = callEventsIn(request.events);
    const coverage = callCoverage(needs.get(request.messageIndex), carriedText(request, spoken));
    let readBackBill = 0;
    let oversizedReadBacks = 0;
    // The room a read-back's answer has beside the request: what the window leaves after the request,
    // the reply's reserve and the read-back call.
    const room = options.contextWindow - request.maxOutputTokens - inputTokens - readBackPricing.callTokens;
    for (const result of coverage.readBacks) {
      const content = tokensOfResult(result);
      readBackBill += readBackCost(inputTokens, content, readBackPricing, room);
      // One that cannot bring in even a useful slice cannot be made: the window is full.
      if (readBackTokens(content, readBackPricing, room) < Math.min(content, readBackPricing.minUsefulTokens))
        oversizedReadBacks++;
    }
    const recovered =
      coverage.missing.length > 0
        ? recovery.price(
            {
              messageIndex: request.messageIndex,
              text: () => requestText(request),
              inputTokens,
              contextWindow: options.contextWindow,
              maxOutputTokens: request.maxOutputTokens,
            },
            coverage.missing,
          )
        : NO_RECOVERY;
    calls.push({
      call: index + 1,
      messageIndex: request.messageIndex,
      inputTokens,
      pressure: Number.isFinite(pressure) ? round(pressure, 4) : pressure,
      sharedPrefixTokens: shared,
      billed: bill.billed,
      billedWithCache: round(bill.billedWithCache, 2),
      overflow: request.error !== undefined || inputTokens + request.maxOutputTokens > options.contextWindow,
      orphans: findPairingViolations(request.messages).length,
      edits: request.edits ?? 0,
      compactions: request.compactions ?? compactionsIn(request.events),
      summaryCalls: request.summaryCalls,
      timeMs: round(request.timeMs),
      categories: categoriesOf(measured, request.categories),
      workingSet: { needed: coverage.needed, seen: coverage.seen, readBacks: coverage.readBacks.length },
      readBackBill: round(readBackBill, 2),
      oversizedReadBacks,
      recovery: { ...recovered, cost: round(recovered.cost, 2) },
      ...(events.length > 0 ? { events } : {}),
    });
  });

  const final = requests.at(-1);
  const facts = final ? extractFacts(transcriptMessages.slice(0, final.messageIndex)) : [];
  const retention = summarizeRetention(locateFacts(facts, final, finalMemory));
  const sum = (pick: (call: CallMetrics) => number) => calls.reduce((total, call) => total + pick(call), 0);
  const times = calls.map((call) => call.timeMs);
  const thresholds = requests.find((request) => request.thresholds !== undefined)?.thresholds;
  return {
    session: sessionName,
    system: systemName,
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
    ...(thresholds ? { thresholds: { ...thresholds } } : {}),
    calls,
    totals: {
      calls: calls.length,
      inputTokens: sum((call) => call.inputTokens),
      billed: sum((call) => call.billed),
      billedWithCache: round(
        sum((call) => call.billedWithCache),
        2,
      ),
      workingSetNeeded: sum((call) => call.workingSet?.needed ?? 0),
      workingSetSeen: sum((call) => call.workingSet?.seen ?? 0),
      readBacks: sum((call) => call.workingSet?.readBacks ?? 0),
      oversizedReadBacks: sum((call) => call.oversizedReadBacks ?? 0),
      readBackBill: round(
        sum((call) => call.readBackBill ?? 0),
        2,
      ),
      effectiveBill: round(
        sum((call) => call.billedWithCache + (call.readBackBill ?? 0)),
        2,
      ),
      recoveryReadBacks: sum((call) => call.recovery?.readBacks ?? 0),
      recoveryReRuns: sum((call) => call.recovery?.reRuns ?? 0),
      recoveryCost: round(
        sum((call) => call.recovery?.cost ?? 0),
        2,
      ),
      recoveryBill: round(
        sum((call) => call.billedWithCache + (call.recovery?.cost ?? 0)),
        2,
      ),
      ...(options.anthropicCache && {
        anthropicBills: anthropicBills(requests, options.anthropicCache, counter),
      }),
      overflows: sum((call) => (call.overflow ? 1 : 0)),
      orphans: sum((call) => call.orphans),
      compactions: sum((call) => call.compactions),
      summaryCalls: sum((call) => call.summaryCalls),
      timeMsP50: percentile(times, 0.5),
      timeMsP99: percentile(times, 0.99),
    },
    retention,
  };
}

/** The session's Anthropic cache bill under each marking asked for, in list-price input tokens. */
function anthropicBills(
  requests: readonly ReplayedRequest[],
  asked: NonNullable<ReplayMetricsOptions['anthropicCache']>,
  counter: TokenCounter,
): Partial<Record<CacheMarking, number>> {
  const bills: Partial<Record<CacheMarking, number>> = {};
  for (const marking of asked.markings) {
    const bill = anthropicCacheBillOfReplay(requests, {
      marking,
      countTokens: (json) => counter.count(json),
      ...(asked.model !== undefined && { model: asked.model }),
    });
    bills[marking] = round(bill.totals.billed, 2);
  }
  return bills;
}
