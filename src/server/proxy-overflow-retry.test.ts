/**
 * The overflow retry through the real proxy, against an upstream that counts with a real tokenizer and
 * refuses what does not fit its window with Anthropic's own error body. The window is one ctxkit does
 * not know (the model's profile says 200k): the first request may overflow, and the error is all that
 * tells ctxkit the window and how large the request really was. The client must get its answer, and
 * every upstream request after the first must be smaller than the one before it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { RequestMeasurer } from '../replay/measure-request.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import { postJson } from './testing/proxy-harness.ts';
import {
  startWindowEnforcingUpstream,
  type WindowEnforcingUpstream,
} from './testing/window-enforcing-upstream.ts';

const WINDOW = 16_000;
const MAX_TOKENS = 1_024;
const MODEL = 'claude-sonnet-4-5';

let upstream: WindowEnforcingUpstream | undefined;
let proxy: RunningProxy | undefined;

afterEach(async () => {
  await proxy?.close(0);
  await upstream?.close();
  proxy = undefined;
  upstream = undefined;
});

/** A base64 blob of pseudo-random bytes (deterministic): what a tool that cats a binary file returns. */
function base64Blob(bytes: number): string {
  const data = new Uint8Array(bytes);
  let state = 0x9e3779b9;
  for (let index = 0; index < bytes; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    data[index] = state >>> 24;
  }
  return Buffer.from(data).toString('base64');
}

/** Random letters of the Cyrillic block: o200k counts ~1.5 tokens a letter, token units a third of that. */
function randomCyrillic(letters: number): string {
  let state = 1;
  let text = '';
  for (let index = 0; index < letters; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += String.fromCodePoint(0x400 + ((state >>> 8) % 256));
  }
  return text;
}

/** An agent's request whose last tool result is `output`: the history ctxkit must fit. */
function requestWithToolResult(output: string): Record<string, unknown> {
  return {
    model: MODEL,
    max_tokens: MAX_TOKENS,
    system: 'You are a coding agent. Use the tools to inspect the repository.',
    tools: [
      {
        name: 'read_file',
        description: 'Read a file of the repository.',
        input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      },
    ],
    messages: [
      { role: 'user', content: 'What is in data/blob.txt? Summarize it in one line.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading the file.' },
          { type: 'tool_use', id: 'toolu_01', name: 'read_file', input: { path: 'data/blob.txt' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: output }],
      },
    ],
  };
}

async function startProxy(
  measurer?: RequestMeasurer,
): Promise<{ upstream: WindowEnforcingUpstream; proxy: RunningProxy }> {
  // No model served at the window routes: ctxkit knows the window only from the overflow error.
  upstream = await startWindowEnforcingUpstream({
    window: WINDOW,
    models: [],
    ...(measurer && { measurer }),
  });
  const manager = createContextManager({
    policy: PRESETS.default,
    store: createMemorySessionStore(),
    blobs: createMemoryBlobStore(),
  });
  proxy = await startProxyServer({
    manager,
    upstream: upstream.server.openAIBaseUrl,
    upstreamAnthropic: upstream.server.anthropicBaseUrl,
    detectWindow: false,
  });
  return { upstream, proxy };
}

async function send(proxy: RunningProxy, body: unknown) {
  return postJson(`${proxy.url}/v1/messages`, body, {
    'x-api-key': 'sk-ant-api03-test',
    'anthropic-version': '2023-06-01',
  });
}

/** The client got its answer; each upstream request after the first was smaller; the last one fitted. */
function expectRecovered(upstream: WindowEnforcingUpstream, response: { status: number; text: string }) {
  const sizes = upstream.requests.map((request) => request.input + request.maxTokens);
  expect(response.status, `${response.text.slice(0, 300)} (upstream saw ${sizes.join(', ')})`).toBe(200);
  expect(upstream.requests.length).toBeGreaterThanOrEqual(1);
  for (let index = 1; index < sizes.length; index++)
    expect(sizes[index] as number).toBeLessThan(sizes[index - 1] as number);
  expect(upstream.requests.at(-1)?.overWindow).toBe(false);
}

describe('an overflow through ctxkit serve, at a window ctxkit learns from the error', () => {
  const cases: [string, string][] = [
    ["a tool result of 'Q' × 100,000", 'Q'.repeat(100_000)],
    ['a tool result holding a 60,000-character base64 blob', base64Blob(45_000)],
    // Text token units still count at a third of its cost: only the error's figures tell.
    ['a tool result of 12,000 random Cyrillic letters (o200k: 18,000 tokens)', randomCyrillic(12_000)],
  ];
  for (const [name, output] of cases) {
    it(`answers ${name}, each upstream request after the first smaller`, async () => {
      const { upstream, proxy } = await startProxy();
      expectRecovered(upstream, await send(proxy, requestWithToolResult(output)));
    });
  }

  it('answers when the upstream’s tokenizer counts twice what ctxkit does, over a long conversation', async () => {
    const o200k = createExactCounter('o200k');
    const dense: TokenCounter = { name: 'o200k×2', count: (text) => 2 * o200k.count(text) };
    const { upstream, proxy } = await startProxy(new RequestMeasurer(dense));
    const turns = Array.from({ length: 24 }, (_, index) => [
      {
        role: 'user',
        content: `Step ${index}: look at part ${index} of the build log and say what failed. ${'The compiler reported warnings in module '.repeat(40)}`,
      },
      {
        role: 'assistant',
        content: `Part ${index} shows a missing header. ${'It was included twice. '.repeat(30)}`,
      },
    ]).flat();
    const body = {
      ...requestWithToolResult('ok'),
      messages: [...turns, ...(requestWithToolResult('ok').messages as unknown[])],
    };
    expectRecovered(upstream, await send(proxy, body));
  });
});
