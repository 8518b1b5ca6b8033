import { describe, expect, it } from 'vitest';
import type { Message, MessageInput } from '../core/message.ts';
import {
  callCoverage,
  carriedText,
  DEFAULT_READ_BACK_PRICING,
  distinctiveTokens,
  readBackCost,
  spokenTexts,
  workingSetNeeds,
} from './working-set.ts';

let seq = 0;
const message = (input: MessageInput): Message =>
  ({ id: `m${seq}`, seq: seq++, meta: {}, ...input }) as Message;
const user = (text: string) => message({ role: 'user', parts: [{ type: 'text', text }] });
const call = (id: string, args: string, text = '') =>
  message({
    role: 'assistant',
    parts: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      { type: 'tool-call', callId: id, name: 'bash', args },
    ],
  });
const result = (id: string, content: string) =>
  message({
    role: 'tool',
    parts: [{ type: 'tool-result', callId: id, name: 'bash', content, isError: false }],
  });

describe('distinctiveTokens', () => {
  it('takes paths, file names, hashes, identifiers with an underscore or inner capital, and file:line', () => {
    const tokens = distinctiveTokens(
      'see src/core/view.ts:42 and README.md, commit 3f9a2c1b, call parse_tool_args or buildReminder; the word really stays',
    );
    expect(tokens).toEqual(
      new Set([
        'src/core/view.ts',
        'README.md',
        '3f9a2c1b',
        'parse_tool_args',
        'buildReminder',
        'src/core/view.ts:42',
      ]),
    );
  });

  it('leaves out plain words, short tokens and hex without a digit', () => {
    expect(distinctiveTokens('the result was fine, deadbeef cafe a.b')).toEqual(new Set());
  });
});

describe('workingSetNeeds', () => {
  it('what an assistant message quotes that an earlier result alone told it, the latest batch aside', () => {
    seq = 0;
    const session = [
      user('fix the failing test in the parser'),
      call('c1', '{"cmd":"grep -rn parse tests"}'),
      result('c1', 'tests/test_parser.py:12: assert parse_header(x)'),
      call('c2', '{"cmd":"cat src/parser/header.py"}'),
      result('c2', 'def parse_header(raw):\n    return HeaderState(raw)'),
      // Quotes a token from c1's result (older than the latest batch) and one from c2's (the latest batch).
      call('c3', '{"cmd":"pytest tests/test_parser.py"}', 'HeaderState is built in parse_header'),
    ];
    const needs = workingSetNeeds('You are an agent.', session);
    // parse_header and test_parser first appear in c1's result too; HeaderState only in the latest batch.
    expect(needs.get(5)).toEqual([
      { token: 'tests/test_parser.py', resultIndex: 2 },
      { token: 'parse_header', resultIndex: 2 },
      { token: 'test_parser', resultIndex: 2 },
    ]);
  });

  it('a token the user or the system prompt said first is not learned from a result', () => {
    seq = 0;
    const session = [
      user('look at config_loader.py'),
      call('c1', '{"cmd":"ls"}'),
      result('c1', 'config_loader.py\nmain.py'),
      call('c2', '{"cmd":"ls -la"}'),
      result('c2', 'total 8'),
      call('c3', '{"cmd":"cat config_loader.py main.py"}'),
    ];
    const needs = workingSetNeeds('The project keeps main.py at its root.', session);
    expect(needs.get(5)).toBeUndefined();
  });

  it('a quoted tail of a longer path counts as learned where the path was', () => {
    seq = 0;
    const session = [
      user('go'),
      call('c1', '{"cmd":"find ."}'),
      result('c1', './src/engine/compactor.ts'),
      call('c2', '{"cmd":"true"}'),
      result('c2', 'ok'),
      call('c3', '{"cmd":"cat engine/compactor.ts"}'),
    ];
    expect(workingSetNeeds('', session).get(5)).toEqual([{ token: 'engine/compactor.ts', resultIndex: 2 }]);
  });
});

describe('coverage of a request', () => {
  it('counts what the request carries besides the session words, pointer lines included', () => {
    seq = 0;
    const asked = user('please fix it');
    const said = call('c9', '{"cmd":"cat a/b_c.py"}', 'reading a/b_c.py');
    const spoken = spokenTexts([asked, said]);
    const needs = [
      { token: 'a/b_c.py', resultIndex: 3 },
      { token: 'Other_thing', resultIndex: 4 },
    ];
    // The agent's own quote of the path does not count; a pointer line naming it does.
    expect(callCoverage(needs, carriedText({ system: '', messages: [asked, said] }, spoken))).toEqual({
      needed: 2,
      seen: 0,
      readBacks: [3, 4],
      missing: needs,
    });
    const pointer = result('c9', '[bash output, ~900 tokens, offloaded: a/b_c.py · read_offloaded("r3")]');
    expect(
      callCoverage(needs, carriedText({ system: '', messages: [asked, said, pointer] }, spoken)),
    ).toEqual({
      needed: 2,
      seen: 1,
      readBacks: [4],
      missing: [needs[1]],
    });
  });

  it('a read-back costs the request from cache, the content fresh up to a page, and a short reply', () => {
    const pricing = DEFAULT_READ_BACK_PRICING;
    expect(readBackCost(10_000, 2_000, pricing)).toBeCloseTo(
      0.1 * 10_000 + 1.25 * (pricing.callTokens + 2_000) + pricing.outputMultiplier * pricing.outputTokens,
    );
    expect(readBackCost(10_000, 80_000, pricing)).toBe(
      readBackCost(10_000, pricing.maxContentTokens, pricing),
    );
  });
});
