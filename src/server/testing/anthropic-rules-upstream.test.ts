import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CLAUDE_TOKENS_PER_O200K,
  createAnthropicTokenCounter,
  TOOL_USE_SYSTEM_PROMPT_TOKENS,
} from '../../testing/anthropic-token-count.ts';
import { type AnthropicRulesUpstream, startAnthropicRulesUpstream } from './anthropic-rules-upstream.ts';

let upstream: AnthropicRulesUpstream | undefined;
afterEach(async () => {
  await upstream?.close();
  upstream = undefined;
});

const post = (body: unknown) =>
  fetch(`${upstream?.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });

describe('the Anthropic rules upstream', () => {
  it('counts with o200k scaled to Claude’s tokenizer, plus the tool-use prompt when tools are offered', () => {
    const count = createAnthropicTokenCounter();
    const text = 'export function parse(input: string): Token[] { return scan(input); }\n'.repeat(50);
    const bare = count({ messages: [{ role: 'user', content: text }] });
    expect(bare).toBeGreaterThan(countTokens(text) * CLAUDE_TOKENS_PER_O200K);
    expect(bare).toBeLessThan(countTokens(text) * CLAUDE_TOKENS_PER_O200K + 20);
    const tools = [{ name: 'Read', input_schema: { type: 'object' } }];
    expect(count({ tools, messages: [{ role: 'user', content: text }] })).toBeGreaterThan(
      bare + TOOL_USE_SYSTEM_PROMPT_TOKENS,
    );
  });

  it('refuses a request over its window with the API’s bodies, and records every request', async () => {
    upstream = await startAnthropicRulesUpstream({ window: 2_000 });
    const long = 'the parser keeps every token it reads before the end of input. '.repeat(200);
    const tooLong = await post({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: long }],
    });
    expect(tooLong.status).toBe(400);
    const body = (await tooLong.json()) as { type: string; error: { type: string; message: string } };
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/^prompt is too long: \d+ tokens > 2000 maximum$/);

    const withReserve = await post({
      model: 'claude-sonnet-4-6',
      max_tokens: 1_995,
      messages: [{ role: 'user', content: 'short question' }],
    });
    expect(((await withReserve.json()) as { error: { message: string } }).error.message).toMatch(
      /^input length and `max_tokens` exceed context limit: \d+ \+ 1995 > 2000, decrease input length or `max_tokens` and try again$/,
    );

    const fits = await post({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(fits.status).toBe(200);
    const message = (await fits.json()) as { usage: { input_tokens: number } };
    expect(upstream.requests.map((request) => request.refusal === undefined)).toEqual([false, false, true]);
    expect(message.usage.input_tokens).toBe(upstream.requests[2]?.inputTokens);
  });

  it('answers with what it is told, its thinking signed, and refuses that thinking changed', async () => {
    upstream = await startAnthropicRulesUpstream({ window: 50_000 });
    upstream.answerWith([
      { type: 'thinking', thinking: 'Read the lexer first.' },
      { type: 'tool_use', id: 'toolu_01', name: 'Read', input: { file_path: '/src/lexer.ts' } },
    ]);
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 2_048,
      thinking: { type: 'enabled', budget_tokens: 1_024 },
      tools: [{ name: 'Read', input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'Fix the lexer.' }],
    };
    const first = (await (await post(request)).json()) as { content: Array<Record<string, unknown>> };
    const [thinking, call] = first.content;
    expect(upstream.signer.verify(String(thinking?.thinking), String(thinking?.signature))).toBe(true);
    const next = (content: unknown[]) =>
      post({
        ...request,
        messages: [
          ...request.messages,
          { role: 'assistant', content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'export {}' }] },
        ],
      });
    expect((await next([thinking, call])).status).toBe(200);
    expect((await next([{ ...thinking, thinking: 'Read the parser first.' }, call])).status).toBe(400);
    expect(upstream.requests.at(-1)?.refusal).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
  });
});
