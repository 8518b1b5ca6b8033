import { describe, expect, it } from 'vitest';
import { anthropicRuleViolation, THINKING_FIRST_MESSAGE } from './anthropic-request-rules.ts';
import { createThinkingSigner } from './thinking-signer.ts';

const signer = createThinkingSigner('rules-test-secret');
const call = (id: string) => ({ type: 'tool_use', id, name: 'Read', input: { file_path: '/a.ts' } });
const result = (id: string, content: unknown = 'file text') => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const thinking = (text: string) => ({ type: 'thinking', thinking: text, signature: signer.sign(text) });
const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  messages,
  ...extra,
});
const check = (messages: unknown[], extra: Record<string, unknown> = {}) =>
  anthropicRuleViolation(body(messages, extra), { signer });

describe('Anthropic request rules', () => {
  it('accept a tool loop with signed thinking, consecutive user messages joined', () => {
    expect(
      check(
        [
          { role: 'user', content: 'fix the bug' },
          { role: 'user', content: [{ type: 'text', text: 'in a.ts' }] },
          { role: 'assistant', content: [thinking('look first'), call('toolu_1'), call('toolu_2')] },
          { role: 'user', content: [result('toolu_1'), result('toolu_2', [{ type: 'text', text: 'x' }])] },
          {
            role: 'assistant',
            content: [{ type: 'redacted_thinking', data: signer.redactedData() }, call('t3')],
          },
          { role: 'user', content: [result('t3'), { type: 'text', text: 'and also…' }] },
        ],
        { thinking: { type: 'enabled', budget_tokens: 2048 } },
      ),
    ).toBeUndefined();
  });

  it('refuse a first message that is not the user’s', () => {
    expect(check([{ role: 'assistant', content: 'hi' }])).toBe(
      'messages: first message must use the "user" role',
    );
  });

  it('refuse empty content and empty text blocks, except an empty final assistant message', () => {
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: '' },
      ]),
    ).toBeUndefined();
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [] },
        { role: 'user', content: 'b' },
      ]),
    ).toBe(
      'messages.1: all messages must have non-empty content except for the optional final assistant message',
    );
    expect(check([{ role: 'user', content: [{ type: 'text', text: '' }] }])).toBe(
      'messages: text content blocks must be non-empty',
    );
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [call('t1')] },
        { role: 'user', content: [result('t1', [{ type: 'text', text: '' }])] },
      ]),
    ).toBe('messages: text content blocks must be non-empty');
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [call('t1')] },
        { role: 'user', content: [{ ...result('t1', ''), is_error: true }] },
      ]),
    ).toBe('messages.2.content.0.tool_result: content cannot be empty if `is_error` is true');
  });

  it('refuse a fifth cache_control breakpoint, tools, system and messages counted together', () => {
    const cached = { cache_control: { type: 'ephemeral' } };
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'a', ...cached }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b', ...cached }] },
      { role: 'user', content: [{ type: 'text', text: 'c', ...cached }] },
    ];
    const tools = [{ name: 'Read', input_schema: { type: 'object' }, ...cached }];
    expect(check(messages, { tools })).toBeUndefined();
    expect(check(messages, { tools, system: [{ type: 'text', text: 's', ...cached }] })).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
  });

  it('count a top-level cache_control (automatic caching) as one of the four', () => {
    const cached = { cache_control: { type: 'ephemeral' } };
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'a', ...cached }] },
      { role: 'assistant', content: [{ type: 'text', text: 'b', ...cached }] },
      { role: 'user', content: [{ type: 'text', text: 'c', ...cached }] },
    ];
    expect(check(messages, cached)).toBeUndefined();
    expect(check(messages, { ...cached, system: [{ type: 'text', text: 's', ...cached }] })).toBe(
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
    );
  });

  it('refuse cache_control on a thinking or redacted thinking block', () => {
    const cached = { cache_control: { type: 'ephemeral' } };
    const signed = thinking('hm');
    expect(
      check([
        { role: 'user', content: 'a' },
        {
          role: 'assistant',
          content: [
            { ...signed, ...cached },
            { type: 'text', text: 'b' },
          ],
        },
        { role: 'user', content: 'c' },
      ]),
    ).toBe('messages.1.content.0.thinking.cache_control: Extra inputs are not permitted');
    expect(
      check([
        { role: 'user', content: 'a' },
        {
          role: 'assistant',
          content: [signed, { type: 'redacted_thinking', data: signer.redactedData(), ...cached }],
        },
        { role: 'user', content: 'c' },
      ]),
    ).toBe('messages.1.content.1.redacted_thinking.cache_control: Extra inputs are not permitted');
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [signed, { type: 'text', text: 'b', ...cached }] },
        { role: 'user', content: 'c' },
      ]),
    ).toBeUndefined();
  });

  it('refuse a tool call without its result next, and a result without its call before', () => {
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [call('toolu_1'), call('toolu_2')] },
        { role: 'user', content: [result('toolu_1')] },
      ]),
    ).toBe(
      'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
    );
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'ok' },
        { role: 'user', content: [{ type: 'text', text: 'b' }, result('toolu_9')] },
      ]),
    ).toBe(
      'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9. Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
    );
  });

  it('refuse thinking changed by one character, a signature moved to another block, and made-up redacted data', () => {
    const signed = thinking('I should read a.ts');
    const loop = (first: unknown) => [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [first, call('t1')] },
      { role: 'user', content: [result('t1')] },
    ];
    expect(check(loop(signed))).toBeUndefined();
    expect(check(loop({ ...signed, thinking: 'I should read a.ts ' }))).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    expect(check(loop({ ...signed, signature: thinking('other').signature }))).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
    expect(check(loop({ type: 'thinking', thinking: 'x' }))).toBe(
      'messages.1.content.0.thinking.signature: Field required',
    );
    expect(check(loop({ type: 'redacted_thinking', data: 'RW5jcnlwdGVk' }))).toBe(
      'messages.1.content.0: Invalid `data` in `redacted_thinking` block',
    );
    expect(check(loop({ ...signed, signature: createThinkingSigner('another').sign(signed.thinking) }))).toBe(
      'messages.1.content.0: Invalid `signature` in `thinking` block',
    );
  });

  it('with thinking on, refuse a tool loop whose last assistant message does not start with its thinking', () => {
    const enabled = { thinking: { type: 'enabled', budget_tokens: 2048 } };
    const loop = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [thinking('t'), call('t1')] },
      { role: 'user', content: [result('t1')] },
      { role: 'assistant', content: [call('t2')] },
      { role: 'user', content: [result('t2')] },
    ];
    expect(check(loop, enabled)).toBe(
      `messages.3.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. ${THINKING_FIRST_MESSAGE}`,
    );
    // Without thinking, or once the user speaks again, the earlier thinking may go.
    expect(check(loop)).toBeUndefined();
    expect(
      check(
        [...loop.slice(0, 4), { role: 'user', content: [result('t2'), { type: 'text', text: 'x' }] }],
        enabled,
      ),
    ).toBe(
      `messages.3.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. ${THINKING_FIRST_MESSAGE}`,
    );
    expect(
      check([...loop, { role: 'assistant', content: 'done' }, { role: 'user', content: 'next' }], enabled),
    ).toBeUndefined();
  });

  it('refuse an assistant message whose thinking does not come first, and thinking in a prefill with thinking off', () => {
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, thinking('t'), call('t1')] },
        { role: 'user', content: [result('t1')] },
      ]),
    ).toBe(
      'messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.',
    );
    // Two assistant messages in a row are one to the API: the earlier one's text comes first.
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'Noted.' },
        { role: 'assistant', content: [thinking('t'), call('t1')] },
        { role: 'user', content: [result('t1')] },
      ]),
    ).toBe(
      'messages.1.content.0: If an assistant message contains any thinking blocks, the first block must be `thinking` or `redacted_thinking`. Found `text`.',
    );
    expect(
      check([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: [thinking('t')] },
      ]),
    ).toBe(
      'messages.1.content.0: When thinking is disabled, an `assistant` message in the final position cannot contain `thinking`. To use thinking blocks, enable `thinking` in your request.',
    );
  });
});
