import { afterEach, describe, expect, it } from 'vitest';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { createOpenAICompatibleClient } from '../providers/openai-compatible-client.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { providerError } from '../testing/fake-provider-server-errors.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { asInput } from '../testing/replay-session.ts';
import { chooseSummarizer } from './choose-summarizer.ts';
import { createContextManager } from './context-manager.ts';

const SUMMARY_REPLY = [
  '## Intent',
  '- Book a flight from New York to Seattle',
  '## Decisions',
  '- none',
  '## Files',
  '- none',
  '## Errors',
  '- payment amount does not add up',
  '## Next steps',
  '- confirm the booking with the user',
].join('\n');

let server: FakeProviderServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function withSummaryModel(baseUrl: string): Policy {
  return {
    ...PRESETS.default,
    model: 'gpt-4o',
    summarize: {
      ...PRESETS.default.summarize,
      model: { provider: 'deepseek', model: 'deepseek-chat', baseUrl, apiKeyEnv: 'DEEPSEEK_API_KEY' },
    },
  };
}

describe('choosing the summarizer', () => {
  it('is extractive when no model is configured', () => {
    expect(chooseSummarizer(PRESETS.default).name).toBe('extractive');
  });

  it('routes summaries to summary_brain, not the main model (digitorn)', async () => {
    server = await startFakeProviderServer();
    server.enqueue(openAIReply({ content: SUMMARY_REPLY, model: 'deepseek-chat' }));
    const manager = createContextManager({
      policy: withSummaryModel(server.openAIBaseUrl),
      env: { DEEPSEEK_API_KEY: 'sk-test' },
    });
    const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task0_trial3.jsonl');
    await manager.append('s', transcript.messages.map(asInput));
    const { compacted } = await manager.compact('s');
    expect(compacted).toBe(true);
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0];
    expect(request?.body).toMatchObject({ model: 'deepseek-chat' });
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    const stats = await manager.stats('s');
    expect(stats.summary?.producer).toBe('model:deepseek-chat');
  });

  it('falls back to the drop layer when the summary model fails (digitorn)', async () => {
    server = await startFakeProviderServer();
    server.enqueue(providerError('overloaded'));
    const manager = createContextManager({
      policy: withSummaryModel(server.openAIBaseUrl),
      env: { DEEPSEEK_API_KEY: 'sk-test' },
    });
    const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task0_trial3.jsonl');
    await manager.append('s', transcript.messages.map(asInput));
    const { compacted, events } = await manager.compact('s');
    expect(compacted).toBe(true);
    const finished = events.find((event) => event.type === 'compaction-finished');
    expect(finished).toMatchObject({ layer: 'drop' });
    expect(finished?.type === 'compaction-finished' && finished.error).toBeTruthy();
    const { edits } = await manager.history('s');
    expect(edits.map((edit) => edit.type)).toEqual(['drop']);
  });

  it('refuses a summary model whose API key variable is not set, naming it', () => {
    expect(() => chooseSummarizer(withSummaryModel('http://127.0.0.1:9/v1'), { env: {} })).toThrow(
      /DEEPSEEK_API_KEY/,
    );
  });
});

describe("summaries by the agent's own model fit its window", () => {
  it('the input bound follows the window the agent runs with, not the default size', async () => {
    server = await startFakeProviderServer();
    server.enqueue(openAIReply({ content: SUMMARY_REPLY }));
    const client = createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl });
    const window = 8_000;
    const summarizer = chooseSummarizer(PRESETS.default, {
      client,
      model: 'a-local-model',
      contextWindow: window,
      maxOutputTokens: 1_000,
    });
    // A long real session: its transcript alone is far over 8k tokens.
    const messages = loadCorpusSession(
      'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1__marshmallow-code__marshmallow-1867.jsonl',
    ).messages;
    const counter = createExactCounter('o200k');
    await summarizer.summarize({
      messages,
      throughSeq: messages.at(-1)?.seq ?? 0,
      maxTokens: 500,
      toolResultMaxChars: 1_800,
      countTokens: (text) => counter.count(text),
    });
    const body = server.requests[0]?.body as { messages: { content: string }[]; max_tokens?: number };
    const sent = body.messages.reduce((sum, message) => sum + counter.count(message.content), 0);
    expect(sent + (body.max_tokens ?? 0)).toBeLessThan(window);
    expect(sent).toBeGreaterThan(3_000);
  });
});
