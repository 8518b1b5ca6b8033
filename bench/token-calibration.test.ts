/**
 * The calibrated counter on real sessions from fixtures/corpus, fed
 * each request's exact o200k count as the provider's usage: after two anchors it estimates the requests
 * that follow (tool output and code, where the anchors were system prompt and prose) within a few
 * percent, and caches and tallies never serve a figure from before its multiplier moved.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../src/core/message.ts';
import {
  CalibratedTokenCounter,
  type CalibrationAnchor,
  ContextTokenTally,
  calibrationAnchor,
  createExactCounter,
  createHeuristicCounter,
  DEFAULT_MESSAGE_OVERHEAD_TOKENS,
  estimateMessagesTokens,
  MessageTokenCache,
  measureRequest,
  type TokenCounter,
} from '../src/core/tokens/index.ts';
import { corpusFiles, median, percentile, readCorpusSession, relativeError } from './token-bench-support.ts';

const SESSIONS = [
  'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl',
  'swe-agent__ctf_i_got_id_demo.jsonl',
  'tau-bench__gpt-4o-airline_task33_trial0.jsonl',
  'pi-mono__before-compaction.jsonl',
];

const o200k = createExactCounter('o200k');

interface Request {
  sent: Message[];
  exact: number;
  anchor: CalibrationAnchor;
  /** The full-path estimate of this request under a counter (system prompt and every message sent). */
  estimate(counter: TokenCounter): number;
}

/** Every model request of a session: the system prompt and the messages before each assistant message. */
function sessionRequests(file: string): Request[] {
  const { transcript } = readCorpusSession(file);
  const cache = new MessageTokenCache();
  const system = transcript.system;
  const systemTokens = (counter: TokenCounter) =>
    system.reduce((sum, piece) => sum + counter.count(piece) + DEFAULT_MESSAGE_OVERHEAD_TOKENS, 0);
  const estimate = (sent: Message[], counter: TokenCounter) =>
    systemTokens(counter) + estimateMessagesTokens(sent, counter, { cache }).total;
  const requests: Request[] = [];
  transcript.messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const sent = transcript.messages.slice(0, index);
    const exact = estimate(sent, o200k);
    const anchor = calibrationAnchor(measureRequest({ messages: sent, system, cache }), {
      inputTokens: exact,
    });
    requests.push({ sent, exact, anchor, estimate: (counter) => estimate(sent, counter) });
  });
  return requests;
}

/** Errors on the requests after the first `anchors`, of a counter fed those anchors and then frozen. */
function errorsAfter(requests: Request[], anchors: number): number[] {
  const counter = new CalibratedTokenCounter();
  for (const request of requests.slice(0, anchors))
    expect(counter.observe(request.anchor).accepted).toBe(true);
  return requests.slice(anchors).map((request) => relativeError(request.estimate(counter), request.exact));
}

describe('calibration on corpus sessions', () => {
  it.each(SESSIONS)('estimates later requests within a few percent after 2 anchors: %s', (file) => {
    const requests = sessionRequests(file);
    const errors = errorsAfter(requests, 2);
    const chars4 = createHeuristicCounter(4);
    const charsErrors = requests
      .slice(2)
      .map((request) => relativeError(request.estimate(chars4), request.exact));
    expect(errors.length).toBeGreaterThan(5);
    expect(median(errors)).toBeLessThan(0.05);
    expect(median(errors)).toBeLessThan(median(charsErrors));
  });

  it('meets the goal over the whole corpus: at most 3 percent median error after 2 anchors, p90 under 5', () => {
    const errors: number[] = [];
    for (const file of corpusFiles()) {
      const requests = sessionRequests(file);
      if (requests.length > 2) errors.push(...errorsAfter(requests, 2));
    }
    expect(errors.length).toBeGreaterThan(1_000);
    expect(median(errors)).toBeLessThanOrEqual(0.03);
    expect(percentile(errors, 0.9)).toBeLessThan(0.05);
  });

  it('never serves a figure from before the multiplier moved (cache and tally learning every request)', () => {
    const { transcript } = readCorpusSession('swe-agent__ctf_i_got_id_demo.jsonl');
    const cache = new MessageTokenCache();
    const counter = new CalibratedTokenCounter();
    const tally = new ContextTokenTally(counter, { cache });
    const multipliers = new Set<number>();
    for (const message of transcript.messages) {
      if (message.role === 'assistant' && tally.length > 0) {
        const exact = estimateMessagesTokens(tally.messages, o200k).total;
        expect(counter.observe(calibrationAnchor(tally.measure(), { inputTokens: exact })).accepted).toBe(
          true,
        );
        multipliers.add(counter.tokensPerUnit);
        // Recomputed from scratch, no cache: what the cached paths must agree with at the new multiplier.
        const fresh = estimateMessagesTokens(tally.messages, counter).total;
        expect(tally.total()).toBe(fresh);
        expect(estimateMessagesTokens(tally.messages, counter, { cache }).total).toBe(fresh);
      }
      tally.append(message);
    }
    expect(multipliers.size).toBeGreaterThan(5);
    expect(tally.measure()).toEqual(measureRequest({ messages: tally.messages }));
  });
});
