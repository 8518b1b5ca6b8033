import { describe, expect, it } from 'vitest';
import type { SummaryReport } from '../entries/core.ts';
import {
  createExtractiveSummarizer,
  createModelSummarizer,
  type SummarizeInput,
  withSummaryReports,
} from '../entries/summarize.ts';
import type { Message, ModelClient, Summarizer } from '../index.ts';
import { withStreamFromComplete } from '../providers/stream-events-of-response.ts';
import { callsTo, numbered, result, user } from '../testing/build-messages.ts';

const countTokens = (text: string) => Math.ceil(text.length / 4);
const messages: Message[] = numbered([
  user('Fix the failing test in src/a.test.ts'),
  callsTo(['c1', 'bash', '{"command":"npm test"}']),
  result('c1', 'FAIL src/a.test.ts: expected 2, got 1', { name: 'bash' }),
]);
const input = (onReport?: (report: SummaryReport) => void): SummarizeInput => ({
  messages,
  throughSeq: 2,
  maxTokens: 500,
  toolResultMaxChars: 1_800,
  countTokens,
  ...(onReport ? { onReport } : {}),
});

/** A model client that answers every request with a summary and reports usage. */
const client = (fail = false): ModelClient =>
  withStreamFromComplete({
    provider: 'stub',
    async complete() {
      if (fail) throw new Error('503 overloaded');
      return {
        message: {
          id: 'r',
          seq: 0,
          role: 'assistant',
          parts: [{ type: 'text', text: '## Intent\n- Fix the failing test in src/a.test.ts' }],
          meta: {},
        },
        usage: { inputTokens: 812, outputTokens: 64, cacheReadTokens: 512 },
        stopReason: 'stop',
        model: 'gpt-4o-mini-2024-07-18',
      };
    },
  });

describe('summarizer reports, through the public API', () => {
  it('the extractive summarizer reports counted tokens for each call', async () => {
    const reports: SummaryReport[] = [];
    const summary = await createExtractiveSummarizer().summarize(input((report) => reports.push(report)));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      summarizer: 'extractive',
      tokenSource: 'counted',
      outputTokens: summary.tokens,
      throughSeq: 2,
    });
    const read = messages.flatMap((message) =>
      message.parts.map((part) =>
        part.type === 'text'
          ? part.text
          : part.type === 'tool-call'
            ? part.args
            : part.type === 'tool-result'
              ? part.content
              : '',
      ),
    );
    expect(reports[0]?.inputTokens).toBe(read.reduce((sum, text) => sum + countTokens(text), 0));
    expect(reports[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('a model summarizer reports the provider’s usage and model', async () => {
    const reports: SummaryReport[] = [];
    const summarizer = createModelSummarizer({
      client: client(),
      model: 'gpt-4o-mini',
      maxInputTokens: 4_000,
    });
    await summarizer.summarize(input((report) => reports.push(report)));
    expect(reports).toEqual([
      {
        summarizer: 'model:gpt-4o-mini',
        model: 'gpt-4o-mini-2024-07-18',
        inputTokens: 812,
        outputTokens: 64,
        tokenSource: 'provider',
        usage: { inputTokens: 812, outputTokens: 64, cacheReadTokens: 512 },
        durationMs: expect.any(Number),
        throughSeq: 2,
      },
    ]);
  });

  it('a failed model call is reported with its error, then its fallback as a call of its own', async () => {
    const reports: SummaryReport[] = [];
    const summarizer = createModelSummarizer({
      client: client(true),
      model: 'gpt-4o-mini',
      maxInputTokens: 4_000,
      fallback: createExtractiveSummarizer(),
    });
    await summarizer.summarize(input((report) => reports.push(report)));
    expect(reports.map((report) => [report.summarizer, report.tokenSource, report.error])).toEqual([
      ['model:gpt-4o-mini', 'provider', expect.stringContaining('503 overloaded')],
      ['extractive', 'counted', undefined],
    ]);
  });

  it('withSummaryReports hears every call, and counts for a summarizer that reports nothing', async () => {
    const silent: Summarizer = {
      name: 'mine',
      usesModel: false,
      async summarize(given) {
        return { text: 'short', sections: {}, throughSeq: given.throughSeq, tokens: 2, producer: 'mine' };
      },
    };
    const heard: SummaryReport[] = [];
    const alsoTold: SummaryReport[] = [];
    await withSummaryReports(silent, (report) => heard.push(report)).summarize(
      input((r) => alsoTold.push(r)),
    );
    expect(heard).toEqual([
      expect.objectContaining({ summarizer: 'mine', tokenSource: 'counted', outputTokens: 2, throughSeq: 2 }),
    ]);
    expect(alsoTold).toEqual(heard);
    const wrapped = withSummaryReports(createExtractiveSummarizer(), (report) => heard.push(report));
    await wrapped.summarize(input());
    expect(heard).toHaveLength(2);
    expect(wrapped.name).toBe('extractive');
  });
});
