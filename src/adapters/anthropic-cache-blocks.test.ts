import { describe, expect, it } from 'vitest';
import { anthropicCacheBlocks, hasAnthropicCacheControl, withCacheMarks } from './anthropic-cache-blocks.ts';

const body = {
  model: 'claude-sonnet-4-5',
  max_tokens: 100,
  tools: [{ name: 'read', input_schema: { type: 'object' } }],
  system: 'Be terse.',
  messages: [
    { role: 'user', content: 'read a.ts' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'read it', signature: 's' },
        { type: 'tool_use', id: 't1', name: 'read', input: { path: 'a.ts' } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'A' }] },
  ],
};

describe('anthropicCacheBlocks', () => {
  it('reads tools, system, then every message block, strings as one text block', () => {
    const blocks = anthropicCacheBlocks(body);
    expect(blocks.map((block) => [block.region, block.index, block.position, block.cacheable])).toEqual([
      ['tools', 0, 0, true],
      ['system', 0, 0, true],
      ['messages', 0, 0, true],
      ['messages', 1, 0, false],
      ['messages', 1, 1, true],
      ['messages', 2, 0, true],
    ]);
    expect(blocks.every((block) => !block.marked)).toBe(true);
  });

  it('keys a block by its content, not by its mark nor by string or block form', () => {
    const marked = {
      ...body,
      system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'read a.ts', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
    };
    const plain = anthropicCacheBlocks(body);
    const blocks = anthropicCacheBlocks(marked);
    expect(blocks.slice(0, 3).map((block) => block.prefixKey)).toEqual(
      plain.slice(0, 3).map((b) => b.prefixKey),
    );
    expect(blocks[1]?.marked).toBe(true);
    expect(blocks[2]?.longTtl).toBe(true);
  });

  it('gives prefixes that differ anywhere before a block different prefix keys', () => {
    const edited = { ...body, messages: [{ role: 'user', content: 'read b.ts' }, ...body.messages.slice(1)] };
    const size = (json: string) => json.length;
    const a = anthropicCacheBlocks(body, size);
    const b = anthropicCacheBlocks(edited, size);
    expect(a[1]?.prefixKey).toBe(b[1]?.prefixKey);
    for (let at = 2; at < a.length; at++) expect(a[at]?.prefixKey).not.toBe(b[at]?.prefixKey);
    // The blocks after the edit are the same blocks: same content keys, same counts.
    expect(a[3]?.key).toBe(b[3]?.key);
    expect(a[3]?.key).not.toBe('');
    expect(a[2]?.key).not.toBe(b[2]?.key);
    expect(a[3]?.tokens).toBe(b[3]?.tokens);
  });

  it('does not let blank text or unknown blocks carry a mark', () => {
    const blocks = anthropicCacheBlocks({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '  ' },
            { type: 'server_thing', x: 1 },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
      ],
    });
    expect(blocks.map((block) => block.cacheable)).toEqual([false, false, true]);
  });
});

describe('hasAnthropicCacheControl', () => {
  it('finds a mark at the top level, on a tool, a system block, a message block or inside a result', () => {
    expect(hasAnthropicCacheControl(body)).toBe(false);
    expect(hasAnthropicCacheControl({ ...body, cache_control: { type: 'ephemeral' } })).toBe(true);
    expect(
      hasAnthropicCacheControl({ ...body, tools: [{ name: 'a', cache_control: { type: 'ephemeral' } }] }),
    ).toBe(true);
    expect(
      hasAnthropicCacheControl({
        ...body,
        system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
      }),
    ).toBe(true);
    expect(
      hasAnthropicCacheControl({
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: 't',
                content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
              },
            ],
          },
        ],
      }),
    ).toBe(true);
  });
});

describe('withCacheMarks', () => {
  it('marks the chosen blocks, turning strings into one text block, and leaves the input unchanged', () => {
    const before = JSON.stringify(body);
    const blocks = anthropicCacheBlocks(body);
    const marked = withCacheMarks(body, blocks, [0, 1, 2, 5]);
    expect(JSON.stringify(body)).toBe(before);
    expect(marked.tools).toEqual([
      { name: 'read', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(marked.system).toEqual([
      { type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } },
    ]);
    const messages = marked.messages as Array<{ content: unknown }>;
    expect(messages[0]?.content).toEqual([
      { type: 'text', text: 'read a.ts', cache_control: { type: 'ephemeral' } },
    ]);
    expect(messages[1]).toBe(body.messages[1]);
    expect(messages[2]?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'A', cache_control: { type: 'ephemeral' } },
    ]);
    // Marks change no key: the marked body is the same prefix to the cache.
    expect(anthropicCacheBlocks(marked).map((block) => block.prefixKey)).toEqual(
      blocks.map((block) => block.prefixKey),
    );
  });
});

describe("values with a toJSON (serve keeps the client's bytes so)", () => {
  /** Stands for serve's RawJson: the client's bytes, read as JSON.stringify reads them. */
  class Kept {
    constructor(readonly value: unknown) {}
    toJSON(): unknown {
      return this.value;
    }
  }

  it('are read, checked for marks and marked as the values they stand for', () => {
    const kept = {
      ...body,
      tools: new Kept(body.tools),
      messages: body.messages.map((message) => new Kept(message)),
    };
    const blocks = anthropicCacheBlocks(kept);
    expect(blocks.map((block) => block.prefixKey)).toEqual(
      anthropicCacheBlocks(body).map((b) => b.prefixKey),
    );
    expect(hasAnthropicCacheControl(kept)).toBe(false);
    expect(
      hasAnthropicCacheControl({
        ...kept,
        messages: [
          new Kept({
            role: 'user',
            content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral' } }],
          }),
        ],
      }),
    ).toBe(true);
    const marked = withCacheMarks(kept, blocks, [0, 5]);
    expect(JSON.parse(JSON.stringify(marked))).toEqual(
      JSON.parse(JSON.stringify(withCacheMarks(body, blocks, [0, 5]))),
    );
    // Messages without a mark stay as they were kept.
    expect((marked.messages as unknown[])[0]).toBe(kept.messages[0]);
  });
});
