/**
 * The per-message converters against the whole-transcript ones, on every corpus session: a conversation
 * converted one message at a time (tool names from a ToolCallNames following the stream) is the
 * conversation the whole-transcript converters give.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import type { Message, MessageInput, Part } from '../core/message.ts';
import { canonicalJson } from '../entries/core.ts';
import {
  createContextManager,
  fromAnthropicMessage,
  fromAnthropicMessages,
  fromOpenAIChat,
  fromOpenAIChatMessage,
  PRESETS,
  ToolCallNames,
  toAnthropicMessage,
  toAnthropicMessages,
  toOpenAIChat,
  toOpenAIChatMessage,
} from '../index.ts';
import { CORPUS_DIR, corpusFiles, loadCorpusSession } from '../testing/corpus.ts';

const sessions = corpusFiles().map((file) => ({ file, transcript: loadCorpusSession(file) }));

const shape = (message: Message | MessageInput) => ({
  role: message.role,
  parts: message.parts,
  meta: message.meta ?? {},
});

/** Arguments as canonical JSON: Anthropic carries them as objects, so their text is re-serialized. */
const argsAsJson = <T>(value: T): T =>
  JSON.parse(
    JSON.stringify(value, (key, inner: unknown) => {
      if (key !== 'args' || typeof inner !== 'string') return inner;
      try {
        return canonicalJson(JSON.parse(inner));
      } catch {
        return inner;
      }
    }),
  ) as T;

/** A corpus JSONL line (fixtures/corpus/README.md). */
interface CorpusLine {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: { id: string; name: string; arguments: string }[];
  tool_call_id?: string;
  reasoning?: string;
}

/** The OpenAI chat message a corpus line is, written out by hand from the Chat Completions format. */
function openAIFromCorpusLine(line: CorpusLine): Record<string, unknown> {
  switch (line.role) {
    case 'system':
    case 'user':
      return { role: line.role, content: line.content };
    case 'tool':
      return { role: 'tool', tool_call_id: line.tool_call_id, content: line.content };
    case 'assistant': {
      const calls = line.tool_calls ?? [];
      return {
        role: 'assistant',
        content: line.content !== '' ? line.content : calls.length > 0 ? null : '',
        ...(line.reasoning !== undefined && { reasoning_content: line.reasoning }),
        ...(calls.length > 0 && {
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments },
          })),
        }),
      };
    }
  }
}

describe('OpenAI chat, one message at a time', () => {
  it('reads every corpus session as fromOpenAIChat reads it whole, result names included', () => {
    expect(sessions.length).toBeGreaterThan(10);
    for (const { transcript } of sessions) {
      const wire = toOpenAIChat(transcript);
      const whole = fromOpenAIChat(wire);
      const names = new ToolCallNames();
      const one = wire
        .slice(whole.system.length)
        .map((message) => fromOpenAIChatMessage(message, { toolNames: names }));
      expect(one).toEqual(whole.messages.map(shape));
    }
  });

  it('writes every corpus session message as the corpus line it was read from says', () => {
    // The expectation comes from the corpus JSONL itself (not from toOpenAIChat, which calls the same
    // per-message writer): role, content, tool_calls ids, names and arguments, tool_call_id, reasoning.
    for (const { file, transcript } of sessions) {
      const lines = readFileSync(join(CORPUS_DIR, file), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as CorpusLine);
      const history = lines.slice(transcript.system.length);
      expect(lines.slice(0, transcript.system.length).every((line) => line.role === 'system')).toBe(true);
      expect(transcript.messages.length, file).toBe(history.length);
      const one = transcript.messages.map((message) => toOpenAIChatMessage(message));
      expect(one, file).toEqual(history.map(openAIFromCorpusLine));
    }
  });

  it('names a result from a map or a function of earlier calls, and leaves it empty when unknown', () => {
    const tool = { role: 'tool', tool_call_id: 'c1', content: 'ok' };
    const named = (input: MessageInput) =>
      input.parts[0]?.type === 'tool-result' ? input.parts[0].name : '?';
    expect(named(fromOpenAIChatMessage(tool, { toolNames: new Map([['c1', 'bash']]) }))).toBe('bash');
    expect(
      named(fromOpenAIChatMessage(tool, { toolNames: (id) => (id === 'c1' ? 'read' : undefined) })),
    ).toBe('read');
    expect(named(fromOpenAIChatMessage(tool))).toBe('');
    const history = [{ parts: [{ type: 'tool-call' as const, callId: 'c1', name: 'grep', args: '{}' }] }];
    expect(named(fromOpenAIChatMessage(tool, { toolNames: ToolCallNames.from(history) }))).toBe('grep');
  });

  it('gives each legacy function_call of a stream its own call id, and each function result its call', () => {
    const stream = [
      { role: 'user', content: 'time? and where?' },
      { role: 'assistant', content: null, function_call: { name: 'now', arguments: '{}' } },
      { role: 'function', name: 'now', content: '12:00' },
      { role: 'assistant', content: null, function_call: { name: 'now', arguments: '{"tz":"UTC"}' } },
      { role: 'assistant', content: null, function_call: { name: 'pwd', arguments: '{}' } },
      { role: 'function', name: 'pwd', content: '/home' },
      { role: 'function', name: 'now', content: '11:00' },
    ];
    const names = new ToolCallNames();
    const one = stream.map((message) => fromOpenAIChatMessage(message, { toolNames: names }));
    const calls = one.flatMap((message) => message.parts.filter((part) => part.type === 'tool-call'));
    const results = one.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'));
    expect(new Set(calls.map((call) => call.callId)).size).toBe(3);
    const callOf = (id: string) => calls.find((call) => call.callId === id);
    expect(results.map((result) => [callOf(result.callId)?.args, result.name, result.content])).toEqual([
      ['{}', 'now', '12:00'],
      ['{}', 'pwd', '/home'],
      ['{"tz":"UTC"}', 'now', '11:00'],
    ]);
    // Paired as the whole-transcript reader pairs them (ids aside: it numbers them by message).
    const whole = fromOpenAIChat(stream).messages;
    const pairs = (messages: readonly { parts: readonly Part[] }[]) => {
      const parts = messages.flatMap((message) => message.parts);
      return parts.flatMap((part) =>
        part.type === 'tool-result'
          ? [parts.findIndex((call) => call.type === 'tool-call' && call.callId === part.callId)]
          : [],
      );
    };
    expect(pairs(one)).toEqual(pairs(whole));
  });

  it('takes legacy call ids no earlier call has, and answers a legacy call from the history', () => {
    const history = [
      { parts: [{ type: 'tool-call' as const, callId: 'fc_0', name: 'now', args: '{}' }] },
      { parts: [{ type: 'tool-call' as const, callId: 'fc_1', name: 'ls', args: '{}' }] },
      {
        parts: [{ type: 'tool-result' as const, callId: 'fc_1', name: 'ls', content: 'a', isError: false }],
      },
    ];
    const names = ToolCallNames.from(history);
    const answer = fromOpenAIChatMessage(
      { role: 'function', name: 'now', content: '12:00' },
      { toolNames: names },
    );
    expect(answer.parts[0]).toMatchObject({ type: 'tool-result', callId: 'fc_0', name: 'now' });
    const call = fromOpenAIChatMessage(
      { role: 'assistant', content: null, function_call: { name: 'ls', arguments: '{}' } },
      { toolNames: names },
    );
    expect(call.parts[0]).toMatchObject({ type: 'tool-call', name: 'ls' });
    expect(['fc_0', 'fc_1']).not.toContain(call.parts[0]?.type === 'tool-call' && call.parts[0].callId);
  });

  it('refuses legacy function_call and function messages without a ToolCallNames to number them', () => {
    const legacyCall = { role: 'assistant', content: null, function_call: { name: 'now', arguments: '{}' } };
    const legacyResult = { role: 'function', name: 'now', content: '12:00' };
    for (const toolNames of [undefined, new Map<string, string>(), () => undefined]) {
      const options = toolNames === undefined ? {} : { toolNames };
      const refusal = (message: unknown) => {
        try {
          fromOpenAIChatMessage(message, options);
        } catch (error) {
          return error;
        }
        return undefined;
      };
      expect(refusal(legacyCall)).toBeInstanceOf(InvalidInputError);
      expect(refusal(legacyCall)).toMatchObject({ field: 'message.function_call' });
      expect(String(refusal(legacyCall))).toContain('ToolCallNames');
      expect(refusal(legacyResult)).toBeInstanceOf(InvalidInputError);
      expect(refusal(legacyResult)).toMatchObject({ field: 'message.role' });
    }
  });

  it('reads a system message as a system note, as one in mid-conversation is read whole', () => {
    expect(fromOpenAIChatMessage({ role: 'developer', content: 'be brief' })).toEqual({
      role: 'user',
      parts: [{ type: 'text', text: 'be brief' }],
      meta: { kind: 'system_note' },
    });
    expect(
      toOpenAIChatMessage({
        role: 'user',
        parts: [{ type: 'text', text: 'x' }],
        meta: { kind: 'system_note' },
      }),
    ).toEqual({ role: 'system', content: 'x' });
  });
});

describe('Anthropic messages, one message at a time', () => {
  it('reads every corpus session as fromAnthropicMessages reads it whole, result names included', () => {
    for (const { transcript } of sessions) {
      const wire = toAnthropicMessages(transcript).messages;
      const whole = fromAnthropicMessages({ messages: wire });
      const names = new ToolCallNames();
      const one = wire.flatMap((message) => fromAnthropicMessage(message, { toolNames: names }));
      expect(one).toEqual(whole.messages.map(shape));
    }
  });

  it('writes every corpus session so it reads back as the whole-request form does', () => {
    for (const { transcript } of sessions) {
      const one = transcript.messages.map((message) => toAnthropicMessage(message));
      const back = fromAnthropicMessages({ messages: one }).messages.map(shape);
      const viaWhole = fromAnthropicMessages(toAnthropicMessages(transcript)).messages.map(shape);
      expect(back).toEqual(viaWhole);
      expect(argsAsJson(back.map((message) => message.parts))).toEqual(
        argsAsJson(transcript.messages.map((message) => message.parts)),
      );
    }
  });

  it('splits a user turn of results and words into tool messages and a user message', () => {
    const names = new ToolCallNames();
    fromAnthropicMessage(
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'ls', input: {} }] },
      { toolNames: names },
    );
    expect(
      fromAnthropicMessage(
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' },
            { type: 'text', text: 'now read it' },
          ],
        },
        { toolNames: names },
      ),
    ).toEqual([
      {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 't1', name: 'ls', content: 'a.txt', isError: false }],
        meta: {},
      },
      { role: 'user', parts: [{ type: 'text', text: 'now read it' }], meta: {} },
    ]);
  });
});

it('a stream appended one message at a time gives the manager the history a whole sync gives', async () => {
  const { transcript } = sessions[0] as (typeof sessions)[number];
  const wire = toOpenAIChat(transcript).slice(transcript.system.length);
  const streamed = createContextManager({ policy: PRESETS.default });
  const names = new ToolCallNames();
  for (const message of wire)
    await streamed.append('s', [fromOpenAIChatMessage(message, { toolNames: names })]);
  const whole = createContextManager({ policy: PRESETS.default });
  await whole.append('s', fromOpenAIChat(wire).messages.map(shape));
  const logOf = async (manager: typeof whole) => (await manager.history('s')).log.map(shape);
  expect(await logOf(streamed)).toEqual(await logOf(whole));
});
