import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/message.ts';
import { INTERRUPTED_RESULT_TEXT } from '../../core/view/tool-pairing-repair.ts';
import { aiSdkMetaOf } from './ai-sdk-meta.ts';
import { fromAiSdkPrompt, TOOL_APPROVAL_KIND, unmodeledPartText } from './ai-sdk-prompt.ts';
import { logged, through } from './ai-sdk-round-trip.ts';
import type {
  AiSdkV3Message,
  AiSdkV3Prompt,
  AiSdkV3ToolResultOutput,
  AiSdkV4FileData,
  AiSdkV4Prompt,
  AiSdkV4ToolResultOutput,
  JSONValue,
  ProviderOptions,
} from './ai-sdk-spec.ts';
import { toAiSdkPrompt } from './ai-sdk-write-prompt.ts';

const roundTrip = (prompt: AiSdkV3Prompt) => through(prompt, 'v3');

/** Compared as a provider would read it: JSON, with URLs and bytes spelled out. */
const asJson = (value: unknown): unknown =>
  JSON.parse(
    JSON.stringify(value, (_key, member: unknown) => {
      if (member instanceof URL) return { url: member.href };
      if (member instanceof Uint8Array) return { bytes: Buffer.from(member).toString('base64') };
      return member;
    }),
  );

// ---------------------------------------------------------------------------------------------------------
// Arbitraries: every message role and part kind of a V3 prompt (AI SDK 6) and of a V4 prompt (AI SDK 7).

const json: fc.Arbitrary<JSONValue> = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JSONValue>;
const providerOptions: fc.Arbitrary<ProviderOptions | undefined> = fc.option(
  fc.dictionary(
    fc.constantFrom('anthropic', 'openai', 'google'),
    fc.dictionary(fc.constantFrom('cacheControl', 'signature', 'itemId', 'thoughtSignature'), json, {
      maxKeys: 2,
    }),
    { minKeys: 1, maxKeys: 2 },
  ) as fc.Arbitrary<ProviderOptions>,
  { nil: undefined },
);
const withOptions = <T extends object>(part: fc.Arbitrary<T>) =>
  fc
    .tuple(part, providerOptions)
    .map(([value, options]) => (options ? { ...value, providerOptions: options } : value));
const text = fc.string({ maxLength: 40 });
const id = fc.string({ minLength: 1, maxLength: 8 });
const mediaType = fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'text/plain', 'image');
const url = fc.webUrl().map((href) => new URL(href));
const fileIds = fc.dictionary(fc.constantFrom('openai', 'anthropic'), id, { minKeys: 1 });

const textPart = withOptions(text.map((value) => ({ type: 'text' as const, text: value })));
const reasoningPart = withOptions(text.map((value) => ({ type: 'reasoning' as const, text: value })));
const toolCallPart = withOptions(
  fc.record(
    {
      type: fc.constant('tool-call' as const),
      toolCallId: id,
      toolName: id,
      input: json,
      providerExecuted: fc.boolean(),
    },
    { requiredKeys: ['type', 'toolCallId', 'toolName', 'input'] },
  ),
);
const approvalPart = withOptions(
  fc.record(
    {
      type: fc.constant('tool-approval-response' as const),
      approvalId: id,
      approved: fc.boolean(),
      reason: text,
    },
    { requiredKeys: ['type', 'approvalId', 'approved'] },
  ),
);
const plainOutput = fc.oneof(
  withOptions(fc.record({ type: fc.constantFrom('text' as const, 'error-text' as const), value: text }, {})),
  withOptions(fc.record({ type: fc.constantFrom('json' as const, 'error-json' as const), value: json }, {})),
  withOptions(
    fc.record({ type: fc.constant('execution-denied' as const), reason: text }, { requiredKeys: ['type'] }),
  ),
);

// V3

const v3FilePart = withOptions(
  fc.record(
    {
      type: fc.constant('file' as const),
      mediaType,
      data: fc.oneof(url, fc.base64String({ maxLength: 24 }), fc.uint8Array({ maxLength: 16 })),
      filename: fc.string({ minLength: 1, maxLength: 10 }),
      originalUrl: fc.webUrl(),
    },
    { requiredKeys: ['type', 'mediaType', 'data'] },
  ),
);
const v3ContentItem = fc.oneof(
  withOptions(text.map((value) => ({ type: 'text' as const, text: value }))),
  withOptions(
    fc.record(
      { type: fc.constant('file-data' as const), data: fc.base64String({ maxLength: 16 }), mediaType },
      {},
    ),
  ),
  withOptions(
    fc.record(
      {
        type: fc.constant('file-data' as const),
        data: fc.base64String({ maxLength: 16 }),
        mediaType,
        filename: fc.string({ minLength: 1, maxLength: 8 }),
      },
      {},
    ),
  ),
  withOptions(
    fc.record(
      { type: fc.constant('image-data' as const), data: fc.base64String({ maxLength: 16 }), mediaType },
      {},
    ),
  ),
  withOptions(fc.record({ type: fc.constant('file-url' as const), url: fc.webUrl() }, {})),
  withOptions(fc.record({ type: fc.constant('file-url' as const), url: fc.webUrl(), mediaType }, {})),
  withOptions(fc.record({ type: fc.constant('image-url' as const), url: fc.webUrl() }, {})),
  withOptions(
    fc.record(
      {
        type: fc.constantFrom('file-id' as const, 'image-file-id' as const),
        fileId: fc.oneof(id, fileIds),
      },
      {},
    ),
  ),
  withOptions(fc.constant({ type: 'custom' as const })),
);
const v3Output: fc.Arbitrary<AiSdkV3ToolResultOutput> = fc.oneof(
  plainOutput,
  fc.array(v3ContentItem, { maxLength: 5 }).map((value) => ({ type: 'content' as const, value })),
) as fc.Arbitrary<AiSdkV3ToolResultOutput>;

// V4

const v4FileData: fc.Arbitrary<AiSdkV4FileData> = fc.oneof(
  fc
    .oneof(fc.base64String({ maxLength: 24 }), fc.uint8Array({ maxLength: 16 }))
    .map((data) => ({ type: 'data' as const, data })),
  url.map((value) => ({ type: 'url' as const, url: value })),
  fc
    .tuple(url, fc.webUrl())
    .map(([value, written]) => ({ type: 'url' as const, url: value, originalUrl: written })),
  fileIds.map((reference) => ({ type: 'reference' as const, reference })),
  fc.string({ maxLength: 30 }).map((value) => ({ type: 'text' as const, text: value })),
);
const v4FilePart = withOptions(
  fc.record(
    {
      type: fc.constant('file' as const),
      mediaType,
      data: v4FileData,
      filename: fc.string({ minLength: 1, maxLength: 10 }),
    },
    { requiredKeys: ['type', 'mediaType', 'data'] },
  ),
);
const v4ReasoningFilePart = withOptions(
  fc.record({
    type: fc.constant('reasoning-file' as const),
    mediaType,
    data: v4FileData.filter((data) => data.type === 'data' || data.type === 'url'),
  }),
);
const v4CustomPart = withOptions(
  fc.record({ type: fc.constant('custom' as const), kind: fc.constantFrom('openai.compaction', 'google.x') }),
);
const v4ContentItem = fc.oneof(
  withOptions(text.map((value) => ({ type: 'text' as const, text: value }))),
  withOptions(
    fc.record(
      {
        type: fc.constant('file' as const),
        data: v4FileData,
        mediaType,
        filename: fc.string({ minLength: 1, maxLength: 8 }),
      },
      { requiredKeys: ['type', 'data', 'mediaType'] },
    ),
  ),
  withOptions(fc.constant({ type: 'custom' as const })),
);
const v4Output: fc.Arbitrary<AiSdkV4ToolResultOutput> = fc.oneof(
  plainOutput,
  fc.array(v4ContentItem, { maxLength: 5 }).map((value) => ({ type: 'content' as const, value })),
) as fc.Arbitrary<AiSdkV4ToolResultOutput>;

/** A prompt of one version, from its file part, tool output and the assistant parts only it has. */
function promptOf<P>(
  filePart: fc.Arbitrary<object>,
  output: fc.Arbitrary<object>,
  assistantExtras: fc.Arbitrary<object>[],
): fc.Arbitrary<P> {
  const toolResultPart = withOptions(
    fc.record({ type: fc.constant('tool-result' as const), toolCallId: id, toolName: id, output }, {}),
  );
  const userMessage = withOptions(
    fc.record(
      {
        role: fc.constant('user' as const),
        content: fc.array(fc.oneof(textPart, filePart), { minLength: 1, maxLength: 4 }),
      },
      {},
    ),
  );
  const assistantMessage = withOptions(
    fc.record(
      {
        role: fc.constant('assistant' as const),
        content: fc.array(
          fc.oneof(textPart, filePart, reasoningPart, toolCallPart, toolResultPart, ...assistantExtras),
          { minLength: 1, maxLength: 5 },
        ),
      },
      {},
    ),
  );
  const toolMessage = withOptions(
    fc.record(
      {
        role: fc.constant('tool' as const),
        content: fc.array(fc.oneof(toolResultPart, approvalPart), { minLength: 1, maxLength: 4 }),
      },
      {},
    ),
  );
  const systemNote = withOptions(fc.record({ role: fc.constant('system' as const), content: text }, {}));
  return fc
    .tuple(
      fc.option(
        withOptions(
          fc.record({ role: fc.constant('system' as const), content: fc.string({ minLength: 1 }) }, {}),
        ),
        { nil: undefined },
      ),
      userMessage,
      fc.array(fc.oneof(userMessage, assistantMessage, toolMessage, systemNote), { maxLength: 8 }),
    )
    .map(([system, first, rest]) => [...(system ? [system] : []), first, ...rest] as P);
}

const v3Prompt = promptOf<AiSdkV3Prompt>(v3FilePart, v3Output, []);
const v4Prompt = promptOf<AiSdkV4Prompt>(v4FilePart, v4Output, [v4ReasoningFilePart, v4CustomPart]);

describe('fromAiSdkPrompt / toAiSdkPrompt', () => {
  it('round-trips every message role and part kind of a V3 prompt, provider options included (property)', () => {
    fc.assert(
      fc.property(v3Prompt, (input) => {
        expect(asJson(through(input, 'v3'))).toEqual(asJson(input));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips every message role and part kind of a V4 prompt, provider options included (property)', () => {
    fc.assert(
      fc.property(v4Prompt, (input) => {
        expect(asJson(through(input, 'v4'))).toEqual(asJson(input));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the system prompt apart and reads each part kind into ctxkit fields', () => {
    const image = new Uint8Array([1, 2, 3]);
    const { system, systemProviderOptions, messages } = fromAiSdkPrompt([
      {
        role: 'system',
        content: 'Be brief.',
        providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'file', data: image, mediaType: 'image/png' },
          { type: 'file', data: new URL('https://example.com/a.pdf'), mediaType: 'application/pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'look', providerOptions: { anthropic: { signature: 'sig' } } },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'zoom', input: { level: 2 } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'zoom',
            output: { type: 'json', value: { ok: true } },
          },
          {
            type: 'tool-result',
            toolCallId: 'c2',
            toolName: 'zoom',
            output: { type: 'error-text', value: 'no' },
          },
        ],
      },
      { role: 'system', content: 'Mid-conversation note.' },
    ]);
    expect(system).toBe('Be brief.');
    expect(systemProviderOptions).toEqual({ anthropic: { cacheControl: { type: 'ephemeral' } } });
    expect(messages.map((message) => [message.role, message.parts.map((part) => part.type)])).toEqual([
      ['user', ['text', 'media', 'media']],
      ['assistant', ['reasoning', 'tool-call']],
      ['tool', ['tool-result']],
      ['tool', ['tool-result']],
      ['user', ['text']],
    ]);
    expect(messages[0]?.parts[1]).toEqual({
      type: 'media',
      mediaType: 'image/png',
      ref: 'data:image/png;base64,AQID',
    });
    expect(messages[0]?.parts[2]).toEqual({
      type: 'media',
      mediaType: 'application/pdf',
      ref: 'https://example.com/a.pdf',
    });
    expect(messages[1]?.parts[0]).toEqual({ type: 'reasoning', text: 'look', signature: 'sig' });
    expect(messages[1]?.parts[1]).toEqual({
      type: 'tool-call',
      callId: 'c1',
      name: 'zoom',
      args: '{"level":2}',
    });
    expect(messages[2]?.parts[0]).toEqual({
      type: 'tool-result',
      callId: 'c1',
      name: 'zoom',
      content: '{"ok":true}',
      isError: false,
    });
    expect(messages[3]?.parts[0]).toMatchObject({ content: 'no', isError: true });
    expect(aiSdkMetaOf({ meta: messages[3]?.meta ?? {} })?.joinPrevious).toBe(true);
    expect(messages[4]?.meta?.kind).toBe('system_note');
  });

  it('holds provider-executed calls and results as text, counted, and sends them back as they came', () => {
    const call = {
      type: 'tool-call' as const,
      toolCallId: 'ws1',
      toolName: 'web_search',
      input: { query: 'ctxkit' },
      providerExecuted: true,
    };
    const result = {
      type: 'tool-result' as const,
      toolCallId: 'ws1',
      toolName: 'web_search',
      output: { type: 'json' as const, value: [{ url: 'https://example.com', encryptedContent: 'xyz' }] },
      providerOptions: { anthropic: { cached: true } },
    };
    const input: AiSdkV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'search' }] },
      { role: 'assistant', content: [call, result, { type: 'text', text: 'Found it.' }] },
    ];
    const { messages } = fromAiSdkPrompt(input);
    expect(messages).toHaveLength(2);
    expect(messages[1]?.parts).toEqual([
      { type: 'text', text: unmodeledPartText(call) },
      { type: 'text', text: unmodeledPartText(result) },
      { type: 'text', text: 'Found it.' },
    ]);
    expect(unmodeledPartText(result)).toContain('encryptedContent');
    expect(asJson(roundTrip(input))).toEqual(asJson(input));
  });

  it('keeps tool-approval responses beside the results, and a tool message of approvals only as a user message', () => {
    const approval = { type: 'tool-approval-response' as const, approvalId: 'a1', approved: true };
    const only: AiSdkV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'tool', content: [approval] },
    ];
    const { messages } = fromAiSdkPrompt(only);
    expect(messages[1]).toMatchObject({ role: 'user', meta: { kind: TOOL_APPROVAL_KIND } });
    expect(asJson(roundTrip(only))).toEqual(asJson(only));
  });

  it('keeps a `__proto__` key a prompt carries as a key: in a part kept whole and in provider options', () => {
    // JSON.parse makes `__proto__` an own key; assigned back, it would replace the prototype instead.
    const hostile = JSON.parse('{"__proto__": {"polluted": true}, "kept": 1}') as Record<string, JSONValue>;
    const prompt: AiSdkV3Prompt = [
      { role: 'user', content: [{ type: 'text', text: 'go', providerOptions: { gateway: hostile } }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'search',
            output: { type: 'json', value: hostile },
          },
        ],
      },
    ];
    const back = roundTrip(prompt);
    expect(asJson(back)).toEqual(asJson(prompt));
    const part = back[1]?.content[0] as { output: { value: object } };
    expect(Object.keys(part.output.value)).toEqual(['__proto__', 'kept']);
    expect(Object.getPrototypeOf(part.output.value)).toBe(Object.prototype);
    const text = back[0]?.content[0] as { providerOptions?: { gateway?: object } } | undefined;
    expect(Object.keys(text?.providerOptions?.gateway ?? {})).toEqual(['__proto__', 'kept']);
  });

  it('sends back what ctxkit changed: an edited JSON result as text, an edited text part without its old options', () => {
    const input: AiSdkV3Prompt = [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: 'hello there',
            providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
          },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: {} }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'ls',
            output: {
              type: 'content',
              value: [
                { type: 'text', text: 'a.png' },
                { type: 'image-data', data: 'AQID', mediaType: 'image/png' },
              ],
            },
          },
        ],
      },
    ];
    const history = logged(fromAiSdkPrompt(input).messages);
    const [userMessage, call, tool] = history as [Message, Message, Message];
    const cleared: Message[] = [
      { ...userMessage, parts: [{ type: 'text', text: 'hello' }] },
      call,
      {
        ...tool,
        parts: [{ type: 'tool-result', callId: 'c1', name: 'ls', content: '[cleared]', isError: false }],
      },
    ];
    const back = toAiSdkPrompt({ system: '', messages: cleared }, { specificationVersion: 'v3' });
    expect(back[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello' }] });
    expect(back[2]).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'ls',
          output: { type: 'content', value: [{ type: 'text', text: '[cleared]' }] },
        },
      ],
    });
  });

  it('converts messages ctxkit made: a summary as user text, a system note as a system message, a stand-in as an error result, an emptied message not at all', () => {
    const back = toAiSdkPrompt({
      system: 'sys',
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Summary: …' }], meta: { kind: 'system_note' } },
        { role: 'user', parts: [{ type: 'text', text: 'Earlier: …' }], meta: { kind: 'summary' } },
        // Everything in it compacted away: nothing to send, left out (providers refuse empty content).
        { role: 'assistant', parts: [], meta: {} },
        {
          role: 'assistant',
          parts: [{ type: 'tool-call', callId: 'c9', name: 'bash', args: 'not json' }],
          meta: {},
        },
        {
          role: 'tool',
          parts: [
            {
              type: 'tool-result',
              callId: 'c9',
              name: 'bash',
              content: INTERRUPTED_RESULT_TEXT,
              isError: true,
            },
          ],
          meta: { kind: 'tool_result' },
        },
      ],
    });
    expect(back).toEqual([
      { role: 'system', content: 'sys' },
      { role: 'system', content: 'Summary: …' },
      { role: 'user', content: [{ type: 'text', text: 'Earlier: …' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c9', toolName: 'bash', input: { __ctxkit_raw_args: 'not json' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c9',
            toolName: 'bash',
            output: { type: 'error-text', value: INTERRUPTED_RESULT_TEXT },
          },
        ],
      },
    ] satisfies AiSdkV3Message[]);
  });
});
