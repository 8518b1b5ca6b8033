import { describe, expect, it } from 'vitest';
import { EmptyAnthropicMessageError } from '../core/errors/index.ts';
import type { Message, Part } from '../core/message.ts';
import { toAnthropicMessage } from './anthropic-message.ts';
import {
  ANTHROPIC_RAW_ARGS_KEY,
  fromAnthropicMessages,
  fromAnthropicResponse,
  toAnthropicMessages,
  usageFromAnthropic,
} from './anthropic-messages.ts';
import { catchInvalidInput } from './testing/catch-invalid-input.ts';

const PNG_B64 = 'iVBORw0KGgo=';

describe('fromAnthropicMessages', () => {
  it('reads a string system prompt or text blocks', () => {
    expect(
      fromAnthropicMessages({ system: 'be brief', messages: [{ role: 'user', content: 'hi' }] }).system,
    ).toEqual(['be brief']);
    const blocks = {
      system: [
        { type: 'text', text: 'a', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'b' },
      ],
      messages: [{ role: 'user', content: 'hi' }],
    };
    const transcript = fromAnthropicMessages(blocks);
    expect(transcript.system).toEqual(['a', 'b']);
    expect(toAnthropicMessages(transcript).system).toEqual([
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ]);
  });

  it('splits a user turn with several tool results and text, and merges it back', () => {
    const request = {
      messages: [
        { role: 'user', content: 'two lookups please' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'On it.' },
            { type: 'tool_use', id: 'tu_1', name: 'lookup', input: { q: 'a' } },
            { type: 'tool_use', id: 'tu_2', name: 'lookup', input: { q: 'b' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'tu_1', content: 'A' },
            { type: 'tool_result', tool_use_id: 'tu_2', content: 'failed', is_error: true },
            { type: 'text', text: 'thanks' },
          ],
        },
      ],
    };
    const transcript = fromAnthropicMessages(request);
    expect(transcript.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
    ]);
    expect(transcript.messages[3]?.parts).toEqual([
      { type: 'tool-result', callId: 'tu_2', name: 'lookup', content: 'failed', isError: true },
    ]);
    expect(transcript.messages[1]?.parts[1]).toEqual({
      type: 'tool-call',
      callId: 'tu_1',
      name: 'lookup',
      args: '{"q":"a"}',
    });
    expect(toAnthropicMessages(transcript)).toEqual(request);
  });

  it('keeps images inside tool results as media refs, with bytes only in a data: URL', () => {
    const request = {
      messages: [
        { role: 'assistant', content: [{ type: 'tool_use', id: 's', name: 'screenshot', input: {} }] },
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 's',
              content: [
                { type: 'text', text: 'here it is' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } },
              ],
            },
          ],
        },
      ],
    };
    const transcript = fromAnthropicMessages(request);
    const result = transcript.messages[1]?.parts[0];
    expect(result).toEqual({
      type: 'tool-result',
      callId: 's',
      name: 'screenshot',
      content: 'here it is',
      isError: false,
      media: [{ type: 'media', mediaType: 'image/png', ref: `data:image/png;base64,${PNG_B64}` }],
    });
    expect(toAnthropicMessages(transcript)).toEqual(request);
  });

  it('maps user images and documents by source kind', () => {
    const request = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'url', url: 'https://x.test/a.png' } },
            { type: 'image', source: { type: 'file', file_id: 'file_1' } },
            {
              type: 'document',
              source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
              title: 'r.pdf',
            },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain 100% text' } },
            { type: 'text', text: 'read these' },
          ],
        },
      ],
    };
    const transcript = fromAnthropicMessages(request);
    expect(transcript.messages[0]?.parts).toEqual([
      { type: 'media', mediaType: 'image/png', ref: 'https://x.test/a.png' },
      { type: 'media', mediaType: 'image/*', ref: 'file-id:file_1' },
      {
        type: 'media',
        mediaType: 'application/pdf',
        ref: 'data:application/pdf;base64,JVBERi0=',
        name: 'r.pdf',
      },
      { type: 'media', mediaType: 'text/plain', ref: 'data:text/plain,plain%20100%25%20text' },
      { type: 'text', text: 'read these' },
    ]);
    expect(toAnthropicMessages(transcript)).toEqual(request);
  });

  it('keeps thinking with its signature and redacted thinking', () => {
    const request = {
      messages: [
        { role: 'user', content: 'think' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig==' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'text', text: 'answer' },
          ],
        },
      ],
    };
    const transcript = fromAnthropicMessages(request);
    expect(transcript.messages[1]?.parts).toEqual([
      { type: 'reasoning', text: 'hmm', signature: 'sig==' },
      { type: 'reasoning', text: '', redactedData: 'opaque' },
      { type: 'text', text: 'answer' },
    ]);
    expect(toAnthropicMessages(transcript)).toEqual(request);
  });

  it('carries arguments that are not a JSON object losslessly', () => {
    const transcript = fromAnthropicMessages({ messages: [{ role: 'user', content: 'x' }] });
    for (const args of ['', 'not json', '[1,2]', '"str"', '{"a": 1}']) {
      const withCall = {
        system: [],
        messages: [
          ...transcript.messages,
          {
            id: 'c',
            seq: 1,
            role: 'assistant' as const,
            parts: [{ type: 'tool-call' as const, callId: 'c', name: 'f', args }],
            meta: {},
          },
        ],
      };
      const wire = toAnthropicMessages(withCall);
      const content = wire.messages[1]?.content;
      const block = Array.isArray(content) ? content[0] : undefined;
      const back = fromAnthropicMessages(wire).messages[1]?.parts[0];
      if (args === '{"a": 1}') {
        expect(block).toMatchObject({ input: { a: 1 } });
        expect(back).toMatchObject({ args: '{"a":1}' });
      } else {
        expect(block).toMatchObject({ input: { [ANTHROPIC_RAW_ARGS_KEY]: args } });
        expect(back).toMatchObject({ args });
      }
    }
  });

  it('writes a system note as a plain user message (no system role inside Anthropic history)', () => {
    const wire = toAnthropicMessages({
      system: ['s'],
      messages: [
        { id: 'a', seq: 0, role: 'user', parts: [{ type: 'text', text: 'hi' }], meta: {} },
        {
          id: 'b',
          seq: 1,
          role: 'user',
          parts: [{ type: 'text', text: 'note' }],
          meta: { kind: 'system_note' },
        },
      ],
    });
    expect(wire).toEqual({
      system: 's',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'user', content: 'note' },
      ],
    });
  });
});

describe('empty messages', () => {
  const message = (seq: number, role: Message['role'], parts: Part[]): Message => ({
    id: `m${seq}`,
    seq,
    role,
    parts,
    meta: {},
  });

  it('are left out of a request: the API refuses empty content and joins the turns around them', () => {
    const wire = toAnthropicMessages({
      system: [],
      messages: [
        message(0, 'user', [{ type: 'text', text: 'hi' }]),
        message(1, 'assistant', []),
        message(2, 'user', [{ type: 'text', text: 'still there?' }]),
        message(3, 'assistant', [{ type: 'text', text: 'yes' }]),
        message(4, 'tool', []),
        message(5, 'assistant', []),
      ],
    });
    expect(wire.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'user', content: 'still there?' },
      { role: 'assistant', content: 'yes' },
    ]);
  });

  it('has no Anthropic form one at a time: a typed error says to skip it', () => {
    for (const role of ['assistant', 'user', 'tool'] as const) {
      expect(() => toAnthropicMessage({ role, parts: [] })).toThrow(EmptyAnthropicMessageError);
    }
    try {
      toAnthropicMessage({ role: 'assistant', parts: [] });
    } catch (error) {
      expect(error).toMatchObject({ code: 'empty_message', details: { role: 'assistant' } });
    }
    expect(toAnthropicMessage({ role: 'assistant', parts: [{ type: 'text', text: 'ok' }] })).toEqual({
      role: 'assistant',
      content: 'ok',
    });
  });
});

describe('Anthropic usage', () => {
  it('adds cache reads and writes into inputTokens and reports them apart', () => {
    expect(
      usageFromAnthropic({
        input_tokens: 50,
        output_tokens: 20,
        cache_read_input_tokens: 1000,
        cache_creation_input_tokens: 200,
      }),
    ).toEqual({ inputTokens: 1250, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 200 });
    expect(usageFromAnthropic({ input_tokens: 5, output_tokens: 1, cache_read_input_tokens: null })).toEqual({
      inputTokens: 5,
      outputTokens: 1,
    });
  });

  it('converts a response into a message with usage and model', () => {
    const message = fromAnthropicResponse({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'thinking', thinking: 'x', signature: 's' },
        { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } },
      ],
      stop_reason: 'tool_use',
      usage: { input_tokens: 3, output_tokens: 4 },
    });
    expect(message).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'x', signature: 's' },
        { type: 'tool-call', callId: 't', name: 'f', args: '{"a":1}' },
      ],
      meta: { model: 'claude-sonnet-4-5' },
      usage: { inputTokens: 3, outputTokens: 4 },
    });
  });
});

describe('fromAnthropicMessages on malformed input', () => {
  it('names the field of a bad block', () => {
    const error = catchInvalidInput(() =>
      fromAnthropicMessages(
        {
          messages: [
            { role: 'user', content: 'x' },
            { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 3, input: {} }] },
          ],
        },
        { file: 'req.json' },
      ),
    );
    expect(error).toMatchObject({ file: 'req.json', field: 'messages[1].content[0].name' });
  });

  it('rejects a tool_result in an assistant message and an unknown role', () => {
    expect(
      catchInvalidInput(() =>
        fromAnthropicMessages({
          messages: [
            { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'y' }] },
          ],
        }),
      ),
    ).toMatchObject({ field: 'messages[0].content[0].type' });
    expect(
      catchInvalidInput(() => fromAnthropicMessages({ messages: [{ role: 'system', content: 'x' }] })),
    ).toMatchObject({ field: 'messages[0].role' });
  });

  it('requires a messages array', () => {
    expect(catchInvalidInput(() => fromAnthropicMessages({ system: 'x' }))).toMatchObject({
      field: 'messages',
    });
  });
});
