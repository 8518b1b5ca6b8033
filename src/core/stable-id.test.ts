import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';
import type { MessageInput } from './message.ts';
import { assignStableIds, assignStableIdsInSlices, contentId } from './stable-id.ts';
import { WorkSlices } from './work-slices.ts';

const user = (text: string): MessageInput => ({ role: 'user', parts: [{ type: 'text', text }] });
const assistant = (text: string): MessageInput => ({ role: 'assistant', parts: [{ type: 'text', text }] });

describe('canonicalJson', () => {
  it('does not depend on key order, at any depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: 'x' } })).toBe(
      canonicalJson({ a: { c: 'x', d: [1, { x: 1, y: 2 }] }, b: 1 }),
    );
  });

  it('drops undefined members as JSON does, and keeps array order', () => {
    expect(canonicalJson({ a: undefined, b: [2, 1] })).toBe('{"b":[2,1]}');
  });
});

describe('contentId', () => {
  it('is m_ and 16 hex digits', () => {
    expect(contentId(user('hi'))).toMatch(/^m_[0-9a-f]{16}$/);
  });

  it('does not depend on key order of the message or its parts', () => {
    const reordered = { parts: [{ text: 'hi', type: 'text' as const }], role: 'user' as const };
    expect(contentId(reordered)).toBe(contentId(user('hi')));
  });

  it('ignores seq, timestamps, model and usage, but not role, text or kind', () => {
    const base = contentId(user('hi'));
    expect(contentId({ ...user('hi'), seq: 7, meta: { createdAt: 123, model: 'x' } } as MessageInput)).toBe(
      base,
    );
    const withUsage: MessageInput = { ...assistant('hi'), usage: { inputTokens: 1, outputTokens: 2 } };
    expect(contentId(withUsage)).toBe(contentId(assistant('hi')));
    expect(contentId(assistant('hi'))).not.toBe(base);
    expect(contentId(user('hi!'))).not.toBe(base);
    expect(contentId({ ...user('hi'), meta: { kind: 'system_note' } })).not.toBe(base);
  });

  it('treats tool-call arguments as JSON: formatting and key order do not matter', () => {
    const call = (args: string): MessageInput => ({
      role: 'assistant',
      parts: [{ type: 'tool-call', callId: 'c1', name: 'bash', args }],
    });
    expect(contentId(call('{"command": "ls", "cwd": "/"}'))).toBe(
      contentId(call('{"cwd":"/","command":"ls"}')),
    );
    expect(contentId(call('{"command":"ls"}'))).not.toBe(contentId(call('{"command":"pwd"}')));
    expect(contentId(call('not json'))).not.toBe(contentId(call('not json!')));
  });

  it('ignores the recovered tool name of a result', () => {
    const result = (name: string): MessageInput => ({
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name, content: 'ok', isError: false }],
    });
    expect(contentId(result(''))).toBe(contentId(result('bash')));
  });
});

/**
 * Ids are stored with every message and matched against every request: they may never change. These are
 * the ids of the first implementation (a pieces array joined, then createHash), which `referenceId`
 * repeats.
 */
describe('contentId stays what it was', () => {
  const samples: unknown[] = [
    { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
    {
      role: 'assistant',
      parts: [{ type: 'text', text: 'héllo 🌍 \u0000 "q"' }],
      meta: { kind: 'message', model: 'x' },
    },
    { role: 'user', parts: [{ type: 'text', text: 'note' }], meta: { kind: 'system_note' } },
    {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'think', signature: 'sig' },
        {
          type: 'tool-call',
          callId: 'c1',
          name: 'bash',
          args: '{"b": [1, 2.5, null, true], "a": {"y": "z", "x": -0}}',
        },
      ],
    },
    { role: 'assistant', parts: [{ type: 'tool-call', callId: 'c2', name: 'x', args: 'not json {' }] },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content: 'out\nline', isError: false }],
    },
    {
      role: 'tool',
      parts: [
        {
          type: 'tool-result',
          callId: 'c1',
          content: [
            { type: 'text', text: 'a' },
            { type: 'media', mediaType: 'image/png', ref: 'blob:1' },
          ],
          isError: true,
          extra: undefined,
          fn: () => 1,
        },
      ],
    },
    {
      role: 'user',
      parts: [
        { type: 'media', mediaType: 'image/png', url: 'https://x/y.png', detail: 'high' },
        { type: 'text', text: 'lone \ud800 surrogate' },
      ],
    },
    { role: 'user', parts: [] },
    {
      role: 'user',
      parts: [{ type: 'text', text: 'x'.repeat(70000), providerOptions: { cache: { type: 'ephemeral' } } }],
    },
  ];
  const golden = [
    'm_7604834cfb08babc',
    'm_c23fedc2361d10a3',
    'm_ac9dd8035b2c9d7b',
    'm_3b94b642b4b082e3',
    'm_4901be42dc94abb8',
    'm_868a28a6e0129f33',
    'm_9bd30b08785f15fe',
    'm_e220ebee6747c6a5',
    'm_18f29cdacd73690b',
    'm_088b2ec4657beba4',
  ];

  it('gives the ids it always gave', () => {
    expect(samples.map((sample) => contentId(sample as MessageInput))).toEqual(golden);
    expect(samples.map((sample) => referenceId(sample as MessageInput))).toEqual(golden);
  });

  it('agrees with the first implementation on any message', () => {
    const json = fc.jsonValue({ maxDepth: 3 });
    const part = fc.oneof(
      fc.record({ type: fc.constant('text'), text: fc.string({ unit: 'grapheme' }) }),
      fc.record({
        type: fc.constant('tool-call'),
        callId: fc.string(),
        name: fc.string(),
        args: fc.oneof(
          fc.string(),
          json.map((value) => JSON.stringify(value) ?? 'null'),
        ),
      }),
      fc.record({
        type: fc.constant('tool-result'),
        callId: fc.string(),
        name: fc.string(),
        content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() }))),
        isError: fc.boolean(),
      }),
      fc.dictionary(fc.string(), json),
    );
    const message = fc.record(
      {
        role: fc.constantFrom('user', 'assistant', 'tool'),
        parts: fc.array(part, { maxLength: 4 }),
        meta: fc.record({ kind: fc.option(fc.string(), { nil: undefined }) }, { requiredKeys: [] }),
      },
      { requiredKeys: ['role', 'parts'] },
    );
    fc.assert(
      fc.property(message, (sample) => {
        expect(contentId(sample as MessageInput)).toBe(referenceId(sample as MessageInput));
      }),
      { numRuns: 500 },
    );
  });
});

/** The first implementation of `contentId`, kept to check the current one against. */
function referenceId(message: MessageInput): string {
  const identityOfPart = (part: Record<string, unknown>): unknown => {
    if (part.type === 'tool-call') {
      let args: unknown;
      try {
        args = { json: JSON.parse(part.args as string) as unknown };
      } catch {
        args = { raw: part.args };
      }
      return { ...part, args };
    }
    if (part.type === 'tool-result') {
      const { name: _name, ...rest } = part;
      return rest;
    }
    return part;
  };
  const write = (value: unknown, out: string[]): void => {
    if (typeof value === 'string') {
      out.push('s', String(value.length), ':', value);
      return;
    }
    if (value === null || typeof value !== 'object') {
      out.push('v', JSON.stringify(value) ?? 'null', ';');
      return;
    }
    if (Array.isArray(value)) {
      out.push('[', String(value.length), ':');
      for (const item of value) write(item, out);
      out.push(']');
      return;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((key) => record[key] !== undefined && typeof record[key] !== 'function')
      .sort();
    out.push('{', String(keys.length), ':');
    for (const key of keys) {
      out.push(String(key.length), ':', key);
      write(record[key], out);
    }
    out.push('}');
  };
  const kind = message.meta?.kind;
  const pieces: string[] = [];
  write(
    {
      role: message.role,
      kind: kind === undefined || kind === 'message' ? undefined : kind,
      parts: message.parts.map((part) => identityOfPart(part as unknown as Record<string, unknown>)),
    },
    pieces,
  );
  const digest = createHash('sha256').update(pieces.join('')).digest('hex');
  return `m_${digest.slice(0, 16)}`;
}

describe('assignStableIds', () => {
  const history = [user('hello'), assistant('hi, what now?'), user('yes'), assistant('done'), user('yes')];

  it('gives the same history the same ids every time', () => {
    const first = assignStableIds(history).map((message) => message.id);
    const second = assignStableIds(structuredClone(history)).map((message) => message.id);
    expect(second).toEqual(first);
  });

  it('gives identical messages at different positions distinct ids, by occurrence', () => {
    const ids = assignStableIds(history).map((message) => message.id);
    expect(new Set(ids).size).toBe(ids.length);
    const yes = contentId(user('yes'));
    expect(ids[2]).toBe(yes);
    expect(ids[4]).toBe(`${yes}_2`);
  });

  it('does not change later ids when an earlier distinct message is dropped', () => {
    const full = assignStableIds(history).map((message) => message.id);
    const trimmed = assignStableIds(history.slice(1)).map((message) => message.id);
    expect(trimmed).toEqual(full.slice(1));
  });

  it('keeps ids that are already there, and never generates a duplicate of one', () => {
    const yes = contentId(user('yes'));
    const ids = assignStableIds([{ ...user('a'), id: 'mine' }, { ...user('b'), id: yes }, user('yes')]).map(
      (message) => message.id,
    );
    expect(ids).toEqual(['mine', yes, `${yes}_2`]);
  });

  it('gives the same ids in slices', async () => {
    const given = [...history, { ...user('b'), id: contentId(user('yes')) }, user('yes')];
    let now = 0;
    const sliced = await assignStableIdsInSlices(given, new WorkSlices(1, () => now++));
    expect(sliced).toEqual(assignStableIds(given));
  });

  it('does not mutate its input', () => {
    const input = [user('x')];
    assignStableIds(input);
    expect(input[0]).not.toHaveProperty('id');
  });
});
