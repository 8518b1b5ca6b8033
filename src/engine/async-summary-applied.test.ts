import { expect, it } from 'vitest';
import type { ContextEvent } from '../core/events.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createExtractiveSummarizer } from '../summarize/extractive-summarizer.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import { assistant, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('a background summary that finished between calls is applied at the next afterTurn, never paid for and dropped', async () => {
  let calls = 0;
  const extractive = createExtractiveSummarizer();
  const summarizer: Summarizer = {
    name: 'slow',
    usesModel: true,
    async summarize(input) {
      calls++;
      await sleep(20);
      return { ...(await extractive.summarize(input)), producer: 'slow' };
    },
  };
  const manager = createContextManager({
    policy: PRESETS.picoclaw,
    contextWindow: 6_000,
    maxOutputTokens: 500,
    summarizer,
  });
  const events: ContextEvent[] = [];
  manager.on((event) => events.push(event));
  let last: Promise<void> = Promise.resolve();
  for (let turn = 0; turn < 30; turn++) {
    await manager.append('s', [user(`turn ${turn}: ${'please look at this carefully '.repeat(25)}`)]);
    await manager.prepare('s', { system: 'sys' });
    // The model takes longer than the summary: the summary finishes while the call is out.
    await sleep(40);
    await manager.append('s', [assistant(`answer ${turn}: ${'here is what I found '.repeat(25)}`)]);
    last = (await manager.afterTurn('s')).done;
  }
  // The last one started is awaited, so the count below does not depend on the machine's speed.
  await last;
  await manager.prepare('s', { system: 'sys' });
  const generated = events.filter((event) => event.type === 'summary-generated').length;
  expect(calls).toBeGreaterThan(0);
  // One event per summarizer call, and every summary made was used.
  expect(generated).toBe(calls);
  expect(events.filter((event) => event.type === 'summary-applied').length).toBe(calls);
});
