import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { computeReplayMetrics } from './compute-replay-metrics.ts';
import { greedyCover, readBackAnswers } from './recovery-bill.ts';
import type { FinalMemory, ReplayedRequest } from './replay-types.ts';
import { DEFAULT_READ_BACK_PRICING } from './working-set.ts';

const counter = createExactCounter('o200k');
const { readMultiplier, writeMultiplier, callTokens, outputMultiplier, outputTokens } =
  DEFAULT_READ_BACK_PRICING;
/** One round trip bringing `answer` in beside a request of `input` tokens, by hand. */
const roundTrip = (input: number, answer: string) =>
  readMultiplier * input +
  writeMultiplier * (callTokens + counter.count(answer)) +
  outputMultiplier * outputTokens;

/** Thirty lines of grep output; line 12 names the function the agent goes on to edit. */
const GREP = Array.from({ length: 30 }, (_, line) =>
  line === 11 ? 'parser.py:12: def parse_header_line(raw):' : `parser.py:${line + 1}: pass`,
).join('\n');

const window = { contextWindow: 100_000, maxOutputTokens: 1_000 };

/** The request of the last call: the session before it, with `replace` standing in for some messages. */
function lastRequest(session: Message[], replace: Record<number, string>): ReplayedRequest {
  const last = session.length - 1;
  return {
    messageIndex: last,
    system: 'You are an agent.',
    messages: session.slice(0, last).map((message, index) => {
      const stand = replace[index];
      if (stand === undefined) return message;
      const part = message.parts[0];
      if (part?.type !== 'tool-result') throw new Error('replace results only');
      return { ...message, parts: [{ ...part, content: stand }] };
    }),
    tools: [],
    maxOutputTokens: window.maxOutputTokens,
    timeMs: 0,
    summaryCalls: 0,
  };
}

const score = (session: Message[], request: ReplayedRequest, memory: Partial<FinalMemory> = {}) =>
  computeReplayMetrics('s', 'x', session, [request], { summary: '', pointers: [], ...memory }, window);

describe('the recovery bill', () => {
  // The agent greps, lists, then edits what the grep found: the grep's result is older than the latest batch.
  const session = numbered([
    user('Fix the header parsing.'),
    callsTo(['c1', 'bash', '{"cmd":"grep -n def parser.py"}']),
    result('c1', GREP),
    callsTo(['c2', 'bash', '{"cmd":"ls"}']),
    result('c2', 'ok'),
    assistant('I will edit parse_header_line now.'),
  ]);

  it('charges nothing when the request holds what the agent goes on to use', () => {
    const replay = score(session, lastRequest(session, {}));
    expect(replay.calls[0]?.workingSet).toEqual({ needed: 1, seen: 1, readBacks: 0 });
    expect(replay.calls[0]?.recovery).toEqual({
      readBacks: 0,
      reRuns: 0,
      readBackTokens: 0,
      reRunTokens: 0,
      cost: 0,
    });
    expect(replay.totals.recoveryBill).toBe(replay.totals.billedWithCache);
  });

  it('reads a pointed-to blob back as the read tool answers a search for what is needed', () => {
    const ref = 'large_tool_results/r2';
    const request = lastRequest(session, {
      2: `[bash output, ~300 tokens, offloaded: parser.py:1: pass · read_offloaded("${ref}")]`,
    });
    const replay = score(session, request, { readable: [{ ref, content: GREP }] });
    // read_offloaded({ref, search: "parse_header_line"}): the match with 2 lines of context each side.
    const answer = [
      `[${ref}: 1 of 30 lines hold "parse_header_line"; shown with 2 lines of context.]`,
      '10: parser.py:10: pass',
      '11: parser.py:11: pass',
      '12: parser.py:12: def parse_header_line(raw):',
      '13: parser.py:13: pass',
      '14: parser.py:14: pass',
    ].join('\n');
    const call = replay.calls[0];
    expect(call?.recovery).toMatchObject({ readBacks: 1, reRuns: 0, readBackTokens: counter.count(answer) });
    expect(call?.recovery?.cost).toBeCloseTo(roundTrip(call?.inputTokens ?? 0, answer), 2);
    expect(replay.totals).toMatchObject({ recoveryReadBacks: 1, recoveryReRuns: 0 });
    expect(replay.totals.recoveryBill).toBeCloseTo(
      replay.totals.billedWithCache + roundTrip(call?.inputTokens ?? 0, answer),
      2,
    );
  });

  it('re-runs a forgotten result: a placeholder names nothing, and neither does a longer ref', () => {
    for (const stand of ['[cleared]', '[offloaded · read_offloaded("large_tool_results/r22")]']) {
      const replay = score(session, lastRequest(session, { 2: stand }), {
        readable: [{ ref: 'large_tool_results/r2', content: GREP }],
      });
      const call = replay.calls[0];
      expect(call?.recovery).toMatchObject({ readBacks: 0, reRuns: 1, reRunTokens: counter.count(GREP) });
      expect(call?.recovery?.cost).toBeCloseTo(roundTrip(call?.inputTokens ?? 0, GREP), 2);
    }
  });

  it('counts a path the request names with a leading slash and a full stop after it as a pointer', () => {
    const ref = '/large_tool_results/call_c1.txt';
    const replay = score(
      session,
      lastRequest(session, { 2: `Tool result too large, saved at this path: ${ref}.` }),
      { readable: [{ ref, content: GREP }] },
    );
    expect(replay.calls[0]?.recovery).toMatchObject({ readBacks: 1, reRuns: 0 });
  });

  it('re-runs the one forgotten result that holds every missing token, not one per result', () => {
    const both = 'parse_header_line is called from load_config_file';
    const longer = numbered([
      user('Fix the header parsing.'),
      callsTo(['c1', 'bash', '{"cmd":"grep -n def parser.py"}']),
      result('c1', 'def parse_header_line(raw):'),
      callsTo(['c2', 'bash', '{"cmd":"grep -n def config.py"}']),
      result('c2', 'def load_config_file(path):'),
      callsTo(['c3', 'bash', '{"cmd":"grep -rn header"}']),
      result('c3', both),
      callsTo(['c4', 'bash', '{"cmd":"ls"}']),
      result('c4', 'ok'),
      assistant('Both parse_header_line and load_config_file need the fix.'),
    ]);
    const request = lastRequest(longer, { 2: '[cleared]', 4: '[cleared]', 6: '[cleared]' });
    const replay = score(longer, request);
    const call = replay.calls[0];
    expect(call?.workingSet).toEqual({ needed: 2, seen: 0, readBacks: 2 });
    expect(call?.recovery).toMatchObject({ readBacks: 0, reRuns: 1, reRunTokens: counter.count(both) });
    expect(call?.recovery?.cost).toBeCloseTo(roundTrip(call?.inputTokens ?? 0, both), 2);
    // With the result that holds both still in view, nothing is missing.
    expect(
      score(longer, lastRequest(longer, { 2: '[cleared]', 4: '[cleared]' })).calls[0]?.recovery?.reRuns,
    ).toBe(0);
  });
});

describe('readBackAnswers', () => {
  const lines = Array.from({ length: 400 }, (_, line) => `line ${line + 1} of the log`);
  lines[9] = 'alpha_token here';
  lines[389] = 'omega_token here';
  const content = lines.join('\n');
  const at = (token: string) => ({ token, at: content.indexOf(token) });

  it('takes the whole blob when it fits the page and is the smallest answer', () => {
    expect(readBackAnswers('just alpha_token', 'r', [at('alpha_token')], 20_000)).toEqual([
      'just alpha_token',
    ]);
  });

  it('takes the page holding tokens no one search brings together, searches for tokens pages apart', () => {
    // 7,886 characters: one page of 20,000 holds the whole log, as read_offloaded returns it.
    expect(readBackAnswers(content, 'r', [at('alpha_token'), at('omega_token')], 20_000)).toEqual([content]);
    const far = readBackAnswers(content, 'r', [at('alpha_token'), at('omega_token')], 2_000);
    expect(far).toHaveLength(2);
    expect(far[0]).toContain('alpha_token');
    expect(far[1]).toContain('omega_token');
  });
});

describe('greedyCover', () => {
  it('picks the candidate holding the most first, the cheaper on a tie, and stops when none holds more', () => {
    const holds = { a: ['x'], b: ['x', 'y'], c: ['y'], d: ['z'] } as Record<string, string[]>;
    const cover = greedyCover(
      ['a', 'b', 'c', 'd'],
      ['x', 'y', 'z', 'w'],
      (c, t) => holds[c]?.includes(t) ?? false,
    );
    expect(cover).toEqual([
      ['b', ['x', 'y']],
      ['d', ['z']],
    ]);
    const cheaper = greedyCover(['a', 'c'], ['x', 'y'], (c, t) => holds[c]?.includes(t) ?? false, {
      cheaper: (p, q) => (p === 'c' ? -1 : q === 'c' ? 1 : 0),
    });
    expect(cheaper.map(([c]) => c)).toEqual(['c', 'a']);
  });
});
