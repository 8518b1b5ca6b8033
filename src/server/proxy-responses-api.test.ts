import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import { createMemoryTraceStore } from '../store/trace-store.ts';
import { RESPONSE_HEADERS } from './proxy-responses.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import { capturingLogger } from './testing/capturing-logger.ts';
import {
  countRequest,
  type ResponsesAnswer,
  type ResponsesUpstream,
  startResponsesUpstream,
} from './testing/responses-upstream.ts';

const KEY = 'sk-test-responses';
let closers: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

interface Setup {
  store: SessionStore;
  upstream: ResponsesUpstream;
  proxy: RunningProxy;
  client: OpenAI;
  logs: string[];
}

async function setup(
  upstreamOptions: Parameters<typeof startResponsesUpstream>[0],
  proxyWindow?: number,
): Promise<Setup> {
  const upstream = await startResponsesUpstream(upstreamOptions);
  const { logger, lines: logs } = capturingLogger();
  const store = createMemorySessionStore();
  // The window caps every model, as `budget.contextWindow` does (a profile would otherwise say 400k).
  const window = proxyWindow ?? upstreamOptions.window;
  const manager = createContextManager({
    policy: { ...PRESETS.default, budget: { ...PRESETS.default.budget, contextWindow: window } },
    store,
    blobs: createMemoryBlobStore(),
    trace: createMemoryTraceStore(),
  });
  const proxy = await startProxyServer({
    manager,
    upstream: upstream.baseUrl,
    logger,
    sessions: store,
    detectWindow: false,
  });
  closers.push(
    () => upstream.close(),
    () => proxy.close(0),
  );
  return { store, upstream, proxy, client: new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: KEY }), logs };
}

const SHELL_TOOL = {
  type: 'function' as const,
  name: 'shell',
  description: 'Runs a shell command and returns its output.',
  strict: false,
  parameters: {
    type: 'object',
    properties: { command: { type: 'array', items: { type: 'string' } } },
    required: ['command'],
  },
};

const APPLY_PATCH_TOOL = {
  type: 'custom' as const,
  name: 'apply_patch',
  description: 'Applies a patch to files.',
  format: { type: 'grammar' as const, syntax: 'lark' as const, definition: 'start: /[\\s\\S]+/' },
};

describe('the Responses route', () => {
  it('answers responses.create through the proxy with the client body forwarded', async () => {
    const s = await setup({
      window: 16_000,
      answer: () => ({ reasoning: 'thinking', text: 'Hello there.' }),
    });
    const { data, response } = await s.client.responses
      .create({
        model: 'gpt-5-codex',
        instructions: 'You are a coding agent.',
        input: 'Say hello.',
        metadata: { team: 'a' },
        store: false,
        include: ['reasoning.encrypted_content'],
      })
      .withResponse();
    expect(data.output_text).toBe('Hello there.');
    expect(response.headers.get(RESPONSE_HEADERS.session)).toMatch(/^conv_/);
    const sent = s.upstream.requests[0]?.body;
    expect(sent?.instructions).toBe('You are a coding agent.');
    expect(sent?.metadata).toEqual({ team: 'a' });
    expect(sent?.include).toEqual(['reasoning.encrypted_content']);
    expect(sent?.input).toEqual([{ role: 'user', content: 'Say hello.' }]);
  });

  it('streams events in order through responses.stream, numbered, ending in response.completed', async () => {
    const s = await setup({
      window: 16_000,
      answer: () => ({ reasoning: 'plan', text: 'Streaming works fine.' }),
    });
    const stream = s.client.responses.stream({
      model: 'gpt-5-codex',
      input: [{ role: 'user', content: 'Stream please.' }],
    });
    const types: string[] = [];
    const numbers: number[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(text).toBe('Streaming works fine.');
    expect(final.output_text).toBe('Streaming works fine.');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(numbers).toEqual(numbers.map((_, index) => index));
  });

  it.each([
    ['before any item', 2],
    ['after the first text', 6],
  ])('fails a stream the upstream cut off %s instead of ending it cleanly', async (_, cutAfterEvents) => {
    const s = await setup({
      window: 16_000,
      answer: () => ({ text: 'This answer is cut short.', cutAfterEvents }),
    });
    const stream = s.client.responses.stream({ model: 'gpt-5', input: 'Hi' });
    const outcome = await stream.finalResponse().then(
      () => 'complete',
      (error: unknown) => String(error),
    );
    expect(outcome).toMatch(/response\.completed/);
  });

  it('passes a request naming previous_response_id through unmanaged, and says so', async () => {
    const s = await setup({ window: 16_000 });
    const body = {
      model: 'gpt-5',
      previous_response_id: 'resp_earlier',
      input: [{ role: 'user', content: 'And then?' }],
    };
    const response = await fetch(`${s.proxy.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get(RESPONSE_HEADERS.unmanaged)).toBe('previous_response_id');
    expect(response.headers.get(RESPONSE_HEADERS.session)).toBeNull();
    expect(s.upstream.requests[0]?.body).toEqual(body);
    const line = s.logs
      .map((entry) => JSON.parse(entry))
      .find((entry) => entry.field === 'previous_response_id');
    expect(line?.msg).toMatch(/passed through/);
  });

  it.each([
    ['background', { background: true, input: 'Later.' }],
    ['conversation', { conversation: 'conv_123', input: 'Next.' }],
    ['prompt', { prompt: { id: 'pmpt_1', version: '2' } }],
  ])('passes a request with %s through unmanaged', async (field, fields) => {
    const s = await setup({ window: 16_000 });
    const body = { model: 'gpt-5', ...fields };
    const response = await fetch(`${s.proxy.url}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(body),
    });
    expect(response.headers.get(RESPONSE_HEADERS.unmanaged)).toBe(field);
    expect(s.upstream.requests[0]?.body).toEqual(body);
  });

  it('answers a request whose input is all system prompt', async () => {
    const s = await setup({ window: 16_000, answer: () => ({ text: 'Ready.' }) });
    const final = await s.client.responses.create({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [{ role: 'developer', content: 'Say ready.' }],
    });
    expect(final.output_text).toBe('Ready.');
    expect(s.upstream.requests[0]?.body.input).toEqual([{ role: 'developer', content: 'Say ready.' }]);
  });

  it('refuses a bad item with a 400 in the OpenAI error shape naming the field', async () => {
    const s = await setup({ window: 16_000 });
    const error = await s.client.responses
      .create({ model: 'gpt-5', input: [{ type: 'function_call', name: 'shell', arguments: '{}' } as never] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/input\[0\]\.call_id/);
    expect(s.upstream.requests).toHaveLength(0);
  });

  it.each(['status', 'event'] as const)(
    'recovers an overflow the upstream signals by %s before the client sees a byte',
    async (overflowAs) => {
      // The proxy believes the window is 16k; the upstream holds less and says only that the input exceeds it.
      // Six results: ctxkit sends about 11k tokens, within its 16k, over the upstream's 9k.
      const s = await setup({ window: 9_000, overflowAs, answer: () => ({ text: 'Recovered.' }) }, 16_000);
      const input = codexInput(6);
      const stream = s.client.responses.stream({ model: 'gpt-5-codex', input: input as never, store: false });
      const final = await stream.finalResponse();
      expect(final.output_text).toBe('Recovered.');
      expect(s.upstream.requests[0]?.overWindow).toBe(true);
      expect(s.upstream.requests.at(-1)?.overWindow).toBe(false);
    },
  );

  it('answers read-backs of offloaded content itself, streamed and not, as one response', async () => {
    const answer = (body: Record<string, unknown>): ResponsesAnswer => {
      const input = body.input as Array<Record<string, unknown>>;
      const last = input.at(-1);
      if (last?.type === 'function_call_output' && String(last.output).includes('NEEDLE_7f3a'))
        return { reasoning: 'found it', text: 'The answer is 42.' };
      const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(input))?.[0];
      return {
        reasoning: 'I should read the log back',
        calls: [{ name: READ_OFFLOADED_TOOL, arguments: JSON.stringify({ ref, search: 'NEEDLE' }) }],
      };
    };
    for (const stream of [false, true]) {
      const s = await setup({ window: 16_000, answer });
      const input = needleConversation();
      const request = {
        model: 'gpt-5-codex',
        input: input as never,
        tools: [SHELL_TOOL],
        store: false,
        include: ['reasoning.encrypted_content' as const],
      };
      const final = stream
        ? await s.client.responses.stream(request).finalResponse()
        : await s.client.responses.create(request);
      expect(final.output_text).toBe('The answer is 42.');
      expect(final.output.some((item) => item.type === 'function_call')).toBe(false);
      const [first, second] = s.upstream.requests;
      expect(((first?.body.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
        'shell',
        READ_OFFLOADED_TOOL,
      ]);
      // The second round carries the model's reasoning beside its call, byte for byte, without ids.
      const echoed = ((second?.body.input ?? []) as Array<Record<string, unknown>>).filter(
        (item) => item.type === 'reasoning',
      );
      expect(echoed.at(-1)?.encrypted_content).toBe(s.upstream.issuedReasoning[0]?.encrypted_content);
      expect(echoed.at(-1)?.id).toBeUndefined();
      expect(s.upstream.requests.every((figure) => figure.refusal === undefined)).toBe(true);
      // A stream keeps the id the client read first; an answer is the last round's response.
      expect(final.id).toBe(stream ? s.upstream.responseIds[0] : s.upstream.responseIds.at(-1));
    }
  });

  it('leaves out of a read-back round unstored reasoning the upstream gave no encrypted content for', async () => {
    const answer = (body: Record<string, unknown>): ResponsesAnswer => {
      const input = body.input as Array<Record<string, unknown>>;
      if (String(input.at(-1)?.output).includes('NEEDLE_7f3a')) return { text: 'Read it.' };
      const ref = /large_tool_results\/[A-Za-z0-9_-]+/.exec(JSON.stringify(input))?.[0];
      return {
        reasoning: 'read it back',
        calls: [{ name: READ_OFFLOADED_TOOL, arguments: JSON.stringify({ ref, search: 'NEEDLE' }) }],
      };
    };
    const s = await setup({ window: 16_000, answer });
    const final = await s.client.responses
      .stream({ model: 'gpt-5', input: needleConversation() as never, store: false })
      .finalResponse();
    expect(final.output_text).toBe('Read it.');
    const second = (s.upstream.requests[1]?.body.input ?? []) as Array<Record<string, unknown>>;
    expect(second.some((item) => item.type === 'reasoning')).toBe(false);
    expect(s.upstream.requests.map((figure) => figure.refusal)).toEqual([undefined, undefined]);
  });
});

describe('a Codex-shaped session through the proxy at a 16k window', () => {
  it('answers every request, never over the window, reasoning kept byte for byte', async () => {
    const turns = 30;
    const s = await setup({ window: 16_000, answer: codexAnswer(turns) });
    const input: unknown[] = [
      {
        type: 'message',
        role: 'developer',
        content: [
          {
            type: 'input_text',
            text: '<permissions instructions>workspace-write</permissions instructions>',
          },
        ],
      },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: '<environment_context>cwd: /repo</environment_context>' }],
      },
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'Fix the failing tests in the parser.' }],
      },
    ];
    let answered = 0;
    const bodies: Array<Record<string, unknown>> = [];
    for (let turn = 0; turn < turns; turn++) {
      const body = {
        model: 'gpt-5-codex',
        instructions: CODEX_INSTRUCTIONS,
        input: input as never,
        tools: [SHELL_TOOL, APPLY_PATCH_TOOL],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        reasoning: { effort: 'medium', summary: 'auto' },
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'codex-session-1',
      };
      bodies.push(structuredClone(body));
      const stream = s.client.responses.stream(body as never);
      const items: Array<Record<string, unknown>> = [];
      for await (const event of stream)
        if (event.type === 'response.output_item.done')
          items.push(event.item as unknown as Record<string, unknown>);
      await stream.finalResponse();
      answered += 1;
      // Codex keeps the output items (ids dropped, as it serializes them) and answers each call.
      for (const item of items) {
        const { id: _id, ...kept } = item;
        input.push(kept);
        if (item.type === 'function_call')
          input.push({ type: 'function_call_output', call_id: item.call_id, output: commandOutput(turn) });
        if (item.type === 'custom_tool_call')
          input.push({
            type: 'custom_tool_call_output',
            call_id: item.call_id,
            output: 'Success. Updated the following files:\nM src/parser.ts',
          });
      }
    }
    expect(answered).toBe(turns);
    expect(s.upstream.requests.filter((figure) => figure.overWindow)).toEqual([]);
    expect(s.upstream.requests.filter((figure) => figure.refusal !== undefined)).toEqual([]);
    expect(Math.max(...s.upstream.requests.map((figure) => figure.input))).toBeLessThanOrEqual(16_000);
    // Every reasoning item the proxy sent is one the upstream issued, byte for byte.
    const issued = new Set(s.upstream.issuedReasoning.map((item) => item.encrypted_content));
    const sentReasoning = s.upstream.requests.flatMap((figure) =>
      (figure.body.input as Array<Record<string, unknown>>).filter((item) => item.type === 'reasoning'),
    );
    expect(sentReasoning.length).toBeGreaterThan(0);
    expect(sentReasoning.every((item) => issued.has(item.encrypted_content))).toBe(true);

    // One session, recognized without a header from the resent history.
    const sessions = new Set(
      s.logs
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.msg === 'model call')
        .map((entry) => entry.session),
    );
    expect(sessions.size).toBe(1);
    // Each reply entered the log with the usage its `response.completed` reported.
    const [listing] = await s.store.list();
    const log = (await s.store.load(listing?.id ?? ''))?.log ?? [];
    const replies = log.filter((message) => message.role === 'assistant');
    expect(replies.length).toBeGreaterThanOrEqual(turns - 1);
    expect(replies.slice(0, turns - 1).every((message) => (message.usage?.inputTokens ?? 0) > 300)).toBe(
      true,
    );
    // The same requests sent directly overflow: the test has teeth.
    const direct = bodies.filter((body) => countRequest(body, body.input as unknown[]) > 16_000);
    expect(direct.length).toBeGreaterThanOrEqual(20);
  }, 60_000);
});

const CODEX_INSTRUCTIONS = `You are Codex, a coding agent. ${'Follow the repository conventions. '.repeat(40)}`;

function codexAnswer(turns: number): (body: Record<string, unknown>, index: number) => ResponsesAnswer {
  return (_body, index) => {
    if (index >= turns - 1) return { reasoning: 'All done.', text: 'The tests pass now.' };
    if (index % 5 === 4)
      return {
        reasoning: `Patch step ${index}`,
        calls: [
          {
            name: 'apply_patch',
            custom: true,
            arguments: `*** Begin Patch\n*** Update File: src/parser.ts\n@@\n-old ${index}\n+new ${index}\n*** End Patch`,
          },
        ],
      };
    return {
      reasoning: `Step ${index}: look at more of the code.`,
      calls: [
        {
          name: 'shell',
          arguments: JSON.stringify({ command: ['bash', '-lc', `rg -n parse src | head -${200 + index}`] }),
        },
      ],
    };
  };
}

function commandOutput(turn: number): string {
  const lines = Array.from(
    { length: 120 },
    (_, line) =>
      `src/parser/module_${turn}_${line}.ts:${line + 1}: export function parse${turn}x${line}(input: string) { return tokens_${line}; }`,
  );
  return JSON.stringify({ output: lines.join('\n'), metadata: { exit_code: 0, duration_seconds: 0.2 } });
}

/** A conversation whose last tool output is far larger than a 16k window, with a needle in it. */
function needleConversation(): unknown[] {
  const lines = Array.from({ length: 4000 }, (_, index) => `line ${index}: value_${index * 7} ok`);
  lines[2345] = 'line 2345: NEEDLE_7f3a the answer is 42';
  return [
    { role: 'user', content: 'Find the needle in the log.' },
    { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["cat","app.log"]}' },
    { type: 'function_call_output', call_id: 'call_1', output: lines.join('\n') },
  ];
}

/** Codex-shaped input of `steps` shell calls with mid-sized outputs (no reasoning: any upstream takes it). */
function codexInput(steps: number): unknown[] {
  const input: unknown[] = [{ role: 'user', content: 'Investigate the parser.' }];
  for (let step = 0; step < steps; step++) {
    input.push({
      type: 'function_call',
      call_id: `call_${step}`,
      name: 'shell',
      arguments: `{"command":["cat","f${step}"]}`,
    });
    input.push({ type: 'function_call_output', call_id: `call_${step}`, output: commandOutput(step) });
  }
  return input;
}
