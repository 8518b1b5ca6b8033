/**
 * Where ctxkit's cache-priced bill goes, and how low any bill can go: every corpus session replayed
 * under the default policy (as `bench:peers` does) and each call's input split into
 *
 * - the session's first request, written whole;
 * - messages sent for the first time (a tool result, the assistant's reply, a pointer that replaced a
 *   result), written once at the cache-write price;
 * - the rest of the unshared tail: messages re-written because an edit changed something before them
 *   (a compaction, an offload);
 * - the shared prefix, read at the cache-read price.
 *
 * The floor is what a system pays that shows every message as ctxkit's default shows it on arrival and
 * keeps nothing else between calls but the system prompt and tool definitions: the first requests, every
 * message written once, and the fixed prefix read on each later call. No system that lets the model see
 * its tool results can bill less on this corpus.
 *
 * A working agent carries more than that. Two things no system can drop without breaking the agent or
 * the bench's own rules: the user's requests (a fact retention counts; here kept verbatim) and, on a
 * call that answers tool results, the assistant message that made those calls (a result without its
 * call is an orphan). "Floor + requests + calls" adds those, read at the cache-read price from the call
 * after they were first sent. The withdrawn goal's column (the effective bill replaced it: see
 * bench/working-set.ts) is 0.6 × the cheapest peer's bill in
 * `bench/results/peers-<window>.json`, when that file exists.
 *
 *   npm run bench:cache-bill            (or: npx tsx bench/peers/cache-bill.ts [--windows 16000,32000])
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExactCounter } from '../../src/core/tokens/exact-counter.ts';
import { computeReplayMetrics } from '../../src/replay/compute-replay-metrics.ts';
import { DEFAULT_CACHE_PRICING } from '../../src/replay/replay-types.ts';
import { corpusFiles, loadCorpusSession } from '../../src/testing/corpus.ts';
import { parseFlags, windowsFlag } from '../parse-flags.ts';
import { Progress, printTable } from '../token-bench-support.ts';
import { BILL_RATIO_GOAL } from './aggregate.ts';
import { replayWithCtxkitPreset } from './ctxkit-peer.ts';
import { createSummaryModel } from './summary-model.ts';
import { workingCarry } from './working-carry.ts';

const MAX_OUTPUT_TOKENS = 4_096;
const WINDOWS = windowsFlag(parseFlags(process.argv.slice(2)));

interface Split {
  bill: number;
  firstRequests: number;
  firstSends: number;
  rewrites: number;
  reads: number;
  floor: number;
  /** The floor plus the user's requests and each result's own call, read on the calls after they arrive. */
  workingFloor: number;
}

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

/** 0.6 × the cheapest peer's cache-priced bill at this window, from the last `bench:peers` run. */
function goalAt(window: number): number | undefined {
  const file = join(RESULTS_DIR, `peers-${window}.json`);
  if (!existsSync(file)) return undefined;
  const results = JSON.parse(readFileSync(file, 'utf8')) as {
    systems: { peer?: boolean; billedWithCache: number; sessions: number }[];
  };
  const bills = results.systems
    .filter((system) => system.peer && system.sessions > 0)
    .map((system) => system.billedWithCache);
  return bills.length > 0 ? BILL_RATIO_GOAL * Math.min(...bills) : undefined;
}

async function splitWindow(window: number): Promise<Split> {
  const counter = createExactCounter('o200k');
  const { readMultiplier: read, writeMultiplier: write } = DEFAULT_CACHE_PRICING;
  const split: Split = {
    bill: 0,
    firstRequests: 0,
    firstSends: 0,
    rewrites: 0,
    reads: 0,
    floor: 0,
    workingFloor: 0,
  };
  const files = corpusFiles();
  const progress = new Progress(`${window / 1000}k`, files.length);
  for (const file of files) {
    const transcript = loadCorpusSession(file);
    const replay = await replayWithCtxkitPreset('default', transcript, {
      contextWindow: window,
      maxOutputTokens: MAX_OUTPUT_TOKENS,
      summaryModel: createSummaryModel(),
      model: 'gpt-4o',
    });
    const scored = computeReplayMetrics(
      file,
      'ctxkit:default',
      transcript.messages,
      replay.requests,
      replay.finalMemory,
      {
        contextWindow: window,
        maxOutputTokens: MAX_OUTPUT_TOKENS,
      },
    );
    const carry = workingCarry(transcript.messages, (text) => counter.count(text));
    let sentBefore = new Set<string>();
    replay.requests.forEach((request, index) => {
      const call = scored.calls[index];
      if (!call) return;
      const unshared = call.inputTokens - call.sharedPrefixTokens;
      split.bill += call.billedWithCache;
      const fixed = counter.count(request.system) + counter.count(JSON.stringify(request.tools));
      if (index === 0) {
        split.firstRequests += write * unshared;
        split.floor += write * unshared;
      } else {
        let fresh = 0;
        for (const message of request.messages) {
          if (!sentBefore.has(message.id)) fresh += counter.count(JSON.stringify(message.parts));
        }
        fresh = Math.min(fresh, unshared);
        split.firstSends += write * fresh;
        split.rewrites += write * (unshared - fresh);
        split.reads += read * call.sharedPrefixTokens;
        split.floor += write * fresh + read * Math.min(fixed, call.sharedPrefixTokens);
        split.workingFloor += read * (carry[index] ?? 0);
      }
      sentBefore = new Set(request.messages.map((message) => message.id));
    });
    progress.tick();
  }
  progress.done();
  split.workingFloor += split.floor;
  return split;
}

const rows: string[][] = [];
for (const window of WINDOWS) {
  const split = await splitWindow(window);
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  rows.push([
    `${window / 1000}k`,
    n(split.bill),
    n(split.firstRequests),
    n(split.firstSends),
    n(split.rewrites),
    n(split.reads),
    n(split.floor),
    n(split.workingFloor),
    ((goal) => (goal === undefined ? '–' : n(goal)))(goalAt(window)),
  ]);
}
console.log('\nctxkit default, billed with cache (reads 0.1 ×, writes 1.25 ×), all 52 corpus sessions:\n');
printTable(
  [
    'window',
    'billed',
    'first requests',
    'first sends',
    're-writes',
    'reads',
    'floor (any system)',
    'floor + requests + calls',
    'withdrawn goal (0.6 × cheapest peer)',
  ],
  rows,
);
