/**
 * Claude Code through `ctxkit serve`: a session shaped as Claude Code sends it (claude-code-session.ts:
 * a long cached system prompt, cached tools, thinking on, redacted thinking, tool results of tens of
 * kilobytes, four cache breakpoints, `/v1/messages?beta=true` with its `anthropic-beta` header), driven
 * by the official Anthropic SDK, streamed and not, through the proxy to a stand-in Anthropic upstream
 * holding a 64k window and refusing whatever the real API refuses (anthropic-rules-upstream.ts). The
 * model also reads back two results ctxkit offloaded, so the proxy writes assistant turns of its own.
 *
 * Every request must be answered; the upstream must never be sent more than its window nor anything it
 * refuses; thinking must reach it exactly as it was issued. The same requests sent straight to a second
 * stand-in, without the proxy, overflow it: that is what the proxy is for, and what gives this test teeth.
 *
 * `CTXKIT_ACCEPTANCE_FIGURES=1` prints the figures.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { anthropicRuleViolation, MAX_CACHE_BREAKPOINTS } from '../testing/anthropic-request-rules.ts';
import type { FakeAnthropicBlock } from '../testing/fake-provider-server-replies.ts';
import { type RunningProxy, startProxyServer } from './start-proxy-server.ts';
import {
  type AnthropicRulesUpstream,
  type AnthropicUpstreamRequest,
  type RulesAnswer,
  startAnthropicRulesUpstream,
} from './testing/anthropic-rules-upstream.ts';
import { capturingLogger } from './testing/capturing-logger.ts';
import {
  CLAUDE_CODE_BETAS,
  CLAUDE_CODE_MAX_TOKENS,
  CLAUDE_CODE_MODEL,
  CLAUDE_CODE_THINKING,
  claudeCodeSession,
  claudeCodeSystem,
  claudeCodeTools,
  type SessionStep,
} from './testing/claude-code-session.ts';

const WINDOW = 65_536;
const KEY = 'sk-ant-api03-claudeCodeSession-5b9e';
const TIMEOUT_MS = 180_000;
/** The header the SDK sends the betas in. */
const BETA_HEADER = CLAUDE_CODE_BETAS.join(',');
/** Results the model reads back in full once ctxkit has offloaded them. */
const READ_BACKS = 2;
const OVER_WINDOW = ['prompt is too long: ', 'input length and `max_tokens` exceed context limit: '];

/** The default policy held to a 64k window, as `ctxkit serve` is with a policy file saying so. */
const POLICY: Policy = { ...PRESETS.default, budget: { ...PRESETS.default.budget, contextWindow: WINDOW } };

let upstream: AnthropicRulesUpstream;
let direct: AnthropicRulesUpstream;
let proxy: RunningProxy;

beforeAll(async () => {
  upstream = await startAnthropicRulesUpstream({ window: WINDOW });
  // Its own records; the same signer, so it takes the thinking the first one issued.
  direct = await startAnthropicRulesUpstream({ window: WINDOW, signer: upstream.signer });
  const store = createMemorySessionStore();
  proxy = await startProxyServer({
    manager: createContextManager({ policy: POLICY, store, blobs: createMemoryBlobStore() }),
    upstream: 'http://127.0.0.1:9/v1',
    upstreamAnthropic: upstream.baseUrl,
    detectWindow: false,
    logger: capturingLogger().logger,
    sessions: store,
  });
});

afterAll(async () => {
  await proxy?.close(0);
  await upstream?.close();
  await direct?.close();
});

interface ClientCall {
  step: SessionStep;
  url: string;
  /** The body the client sent, as JSON text. */
  body: string;
  stream: boolean;
  status: number;
  answer: ContentBlock[];
  /** What the upstream received for this call: the request, and any read-back rounds after it. */
  upstream: AnthropicUpstreamRequest[];
}

describe('a Claude Code session through ctxkit serve, against an upstream enforcing Anthropic’s rules at 64k', () => {
  let calls: ClientCall[] = [];
  let sent: AnthropicUpstreamRequest[] = [];

  beforeAll(async () => {
    calls = await runSession();
    sent = calls.flatMap((call) => call.upstream);
  }, TIMEOUT_MS);

  it('answers every request, streamed and not, with what the model said', () => {
    expect(calls.length).toBeGreaterThanOrEqual(30);
    expect(new Set(calls.map((call) => call.stream))).toEqual(new Set([true, false]));
    for (const [index, call] of calls.entries()) {
      expect(call.status, `request ${index}`).toBe(200);
      const said = call.step.answer.map((block) => block.type);
      // A streamed read-back round's thinking and words reach the client before the answer (its call
      // does not); a non-streamed answer is the last round's message alone.
      const rounds = call.stream ? call.upstream.length - 1 : 0;
      expect(call.answer.map((block) => block.type)).toEqual([
        ...Array.from({ length: rounds }).flatMap(() => ['thinking', 'text']),
        ...said,
      ]);
      for (const block of call.answer) {
        if (block.type === 'thinking')
          expect(upstream.signer.verify(block.thinking, block.signature)).toBe(true);
        if (block.type === 'redacted_thinking') expect(upstream.signer.issued(block.data)).toBe(true);
      }
    }
    // Read back once streamed, once not.
    const readBack = calls.filter((call) => call.upstream.length > 1);
    expect(readBack.map((call) => call.stream).sort()).toEqual([false, true]);
  });

  it('sends the upstream only requests it takes: never over its window, never against its rules', () => {
    expect(upstream.requests).toHaveLength(sent.length);
    expect(sent.filter((request) => request.refusal !== undefined).map((request) => request.refusal)).toEqual(
      [],
    );
    for (const request of sent) {
      expect(request.inputTokens + request.maxTokens).toBeLessThanOrEqual(WINDOW);
      expect(anthropicRuleViolation(request.body, { signer: upstream.signer })).toBeUndefined();
      expect(cacheBreakpoints(request.body)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
    }
    // The history outgrew the window many times over, so the proxy had work to do.
    expect(Math.max(...sent.map((request) => request.inputTokens))).toBeGreaterThan(WINDOW / 2);
  });

  it('forwards the anthropic-beta header, the beta query and the thinking setting on every request', () => {
    expect(calls.map((call) => new URL(call.url).search)).toEqual(calls.map(() => '?beta=true'));
    for (const request of sent) {
      expect(request.search).toBe('?beta=true');
      expect(request.headers['anthropic-beta']).toBe(BETA_HEADER);
      expect(request.body.thinking).toEqual(CLAUDE_CODE_THINKING);
    }
  });

  it('keeps the last assistant message of a tool loop with its thinking, byte for byte', () => {
    let loops = 0;
    for (const [index, call] of calls.entries()) {
      const client = JSON.parse(call.body) as { messages: MessageParam[] };
      if (!endsWithResults(client.messages)) continue;
      loops += 1;
      const [first, ...rounds] = call.upstream;
      const messages = (first?.body.messages ?? []) as MessageParam[];
      expect(thinkingOf(lastAssistant(messages)).length, `request ${index}`).toBeGreaterThan(0);
      expect(JSON.stringify(thinkingOf(lastAssistant(messages)))).toBe(
        JSON.stringify(thinkingOf(lastAssistant(client.messages))),
      );
      // A read-back round continues the loop with the model's own turn, its thinking first.
      for (const round of rounds) {
        const turn = lastAssistant(round.body.messages as MessageParam[]);
        expect(Array.isArray(turn?.content) && turn.content[0]?.type).toBe('thinking');
      }
    }
    expect(loops).toBeGreaterThan(20);
  });

  it('overflows the same upstream on many of the same requests sent without the proxy', async () => {
    for (const call of calls) {
      const response = await fetch(`${direct.baseUrl}/v1/messages?beta=true`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'anthropic-version': '2023-06-01',
          'anthropic-beta': BETA_HEADER,
          'x-api-key': KEY,
        },
        body: call.body,
      });
      await response.text();
    }
    const refusals = direct.requests.map((request) => request.refusal);
    const overWindow = (refusal: string | undefined) =>
      refusal !== undefined && OVER_WINDOW.some((start) => refusal.startsWith(start));
    const overflowed = refusals.filter(overWindow);
    // Nothing but the window: the session itself keeps every other rule.
    expect(refusals.filter((refusal) => refusal !== undefined && !overWindow(refusal))).toEqual([]);
    expect(overflowed.length).toBeGreaterThanOrEqual(calls.length / 2);
    if (process.env.CTXKIT_ACCEPTANCE_FIGURES)
      process.stdout.write(
        `${JSON.stringify({
          window: WINDOW,
          clientRequests: calls.length,
          upstreamRequests: sent.length,
          maxUpstreamInput: Math.max(...sent.map((request) => request.inputTokens)),
          maxUpstreamInputPlusMaxTokens: Math.max(
            ...sent.map((request) => request.inputTokens + request.maxTokens),
          ),
          maxDirectInput: Math.max(...direct.requests.map((request) => request.inputTokens)),
          directOverflowed: overflowed.length,
        })}\n`,
      );
  });
});

/** The session, request by request, as Claude Code sends it: the history grows by each answer and its results. */
async function runSession(): Promise<ClientCall[]> {
  const calls: ClientCall[] = [];
  let sent: { url: string; body: string; status: number } | undefined;
  const client = new Anthropic({
    baseURL: proxy.url,
    apiKey: KEY,
    maxRetries: 0,
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      sent = {
        url: input instanceof Request ? input.url : String(input),
        body: typeof init?.body === 'string' ? init.body : '',
        status: response.status,
      };
      return response;
    }) as typeof fetch,
  });
  const system = claudeCodeSystem();
  const tools = claudeCodeTools();
  const read = new Set<string>();
  const history: MessageParam[] = [];
  for (const turn of claudeCodeSession()) {
    history.push({ role: 'user', content: [{ type: 'text', text: turn.prompt }] });
    for (const step of turn.steps) {
      upstream.answerWith(readingBack(step.answer, read));
      const from = upstream.requests.length;
      const stream = calls.length % 2 === 1;
      const params = {
        betas: CLAUDE_CODE_BETAS,
        metadata: { user_id: 'user_3f0c_account_9a1e_session_42d7' },
        model: CLAUDE_CODE_MODEL,
        max_tokens: CLAUDE_CODE_MAX_TOKENS,
        thinking: CLAUDE_CODE_THINKING,
        system,
        tools,
        messages: withBreakpoints(history),
      } as unknown as Anthropic.Beta.MessageCreateParamsNonStreaming;
      // The beta endpoint, as Claude Code calls it: `?beta=true`, the betas in `anthropic-beta`.
      const options = { query: { beta: 'true' } };
      const answer = stream
        ? await client.beta.messages.stream(params, options).finalMessage()
        : await client.beta.messages.create(params, options);
      if (!sent) throw new Error('the client made no request');
      const content = answer.content as ContentBlock[];
      calls.push({ ...sent, step, stream, answer: content, upstream: upstream.requests.slice(from) });
      sent = undefined;
      history.push({ role: 'assistant', content });
      if (step.results.length > 0)
        history.push({
          role: 'user',
          content: step.results.map((result) => ({
            type: 'tool_result' as const,
            tool_use_id: result.id,
            content: result.content,
          })),
        });
    }
  }
  return calls;
}

/**
 * The step's answer, except that the first READ_BACKS times ctxkit offers its read-back tool with a
 * result offloaded, the model first reads that result in full (ctxkit answers the call itself).
 */
function readingBack(answer: readonly FakeAnthropicBlock[], read: Set<string>): RulesAnswer {
  return (body) => {
    const offered =
      Array.isArray(body.tools) && body.tools.some((tool) => tool?.name === READ_OFFLOADED_TOOL);
    const refs = JSON.stringify(body.messages).match(/large_tool_results\/[A-Za-z0-9_-]+/g) ?? [];
    const ref = refs.find((seen) => !read.has(seen));
    const last = (body.messages as MessageParam[]).at(-1);
    const answering = JSON.stringify(last?.content).includes('toolu_read_');
    if (!offered || ref === undefined || read.size >= READ_BACKS || answering) return answer;
    read.add(ref);
    return [
      { type: 'thinking', thinking: `The output in ${ref} was cut; I need all of it.` },
      { type: 'text', text: 'Reading the full output first.' },
      { type: 'tool_use', id: `toolu_read_${read.size}`, name: READ_OFFLOADED_TOOL, input: { ref } },
    ];
  };
}

/** The history with `cache_control` on the last block of its two newest user messages, as Claude Code marks it. */
function withBreakpoints(history: readonly MessageParam[]): MessageParam[] {
  const marked = new Set(
    history.flatMap((message, index) => (message.role === 'user' ? [index] : [])).slice(-2),
  );
  return history.map((message, index) => {
    if (!marked.has(index) || !Array.isArray(message.content)) return message;
    const content = [...message.content];
    const last = content.at(-1);
    if (last) content[content.length - 1] = { ...last, cache_control: { type: 'ephemeral' } } as typeof last;
    return { ...message, content } as MessageParam;
  });
}

function endsWithResults(messages: readonly MessageParam[]): boolean {
  const last = messages.at(-1);
  return (
    last?.role === 'user' &&
    Array.isArray(last.content) &&
    last.content.some((block) => block.type === 'tool_result')
  );
}

function lastAssistant(messages: readonly MessageParam[]): MessageParam | undefined {
  return messages.findLast((message) => message.role === 'assistant');
}

function thinkingOf(message: MessageParam | undefined): unknown[] {
  return Array.isArray(message?.content)
    ? message.content.filter((block) => block.type === 'thinking' || block.type === 'redacted_thinking')
    : [];
}

function cacheBreakpoints(body: Record<string, unknown>): number {
  return (JSON.stringify(body).match(/"cache_control":\{/g) ?? []).length;
}
