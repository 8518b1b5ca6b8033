/**
 * Token counting speed: throughput over corpus text of the exact tokenizers, of chars/N and of the token
 * units the calibrated counter scales (`countTokenUnits`, aim ≥ 50 MB/s); then what re-estimating the
 * largest corpus session costs after one append, with the per-message cache, with the running tally, and
 * with neither, and what a calibrated counter's multiplier moving costs a tally (arithmetic, no counting).
 *
 *   npx tsx bench/token-speed.ts [corpus-dir]
 */
import type { Message } from '../src/core/message.ts';
import {
  CalibratedTokenCounter,
  ContextTokenTally,
  countTokenUnits,
  createExactCounter,
  createHeuristicCounter,
  estimateContextTokens,
  estimateMessageTokens,
  forEachCountedText,
  MessageTokenCache,
  type TokenCounter,
} from '../src/core/tokens/index.ts';
import { DEFAULT_TEXT_UNITS_MEMO_MIN_CHARS } from '../src/core/tokens/text-units-memo.ts';
import {
  CORPUS_DIR,
  median,
  Progress,
  percentile,
  printTable,
  readCorpus,
  readCorpusSession,
} from './token-bench-support.ts';

const BIG_SESSION = 'pi-mono__before-compaction.jsonl';
const THROUGHPUT_RUNS = 5;
const CACHED_REPETITIONS = 5_000;
const UNCACHED_REPETITIONS = 10;

const o200k = createExactCounter('o200k');
const cl100k = createExactCounter('cl100k');
const charsPerFour = createHeuristicCounter(4);
/** The measure alone, as a counter, so it is timed like the others. */
const tokenUnits: TokenCounter = { name: 'token units (countTokenUnits)', count: countTokenUnits };

function throughput(pieces: readonly string[], bytes: number): string[][] {
  const rows: string[][] = [];
  for (const counter of [o200k, cl100k, charsPerFour, tokenUnits, new CalibratedTokenCounter()]) {
    const seconds: number[] = [];
    const progress = new Progress(`counting corpus text with ${counter.name}`, THROUGHPUT_RUNS);
    let tokens = 0;
    for (let run = 0; run < THROUGHPUT_RUNS; run++) {
      tokens = 0;
      // CPU time of this process, not wall time: other work on a shared machine does not skew it.
      const start = process.cpuUsage();
      for (const piece of pieces) tokens += counter.count(piece);
      const used = process.cpuUsage(start);
      seconds.push((used.user + used.system) / 1e6);
      progress.tick();
    }
    progress.done();
    const first = seconds[0] ?? Number.NaN;
    rows.push([
      counter.name,
      String(Math.round(tokens)),
      (bytes / 1e6 / first).toFixed(1),
      (bytes / 1e6 / median(seconds.slice(1))).toFixed(1),
    ]);
  }
  return rows;
}

/** A copy of a session message under a fresh id: an append whose size follows the session's own mix. */
const appendLike = (template: Message, repetition: number, seq: number): Message => ({
  ...template,
  id: `bench-append-${repetition}`,
  seq,
});

function timings(label: string, repetitions: number, run: (repetition: number) => void): number[] {
  const samples: number[] = [];
  const progress = new Progress(label, repetitions);
  for (let repetition = 0; repetition < repetitions; repetition++) {
    const start = performance.now();
    run(repetition);
    samples.push(performance.now() - start);
    progress.tick();
  }
  progress.done();
  return samples;
}

const row = (label: string, samples: number[]): string[] => [
  label,
  String(samples.length),
  `${(median(samples) * 1_000).toFixed(1)} µs`,
  `${(percentile(samples, 0.99) * 1_000).toFixed(1)} µs`,
  `${(Math.max(...samples) * 1_000).toFixed(1)} µs`,
];

function appendCosts(messages: Message[], counter: TokenCounter): string[][] {
  const template = (repetition: number) => messages[repetition % messages.length] as Message;
  const rows: string[][] = [];

  rows.push(
    row(
      `${counter.name}: the appended message alone, no cache`,
      timings('one message', CACHED_REPETITIONS, (repetition) => {
        estimateMessageTokens(template(repetition), counter);
      }),
    ),
  );

  const cache = new MessageTokenCache();
  estimateContextTokens(messages, counter, { cache });
  rows.push(
    row(
      `${counter.name}: estimateContextTokens, cache, nothing new`,
      timings('cached, no change', CACHED_REPETITIONS, () => {
        estimateContextTokens(messages, counter, { cache });
      }),
    ),
  );
  rows.push(
    row(
      `${counter.name}: estimateContextTokens, cache, one append`,
      timings('cached, one append', CACHED_REPETITIONS, (repetition) => {
        messages.push(appendLike(template(repetition), repetition, messages.length));
        estimateContextTokens(messages, counter, { cache });
        const appended = messages.pop();
        if (appended) cache.delete(appended.id);
      }),
    ),
  );

  const tally = new ContextTokenTally(counter, { cache }, messages);
  rows.push(
    row(
      `${counter.name}: ContextTokenTally, append + estimate`,
      timings('tally, one append', CACHED_REPETITIONS, (repetition) => {
        tally.append(appendLike(template(repetition), repetition, tally.length));
        tally.estimate();
        tally.truncate(messages.length);
        cache.delete(`bench-append-${repetition}`);
      }),
    ),
  );

  if (counter instanceof CalibratedTokenCounter) {
    rows.push(
      row(
        `${counter.name}: multiplier moves, tally re-derives`,
        timings('multiplier moves', CACHED_REPETITIONS, (repetition) => {
          counter.observe({ units: 10_000, tokens: 10_000 + (repetition % 7) * 100 });
          tally.total();
        }),
      ),
    );
  }

  rows.push(
    row(
      `${counter.name}: estimateContextTokens, no cache, one append`,
      timings('uncached, one append', UNCACHED_REPETITIONS, (repetition) => {
        messages.push(appendLike(template(repetition), repetition, messages.length));
        estimateContextTokens(messages, counter);
        messages.pop();
      }),
    ),
  );
  return rows;
}

function main(): void {
  const dir = process.argv[2] ?? CORPUS_DIR;
  const pieces: string[] = [];
  for (const { transcript } of readCorpus(dir)) {
    pieces.push(...transcript.system);
    for (const message of transcript.messages)
      forEachCountedText(message, (_category, text) => pieces.push(text));
  }
  const bytes = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece, 'utf8'), 0);
  const throughputRows = throughput(pieces, bytes);

  const { transcript } = readCorpusSession(BIG_SESSION, dir);
  const messages = [...transcript.messages];
  const costRows = [
    ...appendCosts(messages, o200k),
    ...appendCosts(messages, charsPerFour),
    ...appendCosts(messages, new CalibratedTokenCounter({ model: 'any' })),
  ];

  console.log(`\ncorpus: ${dir}`);
  console.log(
    `\nThroughput over all corpus text (${pieces.length} pieces, ${(bytes / 1e6).toFixed(2)} MB UTF-8), ` +
      'per second of CPU time\n',
  );
  printTable(
    ['counter', 'tokens', 'MB/s first run', `MB/s median of runs 2–${THROUGHPUT_RUNS}`],
    throughputRows,
  );
  console.log(
    `\nRuns 2–${THROUGHPUT_RUNS} count the same text again: what a counter remembers shows there (o200k's piece ` +
      `cache; the calibrated counter's units of texts of ${DEFAULT_TEXT_UNITS_MEMO_MIN_CHARS} characters or more). ` +
      'The first run counts every text for the first time.',
  );
  const sizes = messages.map((message) => {
    let runes = 0;
    forEachCountedText(message, (_category, text) => {
      runes += text.length;
    });
    return runes;
  });
  console.log(
    `\nRe-estimating ${BIG_SESSION} (${messages.length} messages, no usage recorded, so the full path) ` +
      'after appending one message;\nappended messages are copies of the session’s own messages in turn, under fresh ids ' +
      `(text per message: p50 ${median(sizes)}, p99 ${Math.round(percentile(sizes, 0.99))}, max ${Math.max(...sizes)} chars)\n`,
  );
  printTable(['what', 'runs', 'p50', 'p99', 'max'], costRows);
}

main();
