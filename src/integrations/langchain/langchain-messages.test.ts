import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  SystemMessage,
  ToolMessage,
} from '@langchain/core/messages';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../core/errors/index.ts';
import type { MediaPart, MessageInput, Part, Usage } from '../../core/message.ts';
import { contentId } from '../../core/stable-id.ts';
import {
  fromLangChainMessage,
  fromLangChainMessages,
  LANGCHAIN_SYSTEM_KIND,
  toLangChainMessage,
  usageFromLangChain,
  usageToLangChain,
} from './langchain-messages.ts';

const text = fc.string({ maxLength: 40 });
const nonEmpty = fc.string({ minLength: 1, maxLength: 40 });
const base64 = fc
  .uint8Array({ minLength: 1, maxLength: 24 })
  .map((bytes) => Buffer.from(bytes).toString('base64'));

/** Media as ctxkit keeps it: a URL, a `data:` URL of the part's own type, or a provider file id. */
const media: fc.Arbitrary<MediaPart> = fc
  .record({
    mediaType: fc.constantFrom(
      'image/png',
      'image/*',
      'audio/wav',
      'audio/*',
      'video/mp4',
      'video/*',
      'application/pdf',
      'application/octet-stream',
      'text/plain',
    ),
    source: fc.oneof(
      fc.webUrl().map((url) => ({ kind: 'url' as const, value: url })),
      base64.map((value) => ({ kind: 'data' as const, value })),
      fc.stringMatching(/^file-[a-z0-9]{1,12}$/).map((value) => ({ kind: 'file' as const, value })),
    ),
    detail: fc.option(fc.constantFrom('low', 'high', 'auto'), { nil: undefined }),
    name: fc.option(nonEmpty, { nil: undefined }),
  })
  .map(({ mediaType, source, detail, name }) => ({
    type: 'media' as const,
    mediaType,
    ref:
      source.kind === 'url'
        ? source.value
        : source.kind === 'data'
          ? `data:${mediaType};base64,${source.value}`
          : `file-id:${source.value}`,
    ...(detail !== undefined && { detail }),
    ...(name !== undefined && { name }),
  }));

/** Tool arguments as the converter writes them: JSON text of an object. */
const args = fc
  .dictionary(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
  .map((value) => JSON.stringify(JSON.parse(JSON.stringify(value))));

const usage: fc.Arbitrary<Usage> = fc.record(
  {
    inputTokens: fc.nat(1_000_000),
    outputTokens: fc.nat(100_000),
    cacheReadTokens: fc.nat(1_000_000),
    cacheWriteTokens: fc.nat(100_000),
    reasoningTokens: fc.nat(100_000),
  },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
);

const userMessage: fc.Arbitrary<MessageInput> = fc.record({
  role: fc.constant('user' as const),
  parts: fc.array(
    fc.oneof(
      text.map((t): Part => ({ type: 'text', text: t })),
      media,
    ),
    { maxLength: 4 },
  ),
  meta: fc.constantFrom({}, { kind: LANGCHAIN_SYSTEM_KIND }),
});

const reasoning: fc.Arbitrary<Part> = fc.oneof(
  fc.record(
    { type: fc.constant('reasoning' as const), text, signature: nonEmpty },
    { requiredKeys: ['type', 'text'] },
  ),
  nonEmpty.map((data): Part => ({ type: 'reasoning', text: '', redactedData: data })),
);

const assistantMessage: fc.Arbitrary<MessageInput> = fc
  .record({
    content: fc.array(
      fc.oneof(
        text.map((t): Part => ({ type: 'text', text: t })),
        reasoning,
        media,
      ),
      {
        maxLength: 4,
      },
    ),
    calls: fc.uniqueArray(
      fc.record({ callId: fc.stringMatching(/^call_[a-z0-9]{1,8}$/), name: nonEmpty, args }),
      { maxLength: 3, selector: (call) => call.callId },
    ),
    usage: fc.option(usage, { nil: undefined }),
    model: fc.option(nonEmpty, { nil: undefined }),
  })
  .map(({ content, calls, usage: reported, model }) => ({
    role: 'assistant' as const,
    parts: [...content, ...calls.map((call): Part => ({ type: 'tool-call', ...call }))],
    meta: model === undefined ? {} : { model },
    ...(reported && { usage: reported }),
  }));

const toolMessage: fc.Arbitrary<MessageInput> = fc
  .record({
    callId: fc.stringMatching(/^call_[a-z0-9]{1,8}$/),
    name: fc.oneof(fc.constant(''), nonEmpty),
    content: text,
    isError: fc.boolean(),
    media: fc.array(media, { maxLength: 2 }),
  })
  .map(({ media: items, ...result }) => ({
    role: 'tool' as const,
    parts: [{ type: 'tool-result' as const, ...result, ...(items.length > 0 && { media: items }) }],
    meta: {},
  }));

const anyMessage = fc.oneof(userMessage, assistantMessage, toolMessage);

describe('ctxkit → LangChain → ctxkit', () => {
  it('gives back every message kind and part kind as it was (and so the same content id)', () => {
    fc.assert(
      fc.property(anyMessage, (message) => {
        const back = fromLangChainMessage(toLangChainMessage(message));
        expect(back).toEqual(message);
        expect(contentId(back)).toBe(contentId(message));
      }),
      { numRuns: 400 },
    );
  });

  it('writes the LangChain class each role and kind stands for', () => {
    const system = toLangChainMessage({
      role: 'user',
      parts: [{ type: 'text', text: 'rules' }],
      meta: { kind: LANGCHAIN_SYSTEM_KIND },
    });
    expect(SystemMessage.isInstance(system)).toBe(true);
    expect(system.content).toBe('rules');
    expect(HumanMessage.isInstance(toLangChainMessage({ role: 'user', parts: [], meta: {} }))).toBe(true);
    const ai = toLangChainMessage({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'on it' },
        { type: 'tool-call', callId: 'c1', name: 'bash', args: '{"cmd":"ls"}' },
        { type: 'tool-call', callId: 'c2', name: 'bash', args: 'not json' },
      ],
      usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4 },
    }) as AIMessage;
    expect(ai.content).toBe('on it');
    expect(ai.tool_calls).toEqual([{ id: 'c1', name: 'bash', args: { cmd: 'ls' }, type: 'tool_call' }]);
    // Arguments that are not a JSON object are what LangChain calls an invalid tool call.
    expect(ai.invalid_tool_calls).toMatchObject([{ id: 'c2', name: 'bash', args: 'not json' }]);
    expect(ai.usage_metadata).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
      input_token_details: { cache_read: 4 },
    });
    const tool = toLangChainMessage({
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'bash', content: 'boom', isError: true }],
    }) as ToolMessage;
    expect([tool.tool_call_id, tool.name, tool.content, tool.status]).toEqual([
      'c1',
      'bash',
      'boom',
      'error',
    ]);
  });
});

describe('LangChain → ctxkit → LangChain', () => {
  const roundTrip = (message: BaseMessage) => toLangChainMessage(fromLangChainMessage(message));

  it('keeps LangChain standard shapes as they are', () => {
    const cases: BaseMessage[] = [
      new HumanMessage('plain text'),
      new HumanMessage({
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', url: 'https://example.com/a.png', mimeType: 'image/png' },
          { type: 'image', data: 'aGVsbG8=', mimeType: 'image/jpeg' },
          {
            type: 'file',
            fileId: 'file-abc',
            mimeType: 'application/pdf',
            metadata: { filename: 'spec.pdf' },
          },
          { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
          { type: 'video', url: 'https://example.com/v.mp4', mimeType: 'video/mp4' },
          { type: 'image', url: 'https://example.com/b', metadata: { detail: 'low' } },
        ],
      }),
      new SystemMessage('be careful'),
      new ToolMessage({ content: 'result text', tool_call_id: 'c1', name: 'bash', status: 'success' }),
      new ToolMessage({ content: 'failed', tool_call_id: 'c2', name: 'bash', status: 'error' }),
      new ToolMessage({
        content: [
          { type: 'text', text: 'screenshot:' },
          { type: 'image', data: 'iVBORw0=', mimeType: 'image/png' },
        ],
        tool_call_id: 'c3',
        name: 'browser',
        status: 'success',
      }),
    ];
    for (const message of cases) {
      const back = roundTrip(message);
      expect(back.type).toBe(message.type);
      expect(back.content).toEqual(message.content);
      if (ToolMessage.isInstance(message)) {
        expect(back).toMatchObject({
          tool_call_id: message.tool_call_id,
          name: message.name,
          status: message.status,
        });
      }
    }
    const ai = new AIMessage({
      content: [
        { type: 'reasoning', reasoning: 'think first', signature: 'sig-1' },
        { type: 'text', text: 'calling' },
      ],
      tool_calls: [{ id: 'c9', name: 'grep', args: { pattern: 'TODO', paths: ['src'] }, type: 'tool_call' }],
      usage_metadata: {
        input_tokens: 120,
        output_tokens: 30,
        total_tokens: 150,
        input_token_details: { cache_read: 100, cache_creation: 20 },
        output_token_details: { reasoning: 12 },
      },
      response_metadata: { model_name: 'gpt-4o' },
    });
    const back = roundTrip(ai) as AIMessage;
    expect(back.content).toEqual(ai.content);
    expect(back.tool_calls).toEqual(ai.tool_calls);
    expect(back.usage_metadata).toEqual(ai.usage_metadata);
    expect(back.response_metadata).toEqual(ai.response_metadata);
  });

  it("reads the providers' own shapes through LangChain's normalization", () => {
    // OpenAI chat completions input: image_url (a data URL and a plain URL), input_audio, file ids.
    expect(
      fromLangChainMessage(
        new HumanMessage({
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0=' } },
            { type: 'image_url', image_url: 'https://example.com/cat.jpg' },
            { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
            { type: 'file', file: { file_id: 'file-123' } },
          ],
        }),
      ).parts,
    ).toEqual([
      { type: 'text', text: 'what is this?' },
      { type: 'media', mediaType: 'image/png', ref: 'data:image/png;base64,iVBORw0=' },
      { type: 'media', mediaType: 'image/*', ref: 'https://example.com/cat.jpg' },
      { type: 'media', mediaType: 'audio/wav', ref: 'data:audio/wav;base64,UklGRg==' },
      { type: 'media', mediaType: 'application/octet-stream', ref: 'file-id:file-123' },
    ]);
    // LangChain's v0 data blocks.
    expect(
      fromLangChainMessage(
        new HumanMessage({
          content: [{ type: 'image', source_type: 'base64', data: 'R0lGOD==', mime_type: 'image/gif' }],
        }),
      ).parts,
    ).toEqual([{ type: 'media', mediaType: 'image/gif', ref: 'data:image/gif;base64,R0lGOD==' }]);
    // Anthropic: thinking with its signature, redacted thinking, tool_use blocks that restate tool_calls.
    const anthropic = new AIMessage({
      content: [
        { type: 'thinking', thinking: 'the user wants a list', signature: 'EqQBCgIYAhIM' },
        { type: 'redacted_thinking', data: 'ENCRYPTED' },
        { type: 'text', text: 'Listing.' },
        { type: 'tool_use', id: 'toolu_1', name: 'bash', input: { command: 'ls' } },
      ],
      tool_calls: [{ id: 'toolu_1', name: 'bash', args: { command: 'ls' }, type: 'tool_call' }],
      response_metadata: { model_provider: 'anthropic', model: 'claude-sonnet-4-5' },
      usage_metadata: { input_tokens: 50, output_tokens: 9, total_tokens: 59 },
    });
    expect(fromLangChainMessage(anthropic)).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'the user wants a list', signature: 'EqQBCgIYAhIM' },
        { type: 'reasoning', text: '', redactedData: 'ENCRYPTED' },
        { type: 'text', text: 'Listing.' },
        { type: 'tool-call', callId: 'toolu_1', name: 'bash', args: '{"command":"ls"}' },
      ],
      meta: { model: 'claude-sonnet-4-5' },
      usage: { inputTokens: 50, outputTokens: 9 },
    });
  });

  it('names a result after its call across a history, and refuses a message type with no role', () => {
    const history = fromLangChainMessages([
      new HumanMessage('go'),
      new AIMessage({ content: '', tool_calls: [{ id: 'c1', name: 'bash', args: {}, type: 'tool_call' }] }),
      new ToolMessage({ content: 'ok', tool_call_id: 'c1' }),
    ]);
    expect(history[2]?.parts[0]).toMatchObject({ type: 'tool-result', name: 'bash', content: 'ok' });
    expect(history[1]?.parts).toEqual([{ type: 'tool-call', callId: 'c1', name: 'bash', args: '{}' }]);
    // The converter leaves invalid tool calls out: LangChain never runs them, so no result answers them.
    const invalid = new AIMessage({
      content: 'oops',
      invalid_tool_calls: [
        { id: 'c5', name: 'bash', args: '{broken', error: 'bad json', type: 'invalid_tool_call' },
      ],
    });
    expect(fromLangChainMessage(invalid).parts).toEqual([{ type: 'text', text: 'oops' }]);
    const other = { ...new HumanMessage('x'), type: 'remove' } as unknown as BaseMessage;
    expect(() => fromLangChainMessage(other, { field: 'messages[4]' })).toThrow(InvalidInputError);
  });
});

describe('usage', () => {
  it('maps every figure both ways', () => {
    fc.assert(
      fc.property(usage, (reported) => {
        expect(usageFromLangChain(usageToLangChain(reported))).toEqual(reported);
      }),
    );
    expect(
      usageFromLangChain({
        input_tokens: 1000,
        output_tokens: 80,
        total_tokens: 1080,
        input_token_details: { cache_read: 900, cache_creation: 50 },
        output_token_details: { reasoning: 40 },
      }),
    ).toEqual({
      inputTokens: 1000,
      outputTokens: 80,
      cacheReadTokens: 900,
      cacheWriteTokens: 50,
      reasoningTokens: 40,
    });
  });
});
