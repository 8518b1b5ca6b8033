import { describe, expect, it } from 'vitest';
import type { CallMetrics, SessionReplay } from '../../replay/replay-types.ts';
import { CHECK_FAILURES_LISTED, findCheckFailures, renderCheckFailures } from './check-replays.ts';

function call(number: number, overrides: Partial<CallMetrics> = {}): CallMetrics {
  return {
    call: number,
    messageIndex: number * 2,
    inputTokens: 1_000,
    pressure: 0.5,
    sharedPrefixTokens: 0,
    billed: 1_000,
    billedWithCache: 1_000,
    overflow: false,
    orphans: 0,
    edits: 0,
    compactions: 0,
    summaryCalls: 0,
    timeMs: 1,
    ...overrides,
  };
}

function replay(session: string, calls: CallMetrics[]): SessionReplay {
  return {
    session,
    system: 'ctxkit:default',
    contextWindow: 8_000,
    maxOutputTokens: 1_000,
    calls,
    totals: {
      calls: calls.length,
      inputTokens: 0,
      billed: 0,
      billedWithCache: 0,
      workingSetNeeded: 0,
      workingSetSeen: 0,
      readBacks: 0,
      oversizedReadBacks: 0,
      readBackBill: 0,
      effectiveBill: 0,
      recoveryReadBacks: 0,
      recoveryReRuns: 0,
      recoveryCost: 0,
      recoveryBill: 0,
      overflows: calls.filter((c) => c.overflow).length,
      orphans: calls.reduce((n, c) => n + c.orphans, 0),
      compactions: 0,
      summaryCalls: 0,
      timeMsP50: 0,
      timeMsP99: 0,
    },
    retention: {
      total: 0,
      kept: 0,
      share: 1,
      byPlace: { view: 0, summary: 0, pointer: 0, lost: 0 },
      byKind: {} as SessionReplay['retention']['byKind'],
    },
  };
}

describe('replay --check', () => {
  it('passes when no call overflows or orphans', () => {
    const replays = [replay('a.jsonl', [call(1), call(2)])];
    expect(findCheckFailures(replays)).toEqual([]);
    expect(renderCheckFailures([], replays)).toBe(
      'check passed: 2 calls in 1 replay(s), no overflow, no orphaned tool call',
    );
  });

  it('names the session, policy, call and message of each overflow and orphan', () => {
    const replays = [
      replay('a.jsonl', [call(1), call(2, { overflow: true, inputTokens: 9_100 })]),
      replay('\u001b[2Jb.jsonl', [call(1, { orphans: 2 })]),
    ];
    const failures = findCheckFailures(replays);
    expect(failures.map((f) => [f.session, f.call, f.problem])).toEqual([
      ['a.jsonl', 2, 'overflow'],
      ['\u001b[2Jb.jsonl', 1, 'orphans'],
    ]);
    const text = renderCheckFailures(failures, replays);
    expect(text.split('\n')).toEqual([
      'check failed: a.jsonl · ctxkit:default: call 2 (message 4) overflows the window: 9,100 input tokens, limit 7,000 (window 8,000 − output reserve 1,000)',
      'check failed: \\x1b[2Jb.jsonl · ctxkit:default: call 1 (message 2) 2 tool call(s) or result(s) sent without their pair',
      'check failed: 1 call(s) over the window, 1 call(s) with orphaned tool calls, in 2 of 2 replay(s)',
    ]);
  });

  it('lists at most a screenful per session and counts the rest', () => {
    const calls = Array.from({ length: CHECK_FAILURES_LISTED + 5 }, (_, i) =>
      call(i + 1, { overflow: true }),
    );
    const replays = [replay('long.jsonl', calls)];
    const lines = renderCheckFailures(findCheckFailures(replays), replays).split('\n');
    expect(lines).toHaveLength(CHECK_FAILURES_LISTED + 2);
    expect(lines.at(-2)).toBe('check failed: long.jsonl · ctxkit:default: … and 5 more');
  });
});
