/**
 * Working-set coverage and the effective bill (replay/working-set.ts) of ctxkit presets over every corpus
 * session, per window: what the agent still sees of the earlier output it went on to use, and what it
 * pays, read-backs included, to see the rest.
 *
 *   npx tsx bench/working-set.ts [--presets default,deepagents] [--windows 16000,32000,128000]
 */
import { PRESETS } from '../src/core/policy/presets/index.ts';
import { computeReplayMetrics } from '../src/replay/compute-replay-metrics.ts';
import { replayWithCtxkit } from '../src/replay/replay-with-ctxkit.ts';
import { corpusFiles, loadCorpusSession } from '../src/testing/corpus.ts';
import { RecordedSession } from './peers/recorded-session.ts';

const args = new Map<string, string>();
for (let index = 2; index < process.argv.length; index += 2)
  args.set(process.argv[index]?.replace(/^--/, '') ?? '', process.argv[index + 1] ?? '');
const presets = (args.get('presets') ?? 'default,deepagents').split(',');
const windows = (args.get('windows') ?? '16000,32000,128000').split(',').map(Number);
const maxOutputTokens = 4_096;

const files = corpusFiles();
console.log(
  'preset      window  coverage  needed  read-backs  too-big  cache bill  effective bill  retention',
);
for (const name of presets) {
  const policy = PRESETS[name as keyof typeof PRESETS];
  if (!policy) throw new Error(`unknown preset ${name}`);
  for (const window of windows) {
    const totals = { needed: 0, seen: 0, readBacks: 0, tooBig: 0, bill: 0, effective: 0, facts: 0, kept: 0 };
    let done = 0;
    for (const file of files) {
      const transcript = loadCorpusSession(file);
      const { requests, finalMemory } = await replayWithCtxkit(transcript, policy, {
        contextWindow: window,
        maxOutputTokens,
        tools: new RecordedSession(transcript).toolDefinitions(),
        model: 'gpt-4o',
      });
      const scored = computeReplayMetrics(file, name, transcript.messages, requests, finalMemory, {
        contextWindow: window,
        maxOutputTokens,
      });
      totals.needed += scored.totals.workingSetNeeded;
      totals.seen += scored.totals.workingSetSeen;
      totals.readBacks += scored.totals.readBacks;
      totals.tooBig += scored.totals.oversizedReadBacks;
      totals.bill += scored.totals.billedWithCache;
      totals.effective += scored.totals.effectiveBill;
      totals.facts += scored.retention.total;
      totals.kept += scored.retention.kept;
      process.stderr.write(`\r${name} ${window}: ${++done}/${files.length} sessions`);
    }
    process.stderr.write('\n');
    const m = (value: number) => `${(value / 1e6).toFixed(2)}M`;
    console.log(
      `${name.padEnd(10)} ${String(window).padStart(7)}  ${(totals.seen / Math.max(1, totals.needed)).toFixed(3).padStart(8)}  ${String(totals.needed).padStart(6)}  ${String(totals.readBacks).padStart(10)}  ${String(totals.tooBig).padStart(7)}  ${m(totals.bill).padStart(10)}  ${m(totals.effective).padStart(14)}  ${(totals.kept / Math.max(1, totals.facts)).toFixed(4)}`,
    );
  }
}
