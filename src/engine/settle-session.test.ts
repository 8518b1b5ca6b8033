/**
 * `settle`: the turn's end (`afterTurn`, which a proxy does not wait for) may schedule a summary that
 * offloads the summarized transcript. A session deleted right after the reply would get that blob back
 * after its deletion; settled first, nothing of it is written after.
 */
import { expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { DEFAULT_POLICY, mergePolicy } from '../core/policy/index.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { assistant, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// ctxkit's own policy summarizes after a turn and offloads the summarized transcript.
const POLICY = mergePolicy(DEFAULT_POLICY, { summarize: { trigger: 0.1 }, clearing: { trigger: 0.05 } });

function open() {
  const blobs = createMemoryBlobStore();
  const manager = createContextManager({ policy: POLICY, contextWindow: 6_000, maxOutputTokens: 500, blobs });
  const events: ContextEvent[] = [];
  manager.on((event) => events.push(event));
  return { manager, blobs, events };
}

async function turn(manager: ReturnType<typeof open>['manager'], index: number): Promise<void> {
  await manager.append('s', [user(`turn ${index}: ${'please look at this carefully '.repeat(25)}`)]);
  await manager.prepare('s', { system: 'sys' });
  await manager.append('s', [assistant(`answer ${index}: ${'here is what I found '.repeat(25)}`)]);
}

/** The first turn whose end schedules a summary, found on a manager of its own. */
async function summarizingTurn(): Promise<number> {
  const { manager, events } = open();
  for (let index = 0; index < 40; index++) {
    await turn(manager, index);
    await (await manager.afterTurn('s')).done;
    if (events.some((event) => event.type === 'summary-scheduled')) return index;
  }
  throw new Error('no turn scheduled a summary');
}

it('waits for the turn end still queued and its summary, so a deletion after it is final', async () => {
  const last = await summarizingTurn();
  const { manager, blobs, events } = open();
  for (let index = 0; index < last; index++) {
    await turn(manager, index);
    await (await manager.afterTurn('s')).done;
  }
  await turn(manager, last);
  // As the proxy does: the turn's end is started, not waited for, and the session deleted at once.
  const ending = manager.afterTurn('s');
  await manager.settle('s');
  await blobs.deleteSession('s');
  manager.unload('s');
  await (await ending).done;
  await sleep(20);
  expect(await blobs.list('s')).toEqual([]);
  expect(events.some((event) => event.type === 'summary-scheduled')).toBe(true);
});
