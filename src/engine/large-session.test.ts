/**
 * A session of hundreds of thousands of messages (a client resending a huge history) costs time in
 * proportion to its size: 4x the messages, at most about 4x the time (6x allowed for a loaded machine).
 */
import { expect, it } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import { PRESETS } from '../core/policy/index.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { createContextManager } from './context-manager.ts';

function history(size: number): MessageInput[] {
  return Array.from({ length: size }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [{ type: 'text', text: `message ${index}` }],
  }));
}

/** Milliseconds to sync the history and prepare a call on it (compacted: it does not fit 128k). */
async function syncAndPrepare(size: number): Promise<number> {
  const manager = createContextManager({ policy: PRESETS.default });
  const messages = history(size);
  const started = performance.now();
  await manager.sync('s', messages);
  const prepared = await manager.prepare('s', {
    model: 'gpt-4o',
    contextWindow: 128_000,
    maxOutputTokens: 4_096,
  });
  if (size > 20_000) expect(prepared.messages.length).toBeLessThan(size);
  return performance.now() - started;
}

it('syncs and prepares 4x the messages in at most about 4x the time', { timeout: 120_000 }, async () => {
  // Past 100,000 messages (the token cache's old bound) every recount missed and evicted one at a time.
  await syncAndPrepare(5_000);
  const small = await syncAndPrepare(60_000);
  const large = await syncAndPrepare(240_000);
  expect(large / small).toBeLessThan(6);
});

it('lets other work run while it syncs and prepares a history of 200,000 messages', {
  timeout: 60_000,
}, async () => {
  const manager = createContextManager({ policy: PRESETS.default });
  const messages = history(200_000);
  const turns = new EventLoopTurns();
  await manager.sync('s', messages);
  const afterSync = turns.count;
  await manager.prepare('s', { model: 'gpt-4o', contextWindow: 128_000, maxOutputTokens: 4_096 });
  turns.stop();
  // At once, each call gave nothing else a turn until it was over (seconds, for the sync).
  expect(afterSync).toBeGreaterThanOrEqual(20);
  expect(turns.count - afterSync).toBeGreaterThanOrEqual(5);
});
