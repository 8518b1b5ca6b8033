/**
 * A session logged under one AI SDK major and continued under the other: what one version gave reaches a
 * model of the other version in that version's terms (files, tool outputs' files, the parts only V4 has).
 */

import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/message.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import { logged, through } from './ai-sdk-round-trip.ts';
import type { AiSdkV3Prompt, AiSdkV4Prompt } from './ai-sdk-spec.ts';
import { toAiSdkPrompt } from './ai-sdk-write-prompt.ts';

describe('a session that crosses AI SDK versions', () => {
  const bytes = new Uint8Array([1, 2, 3]);

  it('sends what AI SDK 6 (V3) logged to an AI SDK 7 (V4) model in V4 terms', () => {
    const v3: AiSdkV3Prompt = [
      {
        role: 'user',
        content: [
          { type: 'file', data: bytes, mediaType: 'image/png' },
          { type: 'file', data: 'AQID', mediaType: 'application/pdf', filename: 'a.pdf' },
          {
            type: 'file',
            data: new URL('https://example.com/a b.png'),
            originalUrl: 'https://example.com/a b.png',
            mediaType: 'image/png',
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'two shots' },
                { type: 'image-data', data: 'AQID', mediaType: 'image/png' },
                { type: 'image-url', url: 'https://example.com/b.jpg' },
                { type: 'file-id', fileId: 'file-abc' },
                { type: 'image-file-id', fileId: { anthropic: 'file_x' } },
              ],
            },
          },
        ],
      },
    ];
    const [user, , tool] = through(v3, 'v4');
    expect(user?.content).toEqual([
      { type: 'file', data: { type: 'data', data: bytes }, mediaType: 'image/png' },
      { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'application/pdf', filename: 'a.pdf' },
      {
        type: 'file',
        data: {
          type: 'url',
          url: new URL('https://example.com/a%20b.png'),
          originalUrl: 'https://example.com/a b.png',
        },
        mediaType: 'image/png',
      },
    ]);
    expect(tool?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'two shots' },
            { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' },
            {
              type: 'file',
              data: { type: 'url', url: new URL('https://example.com/b.jpg') },
              mediaType: 'image/jpeg',
            },
            // A bare id is the provider's the prompt is for.
            {
              type: 'file',
              data: { type: 'reference', reference: { openai: 'file-abc' } },
              mediaType: 'application/octet-stream',
            },
            {
              type: 'file',
              data: { type: 'reference', reference: { anthropic: 'file_x' } },
              mediaType: 'image/*',
            },
          ],
        },
      },
    ]);
  });

  it('sends what AI SDK 7 (V4) logged to an AI SDK 6 (V3) model in V3 terms, leaving out what V3 has no place for', () => {
    const v4: AiSdkV4Prompt = [
      {
        role: 'user',
        content: [
          {
            type: 'file',
            data: { type: 'reference', reference: { anthropic: 'f_1', openai: 'file-1' } },
            mediaType: 'application/pdf',
          },
          { type: 'file', data: { type: 'text', text: 'a, b' }, mediaType: 'text/plain' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning-file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' },
          { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { encrypted: 'e' } } },
          { type: 'text', text: 'Here.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'file', data: { type: 'data', data: bytes }, mediaType: 'image/png' },
                {
                  type: 'file',
                  data: { type: 'url', url: new URL('https://example.com/r.pdf') },
                  mediaType: 'application/pdf',
                },
                {
                  type: 'file',
                  data: { type: 'reference', reference: { openai: 'file-2' } },
                  mediaType: 'image',
                },
              ],
            },
          },
        ],
      },
    ];
    const [user, assistant, tool] = through(v4, 'v3');
    expect(user?.content).toEqual([
      // The id of the provider the prompt is for.
      { type: 'file', data: 'file-1', mediaType: 'application/pdf' },
      { type: 'file', data: Buffer.from('a, b').toString('base64'), mediaType: 'text/plain' },
    ]);
    expect(assistant?.content).toEqual([
      { type: 'file', data: 'AQID', mediaType: 'image/png' },
      { type: 'text', text: 'Here.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} },
    ]);
    expect(tool?.content).toEqual([
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'image-data', data: 'AQID', mediaType: 'image/png' },
            { type: 'file-url', url: 'https://example.com/r.pdf', mediaType: 'application/pdf' },
            { type: 'image-file-id', fileId: { openai: 'file-2' } },
          ],
        },
      },
    ]);
  });

  it('keys a file held only as a provider id by the provider the V4 prompt is for, and says so when it is not given', () => {
    const messages: Message[] = logged([
      { role: 'user', parts: [{ type: 'media', mediaType: 'application/pdf', ref: 'file-id:file-9' }] },
    ]);
    expect(toAiSdkPrompt({ system: '', messages }, { provider: 'openai' })).toEqual([
      {
        role: 'user',
        content: [
          {
            type: 'file',
            data: { type: 'reference', reference: { openai: 'file-9' } },
            mediaType: 'application/pdf',
          },
        ],
      },
    ]);
    expect(toAiSdkPrompt({ system: '', messages }, { specificationVersion: 'v3' })).toEqual([
      { role: 'user', content: [{ type: 'file', data: 'file-9', mediaType: 'application/pdf' }] },
    ]);
    expect(() => toAiSdkPrompt({ system: '', messages })).toThrow(/say which provider/);
  });
});

describe('parts ctxkit keeps whole, in a session that crosses AI SDK versions', () => {
  const search = {
    type: 'tool-call' as const,
    toolCallId: 'ws1',
    toolName: 'shot',
    input: {},
    providerExecuted: true,
  };

  it("sends a provider's V3 tool result to a V4 model with its files as V4 file items", () => {
    const v3: AiSdkV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      {
        role: 'assistant',
        content: [
          search,
          {
            type: 'tool-result',
            toolCallId: 'ws1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'one shot' },
                { type: 'image-data', data: 'AQID', mediaType: 'image/png' },
                { type: 'file-url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
              ],
            },
            providerOptions: { openai: { itemId: 'r1' } },
          },
        ],
      },
    ];
    const [, assistant] = through(v3, 'v4');
    expect(assistant?.content).toEqual([
      search,
      {
        type: 'tool-result',
        toolCallId: 'ws1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'one shot' },
            { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' },
            {
              type: 'file',
              data: { type: 'url', url: new URL('https://example.com/a.pdf') },
              mediaType: 'application/pdf',
            },
          ],
        },
        providerOptions: { openai: { itemId: 'r1' } },
      },
    ]);
  });

  it("sends a provider's V4 tool result to a V3 model with its files as V3 items", () => {
    const v4: AiSdkV4Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'look' }] },
      {
        role: 'assistant',
        content: [
          search,
          {
            type: 'tool-result',
            toolCallId: 'ws1',
            toolName: 'shot',
            output: {
              type: 'content',
              value: [
                { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' },
                {
                  type: 'file',
                  data: { type: 'url', url: new URL('https://example.com/a.pdf') },
                  mediaType: 'application/pdf',
                },
              ],
            },
          },
        ],
      },
    ];
    const [, assistant] = through(v4, 'v3');
    expect(assistant?.content).toEqual([
      search,
      {
        type: 'tool-result',
        toolCallId: 'ws1',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'image-data', data: 'AQID', mediaType: 'image/png' },
            { type: 'file-url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' },
          ],
        },
      },
    ]);
  });

  it('leaves a part of a type ctxkit does not know out of a V3 prompt, and sends it back to V4 as it came', () => {
    const future = { type: 'future-part', payload: { a: 1 } };
    const v4 = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [future, { type: 'text', text: 'done' }] },
    ] as unknown as AiSdkV4Prompt;
    expect(through(v4, 'v3')[1]?.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(through(v4, 'v4')[1]?.content).toEqual([future, { type: 'text', text: 'done' }]);
  });
});

describe('file data that crosses AI SDK versions', () => {
  it('reads a V3 string that is a URL as a URL, as AI SDK 6 does, and sends it as one', () => {
    const v3: AiSdkV3Prompt = [
      {
        role: 'user',
        content: [
          { type: 'file', data: 'https://example.com/a b.png', mediaType: 'image/png' },
          { type: 'file', data: 'data:image/png;base64,AQID', mediaType: 'image/png' },
        ],
      },
    ];
    expect(fromAiSdkPrompt(v3).messages[0]?.parts).toEqual([
      { type: 'media', mediaType: 'image/png', ref: 'https://example.com/a%20b.png' },
      { type: 'media', mediaType: 'image/png', ref: 'data:image/png;base64,AQID' },
    ]);
    expect(through(v3, 'v4')[0]?.content).toEqual([
      {
        type: 'file',
        data: {
          type: 'url',
          url: new URL('https://example.com/a%20b.png'),
          originalUrl: 'https://example.com/a b.png',
        },
        mediaType: 'image/png',
      },
      { type: 'file', data: { type: 'data', data: 'AQID' }, mediaType: 'image/png' },
    ]);
    expect(through(v3, 'v3')[0]?.content).toEqual([
      {
        type: 'file',
        data: new URL('https://example.com/a%20b.png'),
        originalUrl: 'https://example.com/a b.png',
        mediaType: 'image/png',
      },
      { type: 'file', data: 'AQID', mediaType: 'image/png' },
    ]);
  });

  it("keeps a V4 tool output file's URL as written when it goes to V3, and a V3 file-url's when it goes to V4", () => {
    const tool = (output: object) =>
      [
        { role: 'user', content: [{ type: 'text', text: 'go' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'get', input: {} }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'get', output }] },
      ] as AiSdkV4Prompt & AiSdkV3Prompt;
    const v4File = {
      type: 'file',
      data: {
        type: 'url',
        url: new URL('https://example.com/a%20b.pdf'),
        originalUrl: 'https://example.com/a b.pdf',
      },
      mediaType: 'application/pdf',
    };
    const v3File = { type: 'file-url', url: 'https://example.com/a b.pdf', mediaType: 'application/pdf' };
    const outputOf = (prompt: AiSdkV3Prompt | AiSdkV4Prompt) => {
      const message = prompt[2];
      return message?.role === 'tool' && message.content[0]?.type === 'tool-result'
        ? message.content[0].output
        : undefined;
    };
    expect(outputOf(through(tool({ type: 'content', value: [v4File] }), 'v3'))).toEqual({
      type: 'content',
      value: [v3File],
    });
    expect(outputOf(through(tool({ type: 'content', value: [v3File] }), 'v4'))).toEqual({
      type: 'content',
      value: [v4File],
    });
  });
});
