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
    const { manager, pointer } = await spilledSession();
    const read = await handleReadOffloaded(
      manager,
      's',
      { ref: refOf(pointer), startLine: 100, endLine: 29_000 },
      { maxChars: 1_000 },
    );
    expect(read.content.length).toBeLessThanOrEqual(1_000 + 200);
    const [header, ...lines] = read.content.split('\n');
    const shownEnd = 99 + lines.length;
    expect(header).toContain(
      `lines 100–${shownEnd} of 30000. Shown up to line ${shownEnd} to fit the context`,
    );
    expect(lines[0]).toBe(`100: line 99: ${'x'.repeat(20)}`);
    expect(lines.join('\n').length).toBeLessThanOrEqual(1_000);
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
      [{ ref, search: 'x', startLine: 3 }, 'not both'],
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
