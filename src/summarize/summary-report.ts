/**
 * Per-call reports of summarizers (tokens, model, duration): what callers count and price summaries by.
 * The bundled summarizers report through `SummarizeInput.onReport`; `withSummaryReports` listens to any
 * summarizer, and reports counted figures for one that does not report itself.
 */
import type { Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import type { SummaryReport } from '../core/summary-report.ts';
import { forEachInSlices, WorkSlices } from '../core/work-slices.ts';
import type { SummarizeInput, Summarizer } from './summarizer.ts';

/** What a summarizer reads, counted: the messages' text, call arguments and results, and the previous summary. */
export function countSummaryInput(
  input: Pick<SummarizeInput, 'messages' | 'previous' | 'countTokens'>,
): number {
  let tokens = input.previous ? input.countTokens(input.previous.text) : 0;
  for (const message of input.messages) tokens += countMessage(message, input.countTokens);
  return tokens;
}

/** `countSummaryInput` in slices (a summary of hundreds of thousands of messages counts every one). */
export async function countSummaryInputInSlices(
  input: Pick<SummarizeInput, 'messages' | 'previous' | 'countTokens'>,
  slices: WorkSlices = new WorkSlices(),
): Promise<number> {
  let tokens = input.previous ? input.countTokens(input.previous.text) : 0;
  await forEachInSlices(
    input.messages,
    (message) => {
      tokens += countMessage(message, input.countTokens);
    },
    slices,
  );
  return tokens;
}

function countMessage(message: Message, countTokens: (text: string) => number): number {
  let tokens = 0;
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') tokens += countTokens(part.text);
    else if (part.type === 'tool-call') tokens += countTokens(part.args);
    else if (part.type === 'tool-result') tokens += countTokens(part.content);
  }
  return tokens;
}

/** The report of a call that produced `summary` with no model: both sides counted. */
export function countedReport(
  summarizer: string,
  input: SummarizeInput,
  summary: Summary | undefined,
  durationMs: number,
  error?: unknown,
): SummaryReport {
  return reportOf(summarizer, countSummaryInput(input), input, summary, durationMs, error);
}

/** `countedReport`, its input counted in slices. */
export async function countedReportInSlices(
  summarizer: string,
  input: SummarizeInput,
  summary: Summary | undefined,
  durationMs: number,
  slices: WorkSlices = new WorkSlices(),
): Promise<SummaryReport> {
  return reportOf(summarizer, await countSummaryInputInSlices(input, slices), input, summary, durationMs);
}

function reportOf(
  summarizer: string,
  inputTokens: number,
  input: SummarizeInput,
  summary: Summary | undefined,
  durationMs: number,
  error?: unknown,
): SummaryReport {
  return {
    summarizer,
    inputTokens,
    outputTokens: summary?.tokens ?? 0,
    tokenSource: 'counted',
    durationMs,
    throughSeq: input.throughSeq,
    ...(error !== undefined ? { error: errorMessage(error) } : {}),
  };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * `summarizer`, with `listener` told of every call (and any `onReport` the caller passed still told).
 * A summarizer that reports nothing itself gets a counted report per call, failures included.
 */
export function withSummaryReports(
  summarizer: Summarizer,
  listener: (report: SummaryReport) => void,
): Summarizer {
  return {
    name: summarizer.name,
    usesModel: summarizer.usesModel,
    async summarize(input: SummarizeInput): Promise<Summary> {
      let reported = false;
      const onReport = (report: SummaryReport): void => {
        reported = true;
        listener(report);
        input.onReport?.(report);
      };
      const started = performance.now();
      try {
        const summary = await summarizer.summarize({ ...input, onReport });
        if (!reported) onReport(countedReport(summarizer.name, input, summary, performance.now() - started));
        return summary;
      } catch (error) {
        if (!reported)
          onReport(countedReport(summarizer.name, input, undefined, performance.now() - started, error));
        throw error;
      }
    },
  };
}
