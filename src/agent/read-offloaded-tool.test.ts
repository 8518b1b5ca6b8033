import { describe, expect, it } from 'vitest';
import { DEFAULT_READ_OFFLOADED_LIMIT } from '../entries/agent.ts';
import {
  createContextManager,
  createReadOffloadedHandler,
  handleReadOffloaded,
  PRESETS,
  readBackRoom,
  readOffloadedResultPart,
  readOffloadedTool,
  toAnthropicTool,
  toOpenAITool,
} from '../index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';

const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

/** A session with one spilled result; returns the manager and the ref its pointer names. */
async function spilledSession() {
  const manager = createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' }, clock: clock() });
  const huge = Array.from({ length: 30_000 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n');
  await manager.append('s', [user('dump the log'), callsTo(['c1', 'bash', '{"command":"cat big.log"}'])]);
  await manager.append('s', [result('c1', huge, { name: 'bash' })]);
  const prepared = await manager.prepare('s', {});
  const shown = prepared.messages.at(-1)?.parts[0];
  const pointer = shown?.type === 'tool-result' ? shown.content : '';
  return { manager, huge, pointer };
}

describe('the read-back tool, through the public API', () => {
  it('is named as the pointers name it, with the ref they give as its argument', async () => {
    const { pointer } = await spilledSession();
    const named = new RegExp(`${readOffloadedTool.name} tool \\(ref "([^"]+)"\\)`).exec(pointer);
    expect(named?.[1]).toMatch(/^large_tool_results\//);
    expect(readOffloadedTool.parameters).toMatchObject({ required: ['ref'] });
  });

  it('converts to the OpenAI and Anthropic tool shapes', () => {
    expect(toOpenAITool(readOffloadedTool)).toEqual({
      type: 'function',
      function: {
        name: 'read_offloaded',
        description: readOffloadedTool.description,
        parameters: readOffloadedTool.parameters,
      },
    });
    expect(toAnthropicTool(readOffloadedTool)).toEqual({
      name: 'read_offloaded',
      description: readOffloadedTool.description,
      input_schema: readOffloadedTool.parameters,
    });
    expect(toAnthropicTool({ name: 'now' }).input_schema).toEqual({ type: 'object', properties: {} });
  });

  it('reads a blob larger than one part in parts that join to the whole', async () => {
    const { manager, huge, pointer } = await spilledSession();
    const ref = /ref "([^"]+)"/.exec(pointer)?.[1] ?? '';
    expect(huge.length).toBeGreaterThan(DEFAULT_READ_OFFLOADED_LIMIT);
    const read = createReadOffloadedHandler(manager, 's');
    let offset: number | undefined = 0;
    let joined = '';
    let calls = 0;
    while (offset !== undefined) {
      const part = await read(JSON.stringify({ ref, offset, limit: 50_000 }));
      expect(part.isError).toBe(false);
      expect(part.totalChars).toBe(huge.length);
      joined += part.content.slice(part.content.indexOf('\n') + 1);
      offset = part.nextOffset;
      calls++;
    }
    expect(joined).toBe(huge);
    expect(calls).toBe(Math.ceil(huge.length / 50_000));
    const first = await read({ ref });
    expect(first.content).toMatch(
      /^\[large_tool_results\/\S+: characters 0–20000 of \d+\. Next: read_offloaded/,
    );
  });

  it('returns small content whole, and accepts the pointer’s own form: a bare ref string', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    const stored = await manager.blobs.put('s', 'large_tool_results', 'r1', 'small output');
    expect(await handleReadOffloaded(manager, 's', JSON.stringify(stored.ref))).toEqual({
      content: 'small output',
      isError: false,
      totalChars: 12,
    });
  });

  it('answers unknown refs, another session’s refs and malformed arguments with error results', async () => {
    const { manager, pointer } = await spilledSession();
    const ref = /ref "([^"]+)"/.exec(pointer)?.[1] ?? '';
    expect(await handleReadOffloaded(manager, 'other-session', { ref })).toMatchObject({
      isError: true,
      code: 'not_found',
    });
    expect(await handleReadOffloaded(manager, 's', { ref: 'large_tool_results/r999' })).toMatchObject({
      isError: true,
      code: 'not_found',
      content: expect.stringContaining('large_tool_results/r999'),
    });
    expect(await handleReadOffloaded(manager, 's', { ref: '../../etc/passwd' })).toMatchObject({
      isError: true,
      code: 'invalid_ref',
    });
    for (const args of [
      '{not json',
      '{}',
      { ref: 7 },
      { ref, offset: -1 },
      { ref, limit: 0 },
      { ref, path: 'x' },
      [ref],
    ]) {
      expect(await handleReadOffloaded(manager, 's', args)).toMatchObject({
        isError: true,
        code: 'invalid_arguments',
      });
    }
    expect(await handleReadOffloaded(manager, 's', { ref, offset: 10_000_000 })).toMatchObject({
      isError: true,
      code: 'invalid_arguments',
    });
  });

  it('answers a tool call as the tool-result part to append', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    const stored = await manager.blobs.put('s', 'large_tool_results', 'r1', 'the output');
    const part = await readOffloadedResultPart(manager, 's', {
      type: 'tool-call',
      callId: 'k1',
      name: readOffloadedTool.name,
      args: JSON.stringify({ ref: stored.ref }),
    });
    expect(part).toEqual({
      type: 'tool-result',
      callId: 'k1',
      name: 'read_offloaded',
      content: 'the output',
      isError: false,
    });
  });

  it('never splits a surrogate pair between parts', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    const text = '😀'.repeat(10);
    const stored = await manager.blobs.put('s', 'large_tool_results', 'e1', text);
    const first = await handleReadOffloaded(manager, 's', { ref: stored.ref, limit: 3 });
    const body = first.content.slice(first.content.indexOf('\n') + 1);
    expect(body).toBe('😀');
    expect(first.nextOffset).toBe(2);
  });

  it('always advances: paging with any limit ends, and the parts join to the blob', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    const text = '😀😀x€𝄞a😀\u00e9🎉🎉b';
    const stored = await manager.blobs.put('s', 'large_tool_results', 'e2', text);
    for (let limit = 1; limit <= 4; limit += 1) {
      let joined = '';
      let offset: number | undefined = 0;
      let calls = 0;
      while (offset !== undefined) {
        calls += 1;
        expect(calls, `limit ${limit} keeps going`).toBeLessThanOrEqual(text.length);
        const part = await handleReadOffloaded(manager, 's', { ref: stored.ref, offset, limit });
        expect(part.isError).toBe(false);
        joined += part.content.slice(part.content.indexOf('\n') + 1);
        if (part.nextOffset !== undefined) expect(part.nextOffset).toBeGreaterThan(offset);
        offset = part.nextOffset;
      }
      expect(joined, `limit ${limit}`).toBe(text);
    }
  });

  it('answers an offset past the end as an error, an empty blob included', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    const empty = await manager.blobs.put('s', 'large_tool_results', 'e3', '');
    expect(await handleReadOffloaded(manager, 's', { ref: empty.ref })).toMatchObject({
      isError: false,
      content: '',
      totalChars: 0,
    });
    const past = await handleReadOffloaded(manager, 's', { ref: empty.ref, offset: 3 });
    expect(past).toMatchObject({ isError: true, code: 'invalid_arguments' });
    expect(past.content).toContain('past the end');
  });
});

describe('read-back that fits', () => {
  const refOf = (pointer: string) => /ref "([^"]+)"/.exec(pointer)?.[1] ?? '';

  it('search returns the matching lines with their numbers and context, and says how many matched', async () => {
    const { manager, pointer } = await spilledSession();
    const read = await handleReadOffloaded(manager, 's', {
      ref: refOf(pointer),
      search: 'LINE 1234:',
      context: 1,
    });
    expect(read.isError).toBe(false);
    const [header, ...lines] = read.content.split('\n');
    expect(header).toMatch(/: 1 of 30000 lines hold "LINE 1234:"; shown with 1 lines of context\.\]$/);
    expect(lines).toEqual([
      `1234: line 1233: ${'x'.repeat(20)}`,
      `1235: line 1234: ${'x'.repeat(20)}`,
      `1236: line 1235: ${'x'.repeat(20)}`,
    ]);
  });

  it('a range of lines, cut to the room the context has, says where to go on', async () => {
    const { manager, huge, pointer } = await spilledSession();
    const read = await handleReadOffloaded(
      manager,
      's',
      { ref: refOf(pointer), startLine: 100, endLine: 29_000 },
      { maxChars: 1_000 },
    );
    const [header = '', ...lines] = read.content.split('\n');
    expect(lines.join('\n').length).toBeLessThanOrEqual(1_000);
    expect(lines[0]).toBe(`100: line 99: ${'x'.repeat(20)}`);
    // The last line shown is cut short: the header gives the offset of its rest and the next line.
    const cut =
      /Line (\d+) is longer than the room: its rest starts at character offset (\d+)\. The lines after it start at startLine (\d+)\./.exec(
        header,
      );
    expect(cut).not.toBeNull();
    const [, line, offset, next] = cut ?? [];
    expect(Number(next)).toBe(Number(line) + 1);
    const shownOfCut = (lines.at(-1) ?? '').replace(/^\d+: /, '').replace(/…$/, '');
    expect(huge.slice(Number(offset) - shownOfCut.length, Number(offset))).toBe(shownOfCut);
  });

  it('a room smaller than a line still shows its start and never asks for the same call again', async () => {
    const { manager, pointer } = await spilledSession();
    const ref = refOf(pointer);
    for (const args of [
      { ref, startLine: 1, limit: 10 },
      { ref, search: 'line 5', limit: 10 },
    ]) {
      const read = await handleReadOffloaded(manager, 's', args);
      const [header = '', body = ''] = read.content.split('\n');
      expect(body).toMatch(/^\d+: .*…$/);
      expect(header).toMatch(/its rest starts at character offset \d+/);
      expect(header).not.toContain('startLine 1.');
    }
  });

  it('search goes on from a line, and says which line to go on from', async () => {
    const { manager, pointer } = await spilledSession();
    const ref = refOf(pointer);
    const first = await handleReadOffloaded(
      manager,
      's',
      { ref, search: 'line 12', context: 0 },
      { maxChars: 300 },
    );
    const next = /search on with startLine (\d+)/.exec(first.content)?.[1];
    expect(next).toBeDefined();
    const second = await handleReadOffloaded(
      manager,
      's',
      { ref, search: 'line 12', context: 0, startLine: Number(next) },
      { maxChars: 300 },
    );
    expect(second.content.split('\n')[1]).toMatch(new RegExp(`^${next}: line 12`));
    expect(second.content).toContain(`from line ${next} hold "line 12"`);
  });

  it('lines end at CRLF or CR too; an empty blob has none; a cut never splits a surrogate pair', async () => {
    const reader = (text: string) => ({ readOffloaded: async () => text });
    const crlf = await handleReadOffloaded(reader('a\r\nb\rc\n'), 's', { ref: 'r', startLine: 1 });
    expect(crlf.content.split('\n').slice(1)).toEqual(['1: a', '2: b', '3: c']);
    const empty = await handleReadOffloaded(reader(''), 's', { ref: 'r', startLine: 1 });
    expect(empty.content).toBe('[r: empty, no lines.]');
    const emoji = await handleReadOffloaded(
      reader(`x\n${'😀'.repeat(3_000)}`),
      's',
      { ref: 'r', startLine: 2 },
      { maxChars: 1_001 },
    );
    const body = emoji.content.split('\n')[1] ?? '';
    expect(body.replace(/^2: /, '').replace(/…$/, '')).toMatch(/^(?:😀)+$/u);
  });

  it('a room that is not a number gets the floor, never an unlimited or empty answer', async () => {
    const { manager, pointer } = await spilledSession();
    expect(
      readBackRoom({ contextWindow: 128_000, maxOutputTokens: 4_096, tokens: { input: Number.NaN } }),
    ).toBe(1_000);
    for (const maxChars of [Number.NaN, 0, -5]) {
      const read = await handleReadOffloaded(
        manager,
        's',
        { ref: refOf(pointer), search: 'line' },
        { maxChars },
      );
      const body = read.content.slice(read.content.indexOf('\n') + 1);
      expect(body.length).toBeGreaterThan(0);
      expect(body.length).toBeLessThanOrEqual(1_000);
    }
  });

  it('without search or range, a page never passes the room, whatever limit the model asks', async () => {
    const { manager, huge, pointer } = await spilledSession();
    const read = await handleReadOffloaded(
      manager,
      's',
      { ref: refOf(pointer), limit: 90_000 },
      { maxChars: 2_500 },
    );
    expect(read.nextOffset).toBeLessThanOrEqual(2_500);
    expect(huge.startsWith(read.content.slice(read.content.indexOf('\n') + 1))).toBe(true);
  });

  it('refuses arguments that do not go together, naming them', async () => {
    const { manager, pointer } = await spilledSession();
    const ref = refOf(pointer);
    for (const [args, message] of [
      [{ ref, search: 'x', endLine: 3 }, '"endLine" does not go with "search"'],
      [{ ref, search: 'x', offset: 3 }, '"offset" pages by characters'],
      [{ ref, endLine: 3 }, '"endLine" needs "startLine"'],
      [{ ref, startLine: 0 }, '"startLine" must be an integer ≥ 1'],
      [{ ref, search: '' }, '"search" must be a non-empty string'],
      [{ ref, startLine: 40_000 }, 'past the end'],
    ] as const) {
      const read = await handleReadOffloaded(manager, 's', args);
      expect(read).toMatchObject({ isError: true, code: 'invalid_arguments' });
      expect(read.content).toContain(message);
    }
  });

  it('readBackRoom: what the window leaves beside the last request, in characters', () => {
    const stats = { contextWindow: 32_000, maxOutputTokens: 4_000, tokens: { input: 20_000 } };
    expect(readBackRoom(stats)).toBe((32_000 - 4_000 - 20_000 - 200) * 3);
    expect(readBackRoom({ ...stats, tokens: { input: 31_000 } })).toBe(1_000);
  });
});
