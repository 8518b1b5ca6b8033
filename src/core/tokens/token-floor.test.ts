import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../message.ts';
import { CalibratedTokenCounter, MIN_TOKENS_PER_UNIT } from './calibrated-counter.ts';
import { ContextTokenTally } from './context-token-tally.ts';
import { estimateContextTokens } from './estimate-context-tokens.ts';
import { estimateMessageTokens } from './estimate-message-tokens.ts';
import { createExactCounter } from './exact-counter.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import { MessageTokenCache } from './message-token-cache.ts';
import type { TokenCounter } from './token-counter.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from './token-estimate-options.ts';
import {
  atLeastFloor,
  countDenseBytes,
  FLOOR_BYTES_PER_TOKEN,
  FLOOR_FREE_BYTES,
  tokenFloor,
  tokensForDenseBytes,
} from './token-floor.ts';

/** Deterministic pseudo-random text over an alphabet (code points). */
function random(alphabet: readonly string[], length: number, seed = 7): string {
  let state = seed;
  let text = '';
  for (let index = 0; index < length; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += alphabet[(state >>> 8) % alphabet.length];
  }
  return text;
}

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from }, (_, index) => String.fromCodePoint(from + index));

const BASE64 = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'];

/** Text no estimate models well: what the floor is for. */
const ADVERSARIAL: Record<string, string> = {
  'one capital repeated': 'Q'.repeat(100_000),
  base64: random(BASE64, 40_000),
  'random capitals': random([...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'], 20_000),
  hex: random([...'0123456789abcdef'], 20_000),
  CJK: random(range(0x4e00, 0x9fff), 6_000),
  emoji: random(range(0x1f300, 0x1f64f), 4_000),
  'random Cyrillic': random(range(0x400, 0x4ff), 10_000),
  'random BMP': random(range(0x100, 0xd7ff), 6_000),
  'random astral': random(range(0x20000, 0x2a6df), 4_000),
};

/** Real text of several kinds: the floor must stay below what it costs. */
const REAL: Record<string, string> = {
  prose:
    'When a request arrives after a long pause, the agent first checks whether the earlier summary still describes the work, then decides which files to open again before it answers the question. '.repeat(
      4,
    ),
  code: 'export function historyBudget(regions: Omit<BudgetRegions, "history">): number {\n  return regions.contextWindow - regions.system - regions.summary - regions.toolDefinitions;\n}\n'.repeat(
    4,
  ),
  log: '$ npm test -- budget\n\n FAIL  src/core/budget/budget.test.ts > budget regions\nAssertionError: expected 103001 to be less than or equal to 103000\n    at src/core/budget/budget.test.ts:31:42\n\n'.repeat(
    3,
  ),
  russian:
    'Пожалуйста, проверьте профиль пользователя или обратитесь в службу поддержки, если баланс не обновился. '.repeat(
      4,
    ),
  chinese:
    '当请求在长时间停顿后到达时，代理首先检查之前的摘要是否仍然描述了工作，然后决定再次打开哪些文件。'.repeat(
      4,
    ),
};

describe('the byte floor of a count', () => {
  it('counts UTF-8 bytes outside ASCII whitespace', () => {
    expect(countDenseBytes('')).toBe(0);
    expect(countDenseBytes(' a\tb\nc\r\n')).toBe(3);
    expect(countDenseBytes('é')).toBe(2);
    expect(countDenseBytes('中')).toBe(3);
    expect(countDenseBytes('😀')).toBe(4);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        const dense = text.replace(/[\t\n\v\f\r ]/g, '');
        expect(countDenseBytes(text)).toBe(new TextEncoder().encode(dense).length);
      }),
    );
  });

  it('leaves the first bytes free and rounds down: a short text may be one long token', () => {
    expect(tokensForDenseBytes(FLOOR_FREE_BYTES)).toBe(0);
    expect(tokensForDenseBytes(FLOOR_FREE_BYTES + FLOOR_BYTES_PER_TOKEN - 1)).toBe(0);
    expect(tokensForDenseBytes(FLOOR_FREE_BYTES + FLOOR_BYTES_PER_TOKEN)).toBe(1);
    expect(tokenFloor('Q'.repeat(100_000))).toBe(Math.floor((100_000 - FLOOR_FREE_BYTES) / 8));
  });

  it('stays below what o200k and cl100k count, on real text and on adversarial text alike', () => {
    for (const encoding of ['o200k', 'cl100k'] as const) {
      const exact = createExactCounter(encoding);
      for (const [kind, text] of Object.entries({ ...REAL, ...ADVERSARIAL })) {
        expect(tokenFloor(text), `${encoding}: ${kind}`).toBeLessThanOrEqual(exact.count(text));
      }
    }
  });

  it('skips measuring bytes only when the floor cannot reach the estimate', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.nat(200), (text, estimate) => {
        expect(atLeastFloor(estimate, text)).toBe(Math.max(estimate, tokenFloor(text)));
      }),
    );
  });
});

describe('counters of models whose tokenizer ctxkit does not have never count below the floor', () => {
  const lowest = new CalibratedTokenCounter({ priorTokensPerUnit: MIN_TOKENS_PER_UNIT });
  const counters: TokenCounter[] = [
    new CalibratedTokenCounter(),
    lowest,
    createHeuristicCounter(4),
    createHeuristicCounter(2.5),
    createHeuristicCounter(100),
  ];

  it('count(): at least the floor of every adversarial text, under any multiplier or ratio', () => {
    for (const counter of counters) {
      for (const [kind, text] of Object.entries(ADVERSARIAL)) {
        expect(counter.count(text), `${counter.name}: ${kind}`).toBeGreaterThanOrEqual(tokenFloor(text));
      }
    }
    // The probe that found it: 100,000 capitals were about 6 tokens; o200k counts 50,000.
    expect(new CalibratedTokenCounter().count('Q'.repeat(100_000))).toBeGreaterThan(50_000);
    // Where a ratio says next to nothing, the floor is the count.
    expect(createHeuristicCounter(100).count('Q'.repeat(100_000))).toBe(tokenFloor('Q'.repeat(100_000)));
  });

  it('messages, caches and running tallies keep the floor per text category, as count() does', () => {
    const blob = 'Q'.repeat(100_000);
    const message = (id: string, seq: number, content: string): Message => ({
      id,
      seq,
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'call_1', name: 'read_file', content, isError: false }],
      meta: {},
    });
    const prose = REAL.prose as string;
    const messages = [
      { id: 'u1', seq: 1, role: 'user', parts: [{ type: 'text', text: prose }], meta: {} } as Message,
      message('t1', 2, blob),
    ];
    for (const counter of counters) {
      const one = counter.count(blob) + counter.count('call_1');
      expect(estimateMessageTokens(messages[1] as Message, counter).toolResults).toBeGreaterThanOrEqual(
        one - 1,
      );
      const single = estimateMessageTokens(message('t2', 3, blob), counter);
      expect(single.total).toBeGreaterThanOrEqual(tokenFloor(blob) + DEFAULT_MESSAGE_OVERHEAD_TOKENS);
      const expected =
        estimateMessageTokens(messages[0] as Message, counter).total +
        estimateMessageTokens(messages[1] as Message, counter).total;
      const cache = new MessageTokenCache();
      expect(estimateContextTokens(messages, counter, { cache }).tokens).toBe(expected);
      expect(estimateContextTokens(messages, counter, { cache }).tokens).toBe(expected);
      expect(new ContextTokenTally(counter, { cache }, messages).total()).toBe(expected);
      expect(expected).toBeGreaterThanOrEqual(tokenFloor(blob) + tokenFloor(prose));
    }
  });

  it('a tally whose multiplier moves re-derives its figures without dropping under the floor', () => {
    const counter = new CalibratedTokenCounter();
    const blob = random(BASE64, 40_000);
    const tally = new ContextTokenTally(counter, {}, [
      {
        id: 't1',
        seq: 1,
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'c', name: 'cat', content: blob, isError: false }],
        meta: {},
      },
    ]);
    const before = tally.total();
    // Usage that says the text costs a quarter of a token per unit: the multiplier falls to its bound.
    for (let index = 0; index < 20; index++) counter.observe({ units: 100_000, tokens: 25_000 });
    expect(counter.tokensPerUnit).toBeLessThan(0.26);
    expect(tally.total()).toBeLessThan(before);
    expect(tally.total()).toBeGreaterThanOrEqual(tokenFloor(blob) + DEFAULT_MESSAGE_OVERHEAD_TOKENS);
  });
});
