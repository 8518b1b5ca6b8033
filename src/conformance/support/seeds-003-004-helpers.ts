/**
 * Helpers shared by the conformance tests of digitorn and picoclaw: a controllable
 * clock, summarizers that count their calls (locally, or through the fake provider server so the test
 * sees the wire request through the engine's own model routing), corpus sessions as append-ready inputs, and crafted messages.
 */

import type { ContextEvent } from '../../core/events.ts';
import type { MediaPart, Message, MessageInput } from '../../core/message.ts';
import { toolResultOf } from '../../core/message.ts';
import type { ModelClient } from '../../providers/model-client.ts';
import { createOpenAICompatibleClient } from '../../providers/openai-compatible-client.ts';
import { createExtractiveSummarizer } from '../../summarize/extractive-summarizer.ts';
import type { Summarizer } from '../../summarize/summarizer.ts';
import { loadCorpusSession } from '../../testing/corpus.ts';
import {
  type FakeProviderServer,
  type RecordedRequest,
  startFakeProviderServer,
} from '../../testing/fake-provider-server.ts';
import { openAIReply } from '../../testing/fake-provider-server-replies.ts';
import { asInput } from '../../testing/replay-session.ts';

/** A clock the test moves by hand: `clock.now` goes to the manager, `advance` moves time. */
export interface SeedsClock {
  now: () => number;
  advance: (ms: number) => void;
  set: (ms: number) => void;
}

export function seedsClock(start = 1_700_000_000_000): SeedsClock {
  let now = start;
  return {
    now: () => now,
    advance: (ms) => {
      now += ms;
    },
    set: (ms) => {
      now = ms;
    },
  };
}

/** A summarizer that counts its calls (the extractive one inside: offline, no model). */
export interface CountingSummarizer extends Summarizer {
  readonly calls: number;
  readonly maxTokensAsked: number[];
}

export function countingSummarizer(inner: Summarizer = createExtractiveSummarizer()): CountingSummarizer {
  let calls = 0;
  const maxTokensAsked: number[] = [];
  return {
    name: inner.name,
    usesModel: inner.usesModel,
    get calls() {
      return calls;
    },
    get maxTokensAsked() {
      return maxTokensAsked;
    },
    async summarize(input) {
      calls++;
      maxTokensAsked.push(input.maxTokens);
      return inner.summarize(input);
    },
  };
}

/** A structured reply in the summarizer's format, so the model summary parses into sections. */
export const FAKE_SUMMARY_REPLY = [
  '## Session intent',
  'Help the customer change their flight reservation.',
  '## User requests',
  '- Change the reservation to a later flight.',
  '## Decisions',
  '- Keep the same cabin class.',
  '## Key facts',
  '- The reservation id was looked up with get_reservation_details.',
  '## Files touched',
  '- none',
  '## Commands run',
  '- none',
  '## Errors',
  '- none',
  '## Plan / todo',
  '- [ ] confirm the new flight',
  '## Current state',
  'Waiting for the customer to confirm.',
  '## Next steps',
  '- Confirm the change with the customer.',
].join('\n');

export interface FakeSummaryModel {
  server: FakeProviderServer;
  /** Summary requests the server received (OpenAI chat completions). */
  requests: () => RecordedRequest[];
  /** Names the model each summary request asked for. */
  models: () => string[];
  /** The agent's main brain on the fake server, for `createContextManager({ model })`: summaries go through it. */
  brain: (name: string) => { client: ModelClient; name: string };
  close: () => Promise<void>;
}

/**
 * The fake provider server answering every summary request with `reply` (default: a structured summary),
 * and a model-backed summarizer talking to it: each compaction that summarizes is one request there.
 */
export async function startFakeSummaryModel(reply: string = FAKE_SUMMARY_REPLY): Promise<FakeSummaryModel> {
  const server = await startFakeProviderServer({
    fallback: (request) => {
      const body = request.body as { model?: string } | undefined;
      return openAIReply({ content: reply, ...(body?.model ? { model: body.model } : {}) });
    },
  });
  const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl, timeoutMs: 10_000 });
  const requests = () => server.requests.filter((request) => request.format === 'openai');
  return {
    server,
    requests,
    models: () => requests().map((request) => String((request.body as { model?: unknown }).model)),
    brain: (name) => ({ client, name }),
    close: () => server.close(),
  };
}

/** A corpus session as inputs ready for `append`, with its system prompt apart (picoclaw: not in history). */
export function corpusInputs(name: string): { system: string; messages: Message[]; inputs: MessageInput[] } {
  const transcript = loadCorpusSession(name);
  return {
    system: transcript.system.join('\n'),
    messages: transcript.messages,
    inputs: transcript.messages.map(asInput),
  };
}

/** A tool call and its result of `chars` characters (digitorn: "a 200 KB tool result"). */
export function hugeToolExchange(callId: string, chars: number, name = 'bash'): MessageInput[] {
  const line = 'ERROR 2024-08-06T08:55:14Z worker-7 request failed: upstream timeout after 30000 ms\n';
  const content = line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
  return [
    {
      role: 'assistant',
      parts: [{ type: 'tool-call', callId, name, args: '{"command":"cat /var/log/app.log"}' }],
      meta: {},
    },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId, name, content, isError: false }],
      meta: { kind: 'tool_result' },
    },
  ];
}

export const SCREENSHOT: MediaPart = { type: 'media', mediaType: 'image/png', ref: 'blob:screenshot-1' };

/** A user message carrying an image (a media reference, never inlined bytes). */
export function userWithImage(text: string, media: MediaPart = SCREENSHOT): MessageInput {
  return { role: 'user', parts: [{ type: 'text', text }, media], meta: {} };
}

export function userText(text: string): MessageInput {
  return { role: 'user', parts: [{ type: 'text', text }], meta: {} };
}

/** The messages the manager added around the history (summary, reminder, notes). */
export const SYNTHETIC_KINDS: ReadonlySet<string> = new Set([
  'summary',
  'reminder',
  'system_note',
  'tool_summary',
]);

export function isSynthetic(message: Pick<Message, 'meta'>): boolean {
  return SYNTHETIC_KINDS.has(message.meta.kind ?? '');
}

/** The log messages shown in a prepared request (synthetic ones left out). */
export function shownLogMessages(messages: readonly Message[]): Message[] {
  return messages.filter((message) => !isSynthetic(message));
}

/** Tool-call ids of a message list whose result is missing, and results whose call is missing. */
export function orphanToolIds(messages: readonly Message[]): { calls: string[]; results: string[] } {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-call') calls.add(part.callId);
    const result = toolResultOf(message);
    if (message.role === 'tool' && result) results.add(result.callId);
  }
  return {
    calls: [...calls].filter((id) => !results.has(id)),
    results: [...results].filter((id) => !calls.has(id)),
  };
}

export function finished(
  events: readonly ContextEvent[],
): Extract<ContextEvent, { type: 'compaction-finished' }>[] {
  return events.filter(
    (event): event is Extract<ContextEvent, { type: 'compaction-finished' }> =>
      event.type === 'compaction-finished',
  );
}

/** Records every event the manager emits. */
export function eventLog(): { events: ContextEvent[]; listener: (event: ContextEvent) => void } {
  const events: ContextEvent[] = [];
  return { events, listener: (event) => events.push(event) };
}
