import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCorpusJsonl } from '../adapters/corpus.ts';
import type { Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { createExtractiveSummarizer, summarizeExtractively } from './extractive-summarizer.ts';
import type { SummarizeInput } from './summarizer.ts';

// The corpus fixtures (fixtures/corpus, with their manifest and licenses).
const CORPUS = new URL('../../fixtures/corpus/', import.meta.url);
const loadSession = (file: string): Message[] =>
  parseCorpusJsonl(readFileSync(new URL(file, CORPUS), 'utf8'), file).messages;

const MARSHMALLOW =
  'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling_replace__install-1__marshmallow-code__marshmallow-1867.jsonl';
const MARSHMALLOW_BASH =
  'swe-agent__replay__marshmallow-code__marshmallow-1867__default___install_from_source__marshmallow-code__marshmallow-1867.jsonl';
const TAU = 'tau-bench__gpt-4o-airline_task13_trial0.jsonl';
const PI_MONO = 'pi-mono__before-compaction.jsonl';
const SESSIONS = [
  MARSHMALLOW,
  MARSHMALLOW_BASH,
  TAU,
  PI_MONO,
  'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl',
];

const o200k = createExactCounter('o200k');
const countExact = (text: string): number => o200k.count(text);
const chars4 = createHeuristicCounter(4);
const countHeuristic = (text: string): number => chars4.count(text);

function input(messages: Message[], overrides: Partial<SummarizeInput> = {}): SummarizeInput {
  return {
    messages,
    throughSeq: messages[messages.length - 1]?.seq ?? 0,
    maxTokens: 1024,
    toolResultMaxChars: 1800,
    countTokens: countExact,
    ...overrides,
  };
}

describe('extractive summarizer on corpus sessions', () => {
  it('names the files a SWE-agent session edited and the line its failing edit check printed', async () => {
    const summary = await createExtractiveSummarizer().summarize(input(loadSession(MARSHMALLOW)));
    expect(summary.producer).toBe('extractive');
    expect(summary.sections.files).toContain('/testbed/src/marshmallow/fields.py (read, edited)');
    expect(summary.sections.files?.some((item) => item.startsWith('/testbed/reproduce.py ('))).toBe(true);
    expect(summary.sections.errors).toEqual(['edit → E999 IndentationError: unexpected indent']);
    expect(summary.text).toContain('/testbed/src/marshmallow/fields.py (read, edited)');
    expect(summary.text).toContain('E999 IndentationError: unexpected indent');
    expect(summary.sections.intent?.[0]).toMatch(/^We're currently solving the following issue/);
    expect(summary.sections.commands).toEqual(['ls -F', 'python reproduce.py', 'rm reproduce.py']);
  });

  it('reads files and errors out of bash commands when the agent had only a shell', async () => {
    const summary = await createExtractiveSummarizer().summarize(input(loadSession(MARSHMALLOW_BASH)));
    expect(summary.sections.files?.some((item) => item.startsWith('src/marshmallow/fields.py ('))).toBe(true);
    expect(
      summary.sections.errors?.some((item) => item.includes('IndentationError: unexpected indent')),
    ).toBe(true);
    expect(summary.sections.commands).toContain('pip install -e .[dev]');
  });

  it("names a tau-bench user's requests, in their words, and the tool errors once each", async () => {
    const messages = loadSession(TAU);
    const summary = await createExtractiveSummarizer().summarize(input(messages, { maxTokens: 2048 }));
    expect(summary.sections.intent).toEqual(["Hello! I'd like to change my upcoming flight, please."]);
    expect(summary.sections.requests).toContain(
      'Yes, please proceed with upgrading to economy class. I would also like to change the flight to a nonstop one from Atlanta to Las Vegas, preferably.',
    );
    expect(summary.sections.requests).toContain(
      'Sure, my user ID is james_lee_6136, and my reservation ID is XEWRD9.',
    );
    expect(summary.sections.errors).toEqual([
      'update_reservation_flights → Error: flight HAT030 not available on date 2024-05-13',
      'update_reservation_flights → Error: flight HAT223 not available on date 2024-05-14',
    ]);
    // Airport codes in `origin`/`destination` arguments are not files; a list of flights is not a plan.
    expect(summary.sections.files).toEqual([]);
    expect(summary.sections.plan).toEqual([]);
    expect(summary.sections.state?.[0]).toMatch(/^Your reservation has been successfully updated/);
  });

  it('keeps the newest requests when the cap cannot hold them all', async () => {
    const all = summarizeExtractively(input(loadSession(TAU), { maxTokens: 4096 })).sections.requests ?? [];
    const summary = await createExtractiveSummarizer().summarize(input(loadSession(TAU), { maxTokens: 160 }));
    expect(summary.tokens).toBeLessThanOrEqual(160);
    expect(summary.sections.intent).toEqual(["Hello! I'd like to change my upcoming flight, please."]);
    const kept = summary.sections.requests ?? [];
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(all.length);
    expect(kept).toEqual(all.slice(-kept.length));
  });

  it('embeds the offloaded transcript path (deepagents) and renders one heading per section', async () => {
    const summary = await createExtractiveSummarizer().summarize(
      input(loadSession(MARSHMALLOW), { historyRef: 'conversation_history/thread-1.md' }),
    );
    expect(summary.historyRef).toBe('conversation_history/thread-1.md');
    expect(summary.text.split('\n').slice(0, 2)).toEqual([
      '# Summary of the conversation so far',
      'Full transcript of the summarized messages: conversation_history/thread-1.md (read it for details left out here)',
    ]);
    for (const heading of [
      '## Session intent',
      '## Files touched',
      '## Commands run',
      '## Errors',
      '## Current state',
    ]) {
      expect(summary.text).toContain(heading);
    }
    expect(summary.tokens).toBe(countExact(summary.text));
  });

  it('summarizes the 979-message, 1.5 MB session in well under a second', () => {
    const messages = loadSession(PI_MONO);
    expect(messages.length).toBe(979);
    summarizeExtractively(input(messages.slice(0, 50))); // warm the tokenizer
    const started = performance.now();
    const summary = summarizeExtractively(input(messages, { maxTokens: 4096 }));
    const elapsed = performance.now() - started;
    expect(elapsed).toBeLessThan(1000);
    expect(summary.tokens).toBeLessThanOrEqual(4096);
    expect(summary.sections.intent?.[0]).toMatch(/^alright, read @packages\/coding-agent\/src\/main\.ts/);
    expect(
      summary.sections.errors?.some((item) => item.includes("error TS2304: Cannot find name 'join'.")),
    ).toBe(true);
  });
});

describe('extractive summarizer: cap and determinism', () => {
  const sessions = SESSIONS.map(loadSession);

  it('never exceeds its cap (64..4096) on random slices of corpus sessions, and is deterministic', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: sessions.length - 1 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 64, max: 4096 }),
        fc.boolean(),
        fc.boolean(),
        (which, a, b, cap, exact, withRef) => {
          const messages = sessions[which] ?? [];
          const start = Math.floor(Math.min(a, b) * messages.length);
          const end = Math.max(start + 1, Math.ceil(Math.max(a, b) * messages.length));
          const countTokens = exact ? countExact : countHeuristic;
          const slice = input(messages.slice(start, end), {
            maxTokens: cap,
            countTokens,
            ...(withRef ? { historyRef: 'conversation_history/property-session.md' } : {}),
          });
          const first = summarizeExtractively(slice);
          expect(first.tokens).toBeLessThanOrEqual(cap);
          expect(countTokens(first.text)).toBe(first.tokens);
          expect(summarizeExtractively({ ...slice, messages: structuredClone(slice.messages) })).toEqual(
            first,
          );
        },
      ),
      { numRuns: 60, seed: 20251121 },
    );
  });

  it('keeps the intent at the smallest cap', () => {
    const summary = summarizeExtractively(
      input(loadSession(MARSHMALLOW), { maxTokens: 64, historyRef: 'conversation_history/t.md' }),
    );
    expect(summary.tokens).toBeLessThanOrEqual(64);
    expect(summary.sections.intent?.[0]).toMatch(/^We're currently solving/);
    expect(summary.text).toContain('conversation_history/t.md');
  });
});

describe('extractive summarizer: merging the previous summary', () => {
  const first = numbered([
    user('Add retries to the HTTP client in src/http/client.ts'),
    assistant("I'll wrap fetch in a retry loop with exponential backoff."),
    callsTo(['c1', 'read_file', '{"path":"src/http/client.ts"}']),
    result('c1', 'export async function get() {}'),
    callsTo(['c2', 'bash', '{"command":"npm test"}']),
    result('c2', 'FAIL src/http/client.test.ts > retries 3 times\nTests: 1 failed'),
  ]);
  const second = numbered([
    user('Also log each retry'),
    callsTo(['c3', 'edit_file', '{"path":"src/http/client.ts"}']),
    result('c3', 'ok'),
    assistant('Done: retries are logged at debug level.'),
  ]).map((message) => ({ ...message, seq: message.seq + 10, id: `n${message.seq}` }));

  it('keeps previous facts, adds new ones, and lets the newest state replace the old', () => {
    const previous = summarizeExtractively(input(first));
    const merged = summarizeExtractively(input(second, { previous }));
    expect(merged.sections.intent).toEqual(['Add retries to the HTTP client in src/http/client.ts']);
    expect(merged.sections.requests).toEqual(['Also log each retry']);
    expect(merged.sections.decisions).toEqual(["I'll wrap fetch in a retry loop with exponential backoff."]);
    expect(merged.sections.files).toEqual(['src/http/client.ts (read, edited)']);
    expect(merged.sections.commands).toEqual(['npm test']);
    expect(merged.sections.errors).toEqual(['$ npm test → FAIL src/http/client.test.ts > retries 3 times']);
    expect(merged.sections.state).toEqual(['Done: retries are logged at debug level.']);
  });

  it('de-duplicates: a fact seen again moves to its newest place instead of repeating', () => {
    const previous = summarizeExtractively(input(first));
    const again = numbered([
      user('run the tests again'),
      callsTo(['c9', 'bash', '{"command":"npm test"}']),
      result('c9', 'ok'),
      callsTo(['c10', 'bash', '{"command":"git diff"}']),
      result('c10', ''),
    ]);
    const merged = summarizeExtractively(input(again, { previous }));
    expect(merged.sections.commands).toEqual(['npm test', 'git diff']);
  });

  it('never exceeds its cap over 20 summarize-merge rounds and still holds the intent', () => {
    const messages = loadSession(PI_MONO);
    const rounds = 20;
    const size = Math.ceil(messages.length / rounds);
    let previous: Summary | undefined;
    for (let round = 0; round < rounds; round++) {
      const chunk = messages.slice(round * size, (round + 1) * size);
      const summary: Summary = summarizeExtractively(
        input(chunk, {
          maxTokens: 600,
          ...(previous ? { previous } : {}),
          historyRef: 'conversation_history/pi.md',
        }),
      );
      expect(summary.tokens).toBeLessThanOrEqual(600);
      expect(countExact(summary.text)).toBe(summary.tokens);
      expect(summary.sections.intent?.[0]).toMatch(/^alright, read @packages\/coding-agent\/src\/main\.ts/);
      expect(summary.text).toContain('## Session intent');
      previous = summary;
    }
    // The newest round's facts won the budget: the last chunk's final request is there.
    expect(previous?.sections.requests?.at(-1)).toMatch(/^\$ find \./);
  });
});
