import { expect, it } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createContextManager } from './context-manager.ts';

it('a large reply reserve still leaves a summary and recent messages, not the newest message alone', async () => {
  // 40 messages of ~300 tokens in an 8k window whose call reserves 6k for the reply: 2k of room. A summary
  // capped at a quarter of the window (2k) filled the room alone and was dropped with everything else.
  const history: MessageInput[] = Array.from({ length: 40 }, (_, i) => ({
    role: i % 2 ? 'assistant' : 'user',
    parts: [{ type: 'text', text: `m${i} ${'w '.repeat(300)}` }],
  }));
  const manager = createContextManager({
    policy: { ...PRESETS.default, model: 'gpt-4o' },
    contextWindow: 8_000,
  });
  await manager.sync('s', [...history, { role: 'user', parts: [{ type: 'text', text: 'q' }] }]);
  const prepared = await manager.prepare('s', { maxOutputTokens: 6_000 });
  expect(prepared.stats.tokens.input).toBeLessThanOrEqual(2_000);
  expect(prepared.stats.tokens.summary).toBeGreaterThan(0);
  expect(prepared.messages.length).toBeGreaterThanOrEqual(3);
});
