import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseCorpusJsonl } from '../adapters/corpus.ts';
import { ModelCallError, SummarizerError } from '../core/errors/index.ts';
import type { Message } from '../core/message.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { createOpenAICompatibleClient } from '../providers/openai-compatible-client.ts';
import { type FakeProviderServer, startFakeProviderServer } from '../testing/fake-provider-server.ts';
import { openAIErrors } from '../testing/fake-provider-server-errors.ts';
import { openAIReply } from '../testing/fake-provider-server-replies.ts';
import { createExtractiveSummarizer, summarizeExtractively } from './extractive-summarizer.ts';
import {
  createModelSummarizer,
  DEFAULT_PROMPT_OVERHEAD_TOKENS,
  isFallbackSummary,
  SUMMARY_OVERFLOW_RETRIES,
} from './model-summarizer.ts';
import type { SummarizeInput } from './summarizer.ts';
import { SUMMARY_SYSTEM_PROMPT } from './summary-prompt.ts';

const CORPUS = new URL('../../fixtures/corpus/', import.meta.url);
const loadSession = (file: string): Message[] =>
  parseCorpusJsonl(readFileSync(new URL(file, CORPUS), 'utf8'), file).messages;
const MARSHMALLOW = loadSession(
  'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1__marshmallow-code__marshmallow-1867.jsonl',
);
const PI_MONO = loadSession('pi-mono__before-compaction.jsonl');

const o200k = createExactCounter('o200k');
const countTokens = (text: string): number => o200k.count(text);
const MODEL = 'gpt-4o-mini';

function input(messages: Message[], overrides: Partial<SummarizeInput> = {}): SummarizeInput {
  return {
    messages,
    throughSeq: messages[messages.length - 1]?.seq ?? 0,
    maxTokens: 1024,
    toolResultMaxChars: 1800,
    countTokens,
    ...overrides,
  };
}

/** The chat messages of the recorded request, as sent on the wire. */
function wireMessages(server: FakeProviderServer, index = 0): Array<{ role: string; content: string }> {
  const body = server.requests[index]?.body as { messages: Array<{ role: string; content: string }> };
  return body.messages;
}

const REPLY = `## Session intent
Fix TimeDelta serialization precision in marshmallow.
## User requests
- none
## Decisions
- Round with round() instead of truncating with int().
## Key facts
- The bug is at src/marshmallow/fields.py line 1474.
## Files touched
- /testbed/src/marshmallow/fields.py (edited): TimeDelta._serialize now rounds
## Commands run
- \`python reproduce.py\`: prints 345 after the fix
## Errors
- E999 IndentationError: unexpected indent (fixed)
## Plan / todo
- [x] Reproduce the bug
- [ ] Submit
## Current state
The fix is in and verified; reproduce.py was removed.
## Next steps
- Call submit.`;

describe('model-backed summarizer against an OpenAI-compatible server', () => {
  let server: FakeProviderServer;
  beforeAll(async () => {
    server = await startFakeProviderServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    (server.requests as unknown[]).length = 0;
  });
  const client = () => createOpenAICompatibleClient({ baseUrl: server.openAIBaseUrl });
  const summarizer = (overrides: Partial<Parameters<typeof createModelSummarizer>[0]> = {}) =>
    createModelSummarizer({ client: client(), model: MODEL, maxInputTokens: 16_000, ...overrides });

  it('sends the previous summary as a block to update, the transcript, and max_tokens = the cap', async () => {
    const previous = summarizeExtractively(input(MARSHMALLOW.slice(0, 12)));
    server.enqueue(openAIReply({ content: REPLY }));
    const summary = await summarizer().summarize(
      input(MARSHMALLOW.slice(12), { previous, maxTokens: 700, historyRef: 'conversation_history/t1.md' }),
    );

    const body = server.requests[0]?.body as Record<string, unknown>;
    expect(body.model).toBe(MODEL);
    expect(body.max_tokens).toBe(700);
    expect(body).not.toHaveProperty('temperature');
    const [system, prompt] = wireMessages(server);
    expect(system).toEqual({ role: 'system', content: SUMMARY_SYSTEM_PROMPT });
    expect(prompt?.role).toBe('user');
    const text = prompt?.content ?? '';
    expect(text).toContain(
      "<previous-summary>\n## Session intent\nWe're currently solving the following issue",
    );
    expect(text).toContain('- /testbed/reproduce.py (');
    expect(text).toContain('<transcript>\n[#12 tool]\n← result of open:\n[File: src/marshmallow/fields.py');
    expect(text).toContain('← result of edit:\nYour proposed edit has introduced new syntax error(s).');
    expect(text).not.toContain('elided');

    expect(summary.producer).toBe(`model:${MODEL}`);
    expect(summary.tokens).toBeLessThanOrEqual(700);
    expect(summary.historyRef).toBe('conversation_history/t1.md');
    expect(summary.text).toContain('conversation_history/t1.md');
    // The previous intent is kept verbatim; the model's sections are parsed.
    expect(summary.sections.intent?.[0]).toBe(previous.sections.intent?.[0]);
    expect(summary.sections.decisions).toEqual(['Round with round() instead of truncating with int().']);
    expect(summary.sections.facts).toEqual(['The bug is at src/marshmallow/fields.py line 1474.']);
    expect(summary.sections.plan).toEqual(['[x] Reproduce the bug', '[ ] Submit']);
    expect(summary.sections.next).toEqual(['Call submit.']);
    expect(summary.sections.requests).toEqual([]);
  });

  it('re-adds previous requests, files and errors the model dropped, ahead of its own (older first)', async () => {
    const previous = {
      text: '',
      sections: {
        intent: ['Make the CSV export faster'],
        requests: ['Profile the exporter first'],
        files: ['src/export/csv.ts (read, edited)', 'bench/export.bench.ts (created)'],
        errors: ['$ npm test → FAIL src/export/csv.test.ts > keeps quotes'],
        decisions: ['Stream rows instead of building one string'],
      },
      throughSeq: 40,
      tokens: 0,
      producer: `model:${MODEL}`,
    };
    server.enqueue(
      openAIReply({
        content:
          '## Session intent\nSpeed up exports.\n## Files touched\n- src/export/csv.ts (edited)\n- src/export/stream.ts (created)\n## Decisions\n- Use a Writable stream.',
      }),
    );
    const summary = await summarizer().summarize(input(MARSHMALLOW.slice(20), { previous, maxTokens: 1000 }));
    expect(summary.sections.intent).toEqual(['Make the CSV export faster']);
    expect(summary.sections.requests).toEqual(['Profile the exporter first']);
    expect(summary.sections.files).toEqual([
      'bench/export.bench.ts (created)',
      'src/export/csv.ts (edited)',
      'src/export/stream.ts (created)',
    ]);
    expect(summary.sections.errors).toEqual(['$ npm test → FAIL src/export/csv.test.ts > keeps quotes']);
    // Decisions may be superseded: the model's word stands.
    expect(summary.sections.decisions).toEqual(['Use a Writable stream.']);
  });

  it("keeps the model's own items over re-added ones when the cap is tight", async () => {
    const previous = {
      text: '',
      sections: { files: Array.from({ length: 30 }, (_, i) => `src/legacy/module-${i}.ts (read)`) },
      throughSeq: 5,
      tokens: 0,
      producer: 'extractive',
    };
    server.enqueue(openAIReply({ content: '## Files touched\n- src/new/entry.ts (created)' }));
    const summary = await summarizer().summarize(
      input(MARSHMALLOW.slice(0, 4), { previous, maxTokens: 120 }),
    );
    expect(summary.tokens).toBeLessThanOrEqual(120);
    expect(summary.sections.files).toContain('src/new/entry.ts (created)');
    expect((summary.sections.files ?? []).length).toBeLessThan(31);
  });

  it('bounds its own input to maxInputTokens even for the 1.5 MB session, eliding the oldest middle', async () => {
    const previous = summarizeExtractively(input(PI_MONO.slice(0, 100), { maxTokens: 1500 }));
    for (const maxInputTokens of [3_000, 8_000, 32_000]) {
      (server.requests as unknown[]).length = 0;
      server.enqueue(openAIReply({ content: REPLY }));
      await summarizer({ maxInputTokens }).summarize(input(PI_MONO, { previous, maxTokens: 1500 }));
      const [system, prompt] = wireMessages(server);
      const sent = countTokens(system?.content ?? '') + countTokens(prompt?.content ?? '');
      expect(sent).toBeLessThanOrEqual(maxInputTokens - DEFAULT_PROMPT_OVERHEAD_TOKENS);
      expect(sent).toBeGreaterThan(maxInputTokens * 0.6);
      const text = prompt?.content ?? '';
      expect(text).toContain('<transcript>\n[#0 user]\nalright, read @packages/coding-agent/src/main.ts');
      expect(text).toMatch(/\[… \d+ messages elided \(#\d+–#\d+\) …\]/);
      expect(text).toContain('[#978 user]');
      expect(text).toContain('<previous-summary>');
      // Tool results are cut to toolResultMaxChars (1,800 runes) before they reach the prompt.
      if (maxInputTokens === 32_000) expect(text).toContain('chars cut …]');
    }
  });

  it('cuts a reply that ignores max_tokens to the cap', async () => {
    const facts = Array.from(
      { length: 400 },
      (_, i) => `- Fact number ${i}: the cache key includes the tenant id ${i}.`,
    );
    server.enqueue(
      openAIReply({
        content: `## Session intent\nShip the cache.\n## Key facts\n${facts.join('\n')}`,
        finishReason: 'length',
      }),
    );
    const summary = await summarizer().summarize(input(MARSHMALLOW, { maxTokens: 256 }));
    expect(summary.tokens).toBeLessThanOrEqual(256);
    expect(countTokens(summary.text)).toBe(summary.tokens);
    expect(summary.sections.intent).toEqual(['Ship the cache.']);
    // The newest facts won the budget.
    expect(summary.sections.facts?.at(-1)).toBe('Fact number 399: the cache key includes the tenant id 399.');
  });

  it('keeps a reply that ignored the format as facts instead of losing it', async () => {
    server.enqueue(openAIReply({ content: 'The agent fixed the rounding bug.\n\nIt still has to submit.' }));
    const summary = await summarizer().summarize(input(MARSHMALLOW));
    expect(summary.sections.facts).toEqual(['The agent fixed the rounding bug.', 'It still has to submit.']);
  });

  it('sends temperature only when set', async () => {
    server.enqueue(openAIReply({ content: REPLY }));
    await summarizer({ temperature: 0 }).summarize(input(MARSHMALLOW));
    expect((server.requests[0]?.body as Record<string, unknown> | undefined)?.temperature).toBe(0);
  });

  it('throws a SummarizerError carrying the cause when the server answers 500', async () => {
    server.enqueue({ status: 500, body: { error: { message: 'upstream exploded', type: 'server_error' } } });
    const error = await summarizer()
      .summarize(input(MARSHMALLOW))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SummarizerError);
    const failure = error as SummarizerError;
    expect(failure.code).toBe('summarizer_failed');
    expect(failure.failure).toBe('model_call_failed');
    expect(failure.status).toBe(500);
    expect(failure.overflow).toBe(false);
    expect(failure.cause).toBeInstanceOf(ModelCallError);
  });

  it('sends an overflowing summary call again with half the input, then a quarter: never refused for length', async () => {
    server.enqueue(
      openAIErrors.contextLengthExceeded({ limit: 8192, requested: 9000 }),
      openAIReply({ content: REPLY }),
    );
    const summary = await summarizer().summarize(input(MARSHMALLOW, { maxTokens: 500 }));
    expect(summary.producer).toBe(`model:${MODEL}`);
    expect(server.requests).toHaveLength(2);
    const sizes = server.requests.map((request) => countTokens(JSON.stringify(request.body)));
    expect(sizes[1]).toBeLessThan((sizes[0] ?? 0) * 0.6);
  });

  it('returns the fallback summary, marked, when the call overflows at every size', async () => {
    server.enqueue(
      ...Array.from({ length: SUMMARY_OVERFLOW_RETRIES + 1 }, () =>
        openAIErrors.contextLengthExceeded({ limit: 8192, requested: 9000 }),
      ),
    );
    const seen: SummarizerError[] = [];
    const summary = await summarizer({
      fallback: createExtractiveSummarizer(),
      onFallback: (error) => seen.push(error),
    }).summarize(input(MARSHMALLOW, { maxTokens: 500 }));
    expect(summary.producer).toBe('fallback:extractive');
    expect(isFallbackSummary(summary)).toBe(true);
    expect(summary.tokens).toBeLessThanOrEqual(500);
    expect(summary.sections.errors).toEqual(['edit → E999 IndentationError: unexpected indent']);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.overflow).toBe(true);
    expect(seen[0]?.status).toBe(400);
  });

  it('fails without a request when maxInputTokens cannot hold the fixed prompt', async () => {
    const error = await summarizer({ maxInputTokens: 600 })
      .summarize(input(MARSHMALLOW))
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SummarizerError);
    expect((error as SummarizerError).failure).toBe('input_budget_too_small');
    expect(server.requests).toHaveLength(0);
  });

  it('does not fall back when the caller aborts', async () => {
    server.enqueue({ ...openAIReply({ content: REPLY }), delayMs: 2_000 });
    const controller = new AbortController();
    const pending = summarizer({ fallback: createExtractiveSummarizer() })
      .summarize(input(MARSHMALLOW, { signal: controller.signal }))
      .catch((caught: unknown) => caught);
    setTimeout(() => controller.abort(), 50);
    const error = await pending;
    expect(error).toBeInstanceOf(SummarizerError);
    expect((error as SummarizerError).failure).toBe('aborted');
  });

  it("asks for the smaller of the summary's cap and the model's own output cap, and fits the summary to it", async () => {
    const facts = Array.from({ length: 400 }, (_, i) => `- Fact ${i}: the retry budget is ${i} calls.`);
    const rambling = `## Session intent\nShip the cache.\n## Key facts\n${facts.join('\n')}`;
    server.enqueue(openAIReply({ content: rambling }), openAIReply({ content: rambling }));
    const capped = await summarizer({ maxOutputTokens: 512 }).summarize(
      input(MARSHMALLOW, { maxTokens: 1_024 }),
    );
    const roomy = await summarizer({ maxOutputTokens: 2_048 }).summarize(
      input(MARSHMALLOW, { maxTokens: 700 }),
    );
    const sent = server.requests.map((request) => (request.body as { max_tokens?: number }).max_tokens);
    expect(sent).toEqual([512, 700]);
    expect(capped.tokens).toBeLessThanOrEqual(512);
    expect(capped.tokens).toBeGreaterThan(400);
    expect(roomy.tokens).toBeLessThanOrEqual(700);
    expect(roomy.tokens).toBeGreaterThan(512);
    // The prompt tells the model the cap it is held to.
    expect(wireMessages(server, 0)[1]?.content).toContain('Stay under 512 tokens');
  });

  it('rejects a non-positive input bound at construction', () => {
    expect(() => summarizer({ maxInputTokens: 0 })).toThrow(/maxInputTokens/);
  });

  it('rejects a non-positive output cap at construction, naming it', () => {
    expect(() => summarizer({ maxOutputTokens: 0 })).toThrow(/maxOutputTokens/);
    expect(() => summarizer({ maxOutputTokens: 1.5 })).toThrow(/maxOutputTokens/);
  });
});
