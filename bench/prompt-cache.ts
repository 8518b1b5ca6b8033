/**
 * What ctxkit's automatic prompt-cache breakpoints save on Anthropic: every corpus session replayed
 * under the `default` preset, each request rendered as the Anthropic model client sends it, and priced
 * by Anthropic's cache rules (src/replay/anthropic-cache-bill.ts: entries written only at breakpoints,
 * reads found at most 20 blocks back from a breakpoint, the minimum cacheable prefix, 5-minute entries,
 * writes 1.25 ×, reads 0.1 ×, the rest 1 ×) three ways:
 *
 * - no breakpoints: every input token at list price;
 * - one breakpoint on the last block of each request, what agents commonly set;
 * - ctxkit's breakpoints, as the client places them (its end, where the previous call last wrote inside
 *   the shared prefix, the end of tools and system).
 *
 * Tokens are counted with o200k, a stand-in for Claude's tokenizer (which gives more tokens for the
 * same text): the ratios hold, the absolute figures are approximate. The minimum cacheable prefix is
 * claude-sonnet-4-6's (2,048).
 *
 *   npm run bench:prompt-cache      (or: npx tsx bench/prompt-cache.ts [--windows 16000,32000,128000])
 */
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { createExactCounter } from '../src/core/tokens/exact-counter.ts';
import { anthropicCacheBillOfReplay, type CacheMarking } from '../src/replay/anthropic-cache-bill.ts';
import { replayWithCtxkit } from '../src/replay/replay-with-ctxkit.ts';
import { corpusFiles, loadCorpusSession } from '../src/testing/corpus.ts';
import { parseFlags, windowsFlag } from './parse-flags.ts';
import { RecordedSession } from './peers/recorded-session.ts';
import { printTable } from './token-bench-support.ts';

const BILLED_MODEL = 'claude-sonnet-4-6';
const MAX_OUTPUT_TOKENS = 4_096;
const WINDOWS = windowsFlag(parseFlags(process.argv.slice(2)));
const MARKINGS: readonly CacheMarking[] = ['none', 'end', 'ctxkit'];

interface WindowTotals {
  calls: number;
  input: number;
  billed: Record<CacheMarking, number>;
  read: Record<CacheMarking, number>;
  written: Record<CacheMarking, number>;
}

const counter = createExactCounter('o200k');
const countTokens = (json: string) => counter.count(json);
const files = corpusFiles();

async function billWindow(window: number): Promise<WindowTotals> {
  const totals: WindowTotals = {
    calls: 0,
    input: 0,
    billed: { none: 0, end: 0, ctxkit: 0 },
    read: { none: 0, end: 0, ctxkit: 0 },
    written: { none: 0, end: 0, ctxkit: 0 },
  };
  for (const [index, file] of files.entries()) {
    const transcript = loadCorpusSession(file);
    const { requests } = await replayWithCtxkit(transcript, PRESETS.default, {
      contextWindow: window,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      tools: new RecordedSession(transcript).toolDefinitions(),
      model: 'gpt-4o',
    });
    for (const marking of MARKINGS) {
      const bill = anthropicCacheBillOfReplay(requests, { marking, countTokens, model: BILLED_MODEL });
      totals.billed[marking] += bill.totals.billed;
      totals.read[marking] += bill.totals.read;
      totals.written[marking] += bill.totals.written + bill.totals.writtenLong;
      if (marking === 'none') {
        totals.input += bill.totals.input;
        totals.calls += bill.calls.length;
      }
    }
    process.stderr.write(`\r${window / 1000}k: ${index + 1}/${files.length} sessions`);
  }
  process.stderr.write('\n');
  return totals;
}

const m = (value: number) => `${(value / 1e6).toFixed(2)}M`;
const pct = (value: number) => `${(100 * value).toFixed(1)} %`;
const rows: string[][] = [];
for (const window of WINDOWS) {
  const totals = await billWindow(window);
  const { none, end, ctxkit } = totals.billed;
  rows.push([
    `${window / 1000}k`,
    String(totals.calls),
    m(totals.input),
    m(none),
    m(end),
    m(ctxkit),
    pct(1 - ctxkit / none),
    pct(1 - ctxkit / end),
    pct(totals.read.end / totals.input),
    pct(totals.read.ctxkit / totals.input),
  ]);
}
console.log(
  `\nAnthropic input bill of ctxkit's default preset, all ${files.length} corpus sessions, in list-price input tokens` +
    `\n(o200k counts standing in for Claude's tokenizer; minimum cacheable prefix of ${BILLED_MODEL}; 5-minute entries,` +
    '\ncalls 30 s apart; writes 1.25 ×, reads 0.1 ×, uncached 1 ×):\n',
);
printTable(
  [
    'window',
    'calls',
    'input',
    'no breakpoints',
    'one at the end',
    'ctxkit',
    'saving vs none',
    'saving vs end',
    'read share (end)',
    'read share (ctxkit)',
  ],
  rows,
);
