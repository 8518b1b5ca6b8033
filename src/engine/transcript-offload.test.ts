import { describe, expect, it } from 'vitest';
import type { Edit, SummarizeEdit } from '../core/edit.ts';
import type { MessageInput } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';
import { transcriptMarkdown } from './transcript-markdown.ts';

const counter = createHeuristicCounter(4);
const request = { contextWindow: 6_000, maxOutputTokens: 500 };

function turn(index: number): MessageInput[] {
  return [
    user(`step ${index}: run the next check`),
    callsTo([`c${index}`, 'bash', `{"command":"make check-${index}"}`]),
    result(`c${index}`, `check ${index}\n${'ok line\n'.repeat(60)}`, { name: 'bash' }),
  ];
}

const summaries = (edits: readonly Edit[]) =>
  edits.filter((edit): edit is SummarizeEdit => edit.type === 'summarize');

describe('the offloaded transcript (conversation_history/<session>.md)', () => {
  it('holds every message through the newest summary, written after each compaction and after a resume', async () => {
    const store = createMemorySessionStore();
    const blobs = createMemoryBlobStore();
    let now = 1_700_000_000_000;
    const open = () =>
      createContextManager({ policy: PRESETS.default, counter, store, blobs, clock: () => (now += 1_000) });
    let manager = open();
    let step = 0;
    const checkTranscript = async () => {
      const { log, edits } = await manager.history('s');
      const newest = summaries(edits).at(-1);
      expect(newest?.summary.historyRef).toBeDefined();
      const text = await manager.readOffloaded('s', newest?.summary.historyRef ?? '');
      expect(text).toBe(
        transcriptMarkdown(log.filter((message) => message.seq <= (newest?.throughSeq ?? -1))),
      );
    };
    const runUntil = async (compactions: number) => {
      while (summaries((await manager.history('s')).edits).length < compactions) {
        await manager.append('s', turn(step++));
        await manager.prepare('s', request);
        await (await manager.afterTurn('s')).done;
        expect(step).toBeLessThan(400);
      }
    };
    await runUntil(2);
    await checkTranscript();
    // A new manager on the same stores starts with nothing cached: the transcript is rebuilt whole.
    manager = open();
    await runUntil(summaries((await manager.history('s')).edits).length + 1);
    await checkTranscript();
    await runUntil(summaries((await manager.history('s')).edits).length + 1);
    await checkTranscript();
  });
});
