import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../core/message.ts';
import { type ReadBody, RequestBodies, readWireRequest } from './request-bodies.ts';
import { anthropicWire } from './wire/anthropic-wire.ts';
import { openAIWire } from './wire/openai-wire.ts';
import { serializeBody } from './wire/raw-json.ts';
import type { WireFormat, WireRequest } from './wire/wire-format.ts';

const KEY = 'owner\nclient';
const bytesOf = (text: string) => new TextEncoder().encode(text);
const jsonOf = (body: Uint8Array) => JSON.parse(new TextDecoder().decode(body)) as unknown;

/** What a request reads to, as the proxy goes on with it (its raw bytes aside). */
function readable(request: WireRequest) {
  const { raw: _raw, ...rest } = request;
  return rest;
}

/** The view that keeps everything, and one that changes the first message and drops the last. */
function views(request: WireRequest): { system: string; messages: Message[] }[] {
  const all = request.history.map(
    (message, index): Message => ({
      ...message,
      id: request.ids[index] as string,
      seq: index,
      meta: message.meta ?? {},
    }),
  );
  const edited = all
    .slice(0, -1)
    .map((message, index) =>
      index === 0 ? { ...message, parts: [{ type: 'text' as const, text: 'summary' }] } : message,
    );
  return [
    { system: request.system, messages: all },
    { system: `${request.system} more`, messages: edited },
  ];
}

type Outcome =
  | { refused: Extract<ReadBody, { ok: false }> | string }
  | { request: ReturnType<typeof readable>; upstream: unknown[]; continued: boolean };

/** A body read as the proxy reads it, after `before` (read and kept first, when given). */
async function outcome(format: WireFormat, bytes: Uint8Array, bodies: RequestBodies): Promise<Outcome> {
  const read = await bodies.read(bytes, KEY, format);
  if (!read.ok) return { refused: read };
  let request: WireRequest;
  try {
    request = await readWireRequest(format, read);
  } catch (error) {
    return { refused: (error as Error).message };
  }
  bodies.keep(KEY, read, request);
  const additions = { readTool: false, rounds: [], includeUsage: false };
  const upstream = views(request).map((view) =>
    jsonOf(serializeBody(format.upstreamBody(request, view, additions))),
  );
  return { request: readable(request), upstream, continued: read.continues !== undefined };
}

/** The same body read the whole way (nothing kept) and after `before`. */
async function both(format: WireFormat, before: string, after: string | Uint8Array) {
  const kept = new RequestBodies();
  await outcome(format, bytesOf(before), kept);
  const bytes = typeof after === 'string' ? bytesOf(after) : after;
  return {
    whole: await outcome(format, bytes, new RequestBodies()),
    continued: await outcome(format, bytes, kept),
  };
}

function withoutContinued(result: Outcome): Outcome {
  return 'request' in result ? { ...result, continued: false } : result;
}

const word = fc.constantFrom('a', 'b', 'hello', 'héllo 🌍', 'line\nbreak', 'quote " \\ back', '');
const callId = fc.constantFrom('c1', 'c2', 'c3');

const openAIMessage = fc.oneof(
  word.map((content) => ({ role: 'user', content })),
  word.map((text) => ({ role: 'user', content: [{ type: 'text', text }] })),
  word.map((content) => ({ role: 'assistant', content })),
  fc
    .tuple(callId, fc.constantFrom('read', 'bash'), fc.constantFrom('{}', '{"a": 1}', '{"a":1}'))
    .map(([id, name, args]) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
    })),
  fc.tuple(callId, word).map(([id, content]) => ({ role: 'tool', tool_call_id: id, content })),
  word.map((content) => ({ role: 'system', content })),
  word.map((content) => ({
    role: 'assistant',
    content: null,
    function_call: { name: 'f', arguments: content },
  })),
  word.map((content) => ({ role: 'function', name: 'f', content })),
);

const anthropicMessage = fc.oneof(
  word.map((content) => ({ role: 'user', content: content || 'x' })),
  word.map((text) => ({ role: 'assistant', content: [{ type: 'text', text: text || 'x' }] })),
  fc.tuple(callId, fc.constantFrom('read', 'bash')).map(([id, name]) => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id, name, input: { a: 1 } }],
  })),
  fc.tuple(callId, word).map(([id, content]) => ({
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: id, content }],
  })),
  word.map((text) => ({ role: 'user', content: [{ type: 'server_thing', text }] })),
);

type Edit =
  | { kind: 'append'; count: number }
  | { kind: 'same' }
  | { kind: 'shorter'; by: number }
  | { kind: 'replace'; at: number }
  | { kind: 'swap'; at: number }
  | { kind: 'byte'; at: number; byte: number }
  | { kind: 'members' };

/** How the next body differs from the one before. */
const edit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('same' as const) }),
  fc.record({ kind: fc.constant('shorter' as const), by: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('byte' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ kind: fc.constant('members' as const) }),
);

interface BodySpec {
  /** Members before and after the messages. */
  before: Record<string, unknown>;
  after: Record<string, unknown>;
  messages: unknown[];
  indent: number;
}

function write(spec: BodySpec): string {
  return JSON.stringify({ ...spec.before, messages: spec.messages, ...spec.after }, null, spec.indent);
}

function applyEdit(spec: BodySpec, change: Edit, fresh: unknown[]): { spec: BodySpec; bytes?: Uint8Array } {
  const messages = [...spec.messages];
  switch (change.kind) {
    case 'append':
      return { spec: { ...spec, messages: [...messages, ...fresh.slice(0, change.count)] } };
    case 'same':
      return { spec };
    case 'shorter':
      return { spec: { ...spec, messages: messages.slice(0, Math.max(1, messages.length - change.by)) } };
    case 'replace':
      messages[change.at % messages.length] = fresh[0];
      return { spec: { ...spec, messages: [...messages, ...fresh.slice(1, 2)] } };
    case 'swap': {
      const at = change.at % messages.length;
      const other = (at + 1) % messages.length;
      [messages[at], messages[other]] = [messages[other], messages[at]];
      return { spec: { ...spec, messages: [...messages, ...fresh.slice(0, 1)] } };
    }
    case 'byte': {
      const bytes = bytesOf(write({ ...spec, messages: [...messages, ...fresh.slice(0, 1)] }));
      bytes[change.at % bytes.length] = change.byte;
      return { spec, bytes };
    }
    case 'members':
      return {
        spec: {
          ...spec,
          after: { ...spec.after, max_tokens: 77, tools: [] },
          messages: [...messages, ...fresh],
        },
      };
  }
}

async function checkEdits(format: WireFormat, message: fc.Arbitrary<unknown>, lead: fc.Arbitrary<unknown[]>) {
  let runs = 0;
  let continued = 0;
  await fc.assert(
    fc.asyncProperty(
      lead,
      fc.array(message, { minLength: 1, maxLength: 8 }),
      fc.array(message, { minLength: 3, maxLength: 3 }),
      edit,
      fc.constantFrom(0, 2),
      fc.boolean(),
      async (system, messages, fresh, change, indent, modelFirst) => {
        const model = { model: 'm', max_tokens: 100 };
        const spec: BodySpec = {
          before: modelFirst ? model : {},
          after: modelFirst ? {} : model,
          messages: [...system, ...messages],
          indent,
        };
        const next = applyEdit(spec, change, fresh);
        const result = await both(format, write(spec), next.bytes ?? write(next.spec));
        expect(withoutContinued(result.continued)).toEqual(withoutContinued(result.whole));
        runs++;
        if ('continued' in result.continued && result.continued.continued) continued++;
      },
    ),
    { numRuns: 300 },
  );
  // Most edits keep a prefix: the way after it is the one under test.
  expect(continued).toBeGreaterThan(runs / 3);
}

describe('RequestBodies', () => {
  it('reads a body as JSON, and refuses one that is not JSON or nests too deeply (400)', async () => {
    const bodies = new RequestBodies();
    expect(await bodies.read(bytesOf('{"model": "m", "messages": []}'), KEY, openAIWire)).toMatchObject({
      ok: true,
      body: { model: 'm', messages: [] },
    });
    expect(await bodies.read(bytesOf('{"model": '), KEY, openAIWire)).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringMatching(/^the request body is not JSON: /),
    });
    const deep = `{"messages": [${'['.repeat(200)}${']'.repeat(200)}]}`;
    expect(await bodies.read(bytesOf(deep), KEY, openAIWire)).toEqual({
      ok: false,
      status: 400,
      message: `messages${'[0]'.repeat(127)}: nested deeper than 128 levels`,
      field: `messages${'[0]'.repeat(127)}`,
    });
  });

  it('reads a body that continues a kept one from where it differs, to what the whole way reads', async () => {
    const first = { model: 'gpt-4o', messages: [{ role: 'user', content: 'héllo 🌍' }] };
    const second = {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: 'hi' }, { role: 'user', content: 'again' }],
    };
    const result = await both(openAIWire, JSON.stringify(first), JSON.stringify(second));
    expect(result.continued).toMatchObject({ continued: true });
    expect(withoutContinued(result.continued)).toEqual(withoutContinued(result.whole));
  });

  it('reads a large body edited early or late as the whole way does, reusing what comes before the edit', async () => {
    const messages = Array.from({ length: 300 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index} ${'x'.repeat(1000)}`,
    }));
    const before = JSON.stringify({ model: 'm', messages });
    const late = JSON.stringify({ model: 'm', messages: [...messages, { role: 'user', content: 'more' }] });
    const early = JSON.stringify({
      model: 'm',
      messages: [messages[0], { role: 'assistant', content: 'edited' }, ...messages.slice(2)],
    });
    for (const after of [late, early, before]) {
      const result = await both(openAIWire, before, after);
      expect(withoutContinued(result.continued)).toEqual(withoutContinued(result.whole));
      expect(result.continued).toMatchObject({ continued: true });
    }
  });

  it('sends the messages it kept as the client wrote them, byte for byte', async () => {
    const text =
      '{"model":"m","messages":[ {"role":"user","content":"caf\\u00e9"} ,{"role": "assistant","content":"x"}],"max_tokens":5}';
    const bodies = new RequestBodies();
    const read = await bodies.read(bytesOf(text), KEY, openAIWire);
    if (!read.ok) throw new Error('not read');
    const request = await readWireRequest(openAIWire, read);
    const [view] = views(request);
    const sent = serializeBody(
      openAIWire.upstreamBody(request, view as { system: string; messages: Message[] }, {
        readTool: false,
        rounds: [],
        includeUsage: false,
      }),
    ).toString('utf8');
    expect(sent).toBe(
      '{"model":"m","messages":[{"role":"user","content":"caf\\u00e9"} ,{"role": "assistant","content":"x"}],"max_tokens":5}',
    );
  });

  it('converts a run of messages ctxkit changed once, and again when the run is another', async () => {
    const text = JSON.stringify({
      model: 'm',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: 'c' },
      ],
    });
    const read = await new RequestBodies().read(bytesOf(text), KEY, openAIWire);
    if (!read.ok) throw new Error('not read');
    const request = await readWireRequest(openAIWire, read);
    const [, edited] = views(request) as [unknown, { system: string; messages: Message[] }];
    const additions = { readTool: false, rounds: [], includeUsage: false };
    const first = openAIWire.upstreamBody(request, edited, additions);
    const again = openAIWire.upstreamBody(request, { ...edited, messages: [...edited.messages] }, additions);
    const summary = (first.messages as unknown[])[1];
    expect((again.messages as unknown[])[1]).toBe(summary);
    expect(jsonOf(serializeBody(again))).toEqual(jsonOf(serializeBody(first)));
    expect(jsonOf(serializeBody(first))).toMatchObject({
      messages: [
        { role: 'system' },
        { role: 'user', content: 'summary' },
        { role: 'assistant', content: 'b' },
      ],
    });
    const [changed] = edited.messages as [Message];
    const other = openAIWire.upstreamBody(
      request,
      {
        ...edited,
        messages: [{ ...changed, parts: [{ type: 'text', text: 'other' }] }, ...edited.messages.slice(1)],
      },
      additions,
    );
    expect((other.messages as unknown[])[1]).not.toBe(summary);
    expect(jsonOf(serializeBody(other))).toMatchObject({ messages: [{}, { content: 'other' }, {}] });
  });

  it('reads every edit of a Chat Completions history as the whole way does (edits, reorders, shorter, same bytes, a byte changed)', async () => {
    await checkEdits(
      openAIWire,
      openAIMessage,
      fc.array(
        word.map((content) => ({ role: 'system', content })),
        { maxLength: 2 },
      ),
    );
  });

  it('reads every edit of an Anthropic history as the whole way does', async () => {
    await checkEdits(anthropicWire, anthropicMessage, fc.constant([]));
  });

  it('keeps bodies up to its bound, the oldest forgotten first', async () => {
    const body = (name: string) =>
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: name.repeat(1000) }] });
    const bodies = new RequestBodies(13_000);
    for (const name of ['a', 'b', 'c', 'd', 'e']) {
      const read = await bodies.read(bytesOf(body(name)), name, openAIWire);
      if (!read.ok) throw new Error('not read');
      bodies.keep(name, read, await readWireRequest(openAIWire, read));
    }
    expect(bodies.keptBytes).toBeLessThanOrEqual(13_000);
    expect(bodies.keptBytes).toBeGreaterThan(0);
    const again = await bodies.read(bytesOf(body('a')), 'a', openAIWire);
    expect(again).toMatchObject({ ok: true });
    expect(again.ok && again.continues).toBeUndefined();
    const last = await bodies.read(bytesOf(body('e')), 'e', openAIWire);
    expect(last.ok && last.continues).toBeDefined();
  });

  it('lets other requests be answered while it parses 16 MB of small messages', async () => {
    const messages = Array.from({ length: 400_000 }, (_, index) => ({
      role: index % 2 === 0 ? 'user' : 'assistant',
      content: `message ${index}`,
    }));
    const text = JSON.stringify({ model: 'gpt-4o', messages });
    let longest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 1);
    try {
      last = performance.now();
      const read = await new RequestBodies().read(bytesOf(text), KEY, openAIWire);
      longest = Math.max(longest, performance.now() - last);
      expect(read.ok && read.body).toEqual(JSON.parse(text));
    } finally {
      clearInterval(timer);
    }
    // JSON.parse and the depth check at once held the thread about a second.
    expect(longest).toBeLessThan(250);
  });
});
