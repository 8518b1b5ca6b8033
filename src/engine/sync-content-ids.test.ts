import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import type { MessageInput } from '../core/message.ts';
import { PRESETS } from '../core/policy/index.ts';
import { assignStableIds } from '../core/stable-id.ts';
import { createContextManager } from './context-manager.ts';

const history: MessageInput[] = [
  { role: 'user', parts: [{ type: 'text', text: 'hello' }], meta: {} },
  { role: 'assistant', parts: [{ type: 'text', text: 'hi' }], meta: {} },
  { role: 'user', parts: [{ type: 'text', text: 'hello' }], meta: {} },
];

describe('sync with the content ids given', () => {
  it('stores the history as it would with the ids computed, and recognizes it sent again', async () => {
    const given = createContextManager({ policy: PRESETS.default });
    const computed = createContextManager({ policy: PRESETS.default });
    const contentIds = assignStableIds(history).map((message) => message.id);
    const first = await given.sync('s', history, { contentIds });
    await computed.sync('s', history);
    expect(first.messages.map((message) => message.id)).toEqual(contentIds);
    expect((await given.history('s')).log).toEqual(
      (await computed.history('s')).log.map((m) => ({ ...m, meta: { ...m.meta } })),
    );
    const again = await given.sync('s', [
      ...history,
      { role: 'assistant', parts: [{ type: 'text', text: 'again' }], meta: {} },
    ]);
    expect(again.diverged).toBe(false);
    expect(again.messages).toHaveLength(1);
  });

  it('refuses ids that do not match the history in number, storing nothing', async () => {
    const manager = createContextManager({ policy: PRESETS.default });
    await expect(manager.sync('s', history, { contentIds: ['m_1'] })).rejects.toSatisfy((error) =>
      InvalidInputError.isInstance(error),
    );
    expect((await manager.history('s')).log).toEqual([]);
  });
});
