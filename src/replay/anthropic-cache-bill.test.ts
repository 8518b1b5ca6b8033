import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import {
  anthropicCacheBillOfReplay,
  billAnthropicCache,
  type CacheBilledBlock,
  type CacheBilledRequest,
} from './anthropic-cache-bill.ts';
import type { ReplayedRequest } from './replay-types.ts';

const blocks = (...sizes: Array<[string, number]>): CacheBilledBlock[] =>
  sizes.map(([key, tokens]) => ({ key, tokens }));
const at = (...positions: number[]) => positions.map((position) => ({ position }));
const run = (prefix: string, count: number, tokens: number): Array<[string, number]> =>
  Array.from({ length: count }, (_, index) => [`${prefix}${index}`, tokens]);

describe('billAnthropicCache', () => {
  it('writes at the breakpoint, then reads it from a later breakpoint within 20 blocks', () => {
    const bill = billAnthropicCache(
      [
        { blocks: blocks(['a', 100], ['b', 50], ['c', 50]), breakpoints: at(2) },
        { blocks: blocks(['a', 100], ['b', 50], ['c', 50], ['d', 30], ['e', 20]), breakpoints: at(4) },
      ],
      { minTokens: 10 },
    );
    // Call 1: 200 written at 1.25. Call 2: 200 read at 0.1, 50 written at 1.25.
    expect(bill.calls[0]).toEqual({
      input: 200,
      read: 0,
      written: 200,
      writtenLong: 0,
      uncached: 0,
      billed: 250,
    });
    expect(bill.calls[1]).toEqual({
      input: 250,
      read: 200,
      written: 50,
      writtenLong: 0,
      uncached: 0,
      billed: 82.5,
    });
    expect(bill.totals.billed).toBe(332.5);
  });

  it('misses an entry 20 or more blocks back, unless a breakpoint nearer to it finds it', () => {
    const first: CacheBilledRequest = { blocks: blocks(...run('m', 5, 100)), breakpoints: at(4) };
    const grown = (added: number) => blocks(...run('m', 5, 100), ...run('n', added, 10));
    // 20 blocks added: the lookback from block 24 checks 24 down to 5, one short of block 4.
    const missed = billAnthropicCache([first, { blocks: grown(20), breakpoints: at(24) }], { minTokens: 10 });
    expect(missed.calls[1]).toMatchObject({ read: 0, written: 700, billed: 875 });
    // 19 added: block 4 is the 20th position checked.
    const reached = billAnthropicCache([first, { blocks: grown(19), breakpoints: at(23) }], {
      minTokens: 10,
    });
    expect(reached.calls[1]).toMatchObject({ read: 500, written: 190, billed: 50 + 1.25 * 190 });
    // A second breakpoint where the first call wrote reads it however far back.
    const both = billAnthropicCache([first, { blocks: grown(20), breakpoints: at(4, 24) }], {
      minTokens: 10,
    });
    expect(both.calls[1]).toMatchObject({ read: 500, written: 200, billed: 50 + 250 });
  });

  it('caches nothing under the minimum, and bills what follows the last breakpoint at list price', () => {
    const bill = billAnthropicCache(
      [
        { blocks: blocks(['x', 600], ['y', 300]), breakpoints: at(1) },
        { blocks: blocks(['x', 600], ['y', 300], ['z', 200]), breakpoints: at(2) },
        { blocks: blocks(['x', 600], ['y', 300], ['z', 200], ['w', 40]), breakpoints: at(2) },
      ],
      { minTokens: 1024 },
    );
    // 900 tokens is under 1,024: no entry, all at 1 ×.
    expect(bill.calls[0]).toMatchObject({ read: 0, written: 0, uncached: 900, billed: 900 });
    // 1,100 reaches it: nothing to read (nothing was written), 1,100 written.
    expect(bill.calls[1]).toMatchObject({ read: 0, written: 1100, billed: 1375 });
    // The same prefix read, the 40 tokens after the breakpoint at list price.
    expect(bill.calls[2]).toMatchObject({ read: 1100, written: 0, uncached: 40, billed: 110 + 40 });
  });

  it('bills everything at list price without breakpoints', () => {
    const request = { blocks: blocks(['a', 3000], ['b', 500]), breakpoints: [] };
    expect(billAnthropicCache([request, request], { minTokens: 1024 }).totals).toMatchObject({
      read: 0,
      written: 0,
      uncached: 7000,
      billed: 7000,
    });
  });

  it('forgets an entry not used for 5 minutes, and keeps a 1-hour one', () => {
    const request = { blocks: blocks(['a', 2000], ['b', 100]), breakpoints: at(1) };
    const sixMinutes = { callSpacingMs: 6 * 60_000, minTokens: 1024 };
    expect(billAnthropicCache([request, request], sixMinutes).calls[1]).toMatchObject({
      read: 0,
      written: 2100,
    });
    expect(
      billAnthropicCache([request, { ...request, atMs: 4 * 60_000 }], { minTokens: 1024 }).calls[1],
    ).toMatchObject({ read: 2100, written: 0 });
    const long = { blocks: request.blocks, breakpoints: [{ position: 0, longTtl: true }, { position: 1 }] };
    const bill = billAnthropicCache([long, long], sixMinutes);
    // Call 1: 2,000 written for an hour (2 ×), 100 for 5 minutes. Call 2: the hour-long entry read.
    expect(bill.calls[0]).toMatchObject({ writtenLong: 2000, written: 100, billed: 4000 + 125 });
    expect(bill.calls[1]).toMatchObject({ read: 2000, written: 100, billed: 200 + 125 });
  });

  it('reads only up to an edit: a changed block changes every prefix after it', () => {
    const bill = billAnthropicCache(
      [
        { blocks: blocks(['s', 2000], ['a', 100], ['b', 100]), breakpoints: at(0, 2) },
        { blocks: blocks(['s', 2000], ['a2', 50], ['b', 100], ['c', 10]), breakpoints: at(0, 3) },
      ],
      { minTokens: 1024 },
    );
    expect(bill.calls[1]).toMatchObject({ read: 2000, written: 160, billed: 200 + 200 });
  });
});

describe('anthropicCacheBillOfReplay', () => {
  const system = 'You are a coding agent in a large repository. '.repeat(200);
  /** Each call adds 12 tool calls and their results: 24 blocks, past the 20-block lookback. */
  function replayed(calls: number): ReplayedRequest[] {
    const messages: Message[] = [
      { id: 'u', seq: 0, role: 'user', parts: [{ type: 'text', text: 'read everything' }], meta: {} },
    ];
    const requests: ReplayedRequest[] = [];
    for (let call = 0; call < calls; call++) {
      for (let step = 0; step < 12; step++) {
        const id = `c${call}s${step}`;
        messages.push(
          {
            id: `a${id}`,
            seq: messages.length,
            role: 'assistant',
            parts: [{ type: 'tool-call', callId: id, name: 'read', args: `{"path":"${id}.ts"}` }],
            meta: {},
          },
          {
            id: `t${id}`,
            seq: messages.length + 1,
            role: 'tool',
            parts: [
              { type: 'tool-result', callId: id, name: 'read', content: `${id} `.repeat(60), isError: false },
            ],
            meta: {},
          },
        );
      }
      requests.push({
        messageIndex: messages.length,
        system,
        messages: [...messages],
        tools: [{ name: 'read', description: 'Read a file' }],
        maxOutputTokens: 1024,
        timeMs: 0,
        summaryCalls: 0,
      });
    }
    return requests;
  }
  const countTokens = (json: string) => Math.ceil(json.length / 4);

  it('ctxkit’s marks read what the previous call wrote where one mark at the end misses it', () => {
    const requests = replayed(5);
    const options = { countTokens, model: 'claude-sonnet-4-5' };
    const none = anthropicCacheBillOfReplay(requests, { ...options, marking: 'none' });
    const end = anthropicCacheBillOfReplay(requests, { ...options, marking: 'end' });
    const ctxkit = anthropicCacheBillOfReplay(requests, { ...options, marking: 'ctxkit' });
    expect(none.totals.billed).toBe(none.totals.input);
    expect(end.totals.input).toBe(none.totals.input);
    // One mark at the end finds nothing 24 blocks back: every call is written whole.
    for (const call of end.calls) expect(call.read).toBe(0);
    expect(end.totals.billed).toBeCloseTo(1.25 * end.totals.input);
    // ctxkit reads the previous call's end on every later call.
    for (const [index, call] of ctxkit.calls.entries()) {
      if (index > 0) expect(call.read).toBe(ctxkit.calls[index - 1]?.input);
    }
    expect(ctxkit.totals.billed).toBeLessThan(0.5 * none.totals.billed);
  });
});
