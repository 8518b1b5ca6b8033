/**
 * The extractive summarizer reads a history of hundreds of thousands of messages in slices, the event
 * loop getting turns meanwhile, and reads exactly what it read at once.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseCorpusJsonl } from '../adapters/corpus.ts';
import type { Message } from '../core/message.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { extractSections, extractSectionsInSlices } from './extract-sections.ts';
import { createExtractiveSummarizer, summarizeExtractively } from './extractive-summarizer.ts';
import { countSummaryInput, countSummaryInputInSlices } from './summary-report.ts';

const CORPUS = new URL('../../fixtures/corpus/', import.meta.url);
const SESSION = 'openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl';
const countTokens = (text: string): number => createHeuristicCounter(4).count(text);

it('reads the same sections and counts the same tokens in slices as at once', async () => {
  const messages = parseCorpusJsonl(readFileSync(new URL(SESSION, CORPUS), 'utf8'), SESSION).messages;
  let now = 0;
  const everyMessage = new WorkSlices(1, () => now++);
  const options = { toolResultMaxChars: 2_000 };
  expect(await extractSectionsInSlices(messages, options, everyMessage)).toEqual(
    extractSections(messages, options),
  );
  expect(await countSummaryInputInSlices({ messages, countTokens }, everyMessage)).toBe(
    countSummaryInput({ messages, countTokens }),
  );
});

it('summarizes 200,000 messages letting other work run, as at once', async () => {
  const turn = (index: number): Message[] =>
    numbered([
      user(`please fix bug ${index} in src/file${index}.ts`),
      callsTo([`c${index}`, 'bash', JSON.stringify({ command: `grep -n bug${index} src/file${index}.ts` })]),
      result(`c${index}`, `src/file${index}.ts:${index}: bug${index}`),
      assistant(`I fixed bug ${index}: the loop now stops at the end of the list, so nothing is read twice.`),
    ]);
  const messages = Array.from({ length: 50_000 }, (_, index) => turn(index)).flat();
  const input = {
    messages,
    throughSeq: messages.length - 1,
    maxTokens: 2_000,
    toolResultMaxChars: 2_000,
    countTokens,
  };
  const turns = new EventLoopTurns();
  const reports: number[] = [];
  const summary = await createExtractiveSummarizer().summarize({
    ...input,
    onReport: (report) => reports.push(report.inputTokens),
  });
  turns.stop();
  expect(summary).toEqual(summarizeExtractively(input));
  expect(reports).toEqual([countSummaryInput(input)]);
  // At once, the summary and its count held the thread from start to end.
  expect(turns.count).toBeGreaterThanOrEqual(10);
});
