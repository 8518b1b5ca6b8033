import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { assistantMessageOfOutput, readResponsesInput, usageFromResponses } from './openai-responses.ts';
import { ResponsesItemIndex, toResponsesItems } from './openai-responses-write.ts';

const asMessages = (drafts: readonly MessageInput[]): Message[] =>
  drafts.map((draft, seq) => ({ id: `m${seq}`, seq, meta: {}, ...draft }) as Message);

const reasoning = {
  type: 'reasoning',
  summary: [{ type: 'summary_text', text: 'Look at the parser.' }],
  encrypted_content: 'gAAAAB-opaque==',
};
const call = { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":["ls"]}' };
const patch = { type: 'custom_tool_call', call_id: 'call_2', name: 'apply_patch', input: '*** Begin Patch' };
const search = {
  type: 'web_search_call',
  id: 'ws_1',
  status: 'completed',
  action: { type: 'search', query: 'x' },
};

describe('readResponsesInput', () => {
  it('reads leading system and developer messages as the system prompt, a later one as a note', () => {
    const read = readResponsesInput([
      { role: 'developer', content: 'Be brief.' },
      { type: 'message', role: 'system', content: [{ type: 'input_text', text: 'Sandbox on.' }] },
      { role: 'user', content: 'Hi' },
      { role: 'developer', content: 'Approval mode changed.' },
    ]);
    expect(read.system).toEqual(['Be brief.', 'Sandbox on.']);
    expect(read.systemItems).toHaveLength(2);
    expect(read.groups.map((group) => group.draft)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'user',
        parts: [{ type: 'text', text: 'Approval mode changed.' }],
        meta: { kind: 'system_note' },
      },
    ]);
  });

  it('keeps a reasoning item in one assistant message with the calls that follow it', () => {
    const read = readResponsesInput([
      { role: 'user', content: 'Fix it' },
      reasoning,
      call,
      patch,
      search,
      { type: 'function_call_output', call_id: 'call_1', output: 'a.ts\nb.ts' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Success.' },
    ]);
    expect(read.groups.map((group) => group.items.length)).toEqual([1, 4, 1, 1]);
    expect(read.groups[1]?.draft).toEqual({
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: 'Look at the parser.', signature: 'gAAAAB-opaque==' },
        { type: 'tool-call', callId: 'call_1', name: 'shell', args: '{"command":["ls"]}' },
        { type: 'tool-call', callId: 'call_2', name: 'apply_patch', args: '*** Begin Patch' },
        { type: 'text', text: JSON.stringify(search) },
      ],
    });
    expect(read.groups[2]?.draft.parts).toEqual([
      { type: 'tool-result', callId: 'call_1', name: '', content: 'a.ts\nb.ts', isError: false },
    ]);
  });

  it('reads a hosted call and its output (local shell) as a call and its result', () => {
    const read = readResponsesInput([
      { role: 'user', content: 'ls' },
      {
        type: 'local_shell_call',
        call_id: 'ls_1',
        status: 'completed',
        action: { type: 'exec', command: ['ls'] },
      },
      { type: 'local_shell_call_output', id: 'ls_1', output: '{"output":"a.ts"}' },
    ]);
    expect(read.groups[1]?.draft.parts).toEqual([
      {
        type: 'tool-call',
        callId: 'ls_1',
        name: 'local_shell',
        args: '{"action":{"type":"exec","command":["ls"]}}',
      },
    ]);
    expect(read.groups[2]?.draft.parts[0]).toMatchObject({ type: 'tool-result', callId: 'ls_1' });
  });

  it('reads images and files of a user message as media', () => {
    const read = readResponsesInput([
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Look' },
          { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'low' },
          { type: 'input_file', file_id: 'file-9', filename: 'spec.pdf' },
        ],
      },
    ]);
    expect(read.groups[0]?.draft.parts).toEqual([
      { type: 'text', text: 'Look' },
      { type: 'media', mediaType: 'image/png', ref: 'data:image/png;base64,AAAA', detail: 'low' },
      { type: 'media', mediaType: 'application/pdf', ref: 'file-id:file-9', name: 'spec.pdf' },
    ]);
  });

  it('names the field of an item it cannot read', () => {
    expect(() =>
      readResponsesInput([
        { role: 'user', content: 'x' },
        { type: 'function_call', name: 'f' },
      ]),
    ).toThrow(InvalidInputError);
    expect(() =>
      readResponsesInput([
        { role: 'user', content: 'x' },
        { type: 'function_call', name: 'f' },
      ]),
    ).toThrow(/input\[1\]\.call_id/);
    expect(() => readResponsesInput([{ content: 'no role or type' }])).toThrow(/input\[0\]\.type/);
    expect(() => readResponsesInput([{ role: 'wizard', content: 'x' }])).toThrow(/input\[0\]\.role/);
  });
});

describe('toResponsesItems', () => {
  const input = [
    { role: 'user', content: 'Fix it' },
    reasoning,
    call,
    patch,
    search,
    { type: 'function_call_output', call_id: 'call_1', output: 'a.ts\nb.ts' },
    { type: 'custom_tool_call_output', call_id: 'call_2', output: 'Success.' },
  ];

  it('writes unchanged parts back as the client sent them, item for item', () => {
    const read = readResponsesInput(input);
    const index = new ResponsesItemIndex().add(input);
    const items = toResponsesItems(asMessages(read.groups.slice(1).map((group) => group.draft)), index);
    expect(items).toEqual(input.slice(1));
    // The very objects: the encrypted reasoning goes back byte for byte.
    expect(items[0]).toBe(reasoning);
  });

  it('keeps an edited output in the type of its call', () => {
    const read = readResponsesInput(input);
    const index = new ResponsesItemIndex().add(input);
    const edited = read.groups.slice(2).map((group) => ({
      ...group.draft,
      parts: group.draft.parts.map((part) =>
        part.type === 'tool-result' ? { ...part, content: '[cleared]' } : part,
      ),
    }));
    expect(toResponsesItems(asMessages(edited), index)).toEqual([
      { type: 'function_call_output', call_id: 'call_1', output: '[cleared]' },
      { type: 'custom_tool_call_output', call_id: 'call_2', output: '[cleared]' },
    ]);
  });

  it('rebuilds a changed message from its own items: each reasoning item and call keeps its id', () => {
    // Stored reasoning without a summary: alike but for the id, so only the message's own items tell.
    const stored = [
      { role: 'user', content: 'Go' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'write', arguments: '{"body":"long"}' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      { type: 'message', id: 'msg_2', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] },
    ];
    const read = readResponsesInput(stored);
    const index = new ResponsesItemIndex().add(stored);
    const messages = asMessages(read.groups.map((group) => group.draft));
    // ctxkit shortened the first call's arguments.
    const first = messages[1] as Message;
    const edited = {
      ...first,
      parts: first.parts.map((part) => (part.type === 'tool-call' ? { ...part, args: '{}' } : part)),
    };
    const ownItems = (message: Message) => read.groups[messages.findIndex((m) => m.id === message.id)]?.items;
    expect(toResponsesItems([edited, messages[3] as Message], index, ownItems)).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'write', arguments: '{}' },
      { type: 'reasoning', id: 'rs_2', summary: [] },
      stored[5],
    ]);
  });

  it('sends an output the API takes only in its own shape as it came, even when ctxkit cleared it', () => {
    const shell = {
      type: 'shell_call_output',
      call_id: 'sh_1',
      output: [{ stdout: 'a.ts', stderr: '', outcome: { type: 'exit', exit_code: 0 } }],
    };
    const items = [{ type: 'shell_call', call_id: 'sh_1', action: { commands: ['ls'] } }, shell];
    const read = readResponsesInput([{ role: 'user', content: 'ls' }, ...items]);
    const result = read.groups[2]?.draft as MessageInput;
    const cleared = {
      ...result,
      parts: result.parts.map((part) =>
        part.type === 'tool-result' ? { ...part, content: '[cleared]' } : part,
      ),
    };
    expect(toResponsesItems(asMessages([cleared]), new ResponsesItemIndex().add(items))).toEqual([shell]);
  });

  it('builds items for messages ctxkit wrote (a summary, a new call)', () => {
    const items = toResponsesItems(
      asMessages([
        { role: 'user', parts: [{ type: 'text', text: 'Summary so far' }], meta: { kind: 'summary' } },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'why', signature: 'enc' },
            { type: 'text', text: 'Reading it.' },
            { type: 'tool-call', callId: 'c9', name: 'read', args: '{}' },
          ],
        },
      ]),
      new ResponsesItemIndex(),
    );
    expect(items).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Summary so far' }] },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'why' }], encrypted_content: 'enc' },
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Reading it.', annotations: [] }],
      },
      { type: 'function_call', call_id: 'c9', name: 'read', arguments: '{}' },
    ]);
  });
});

describe('an answer read', () => {
  it('reads output items as one assistant message and usage from the response', () => {
    const message = assistantMessageOfOutput([
      reasoning,
      {
        type: 'message',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Done.', annotations: [] }],
      },
      call,
    ]);
    expect(message.parts.map((part) => part.type)).toEqual(['reasoning', 'text', 'tool-call']);
    expect(
      usageFromResponses({
        input_tokens: 1200,
        input_tokens_details: { cached_tokens: 1000 },
        output_tokens: 40,
        output_tokens_details: { reasoning_tokens: 30 },
      }),
    ).toEqual({ inputTokens: 1200, outputTokens: 40, cacheReadTokens: 1000, reasoningTokens: 30 });
    expect(usageFromResponses(null)).toBeUndefined();
    // An item the upstream sent incomplete is kept as its JSON, not a failure of the whole answer.
    const broken = { type: 'function_call', name: 'shell', arguments: '{}' };
    expect(assistantMessageOfOutput([broken]).parts).toEqual([
      { type: 'text', text: JSON.stringify(broken) },
    ]);
  });
});
