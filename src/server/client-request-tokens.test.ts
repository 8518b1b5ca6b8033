import { describe, expect, it } from 'vitest';
import type { Message, MessageInput } from '../core/message.ts';
import { assignStableIds } from '../core/stable-id.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { ClientRequestTokens } from './client-request-tokens.ts';

const history = (size: number): MessageInput[] =>
  Array.from({ length: size }, (_, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    parts: [{ type: 'text', text: `message number ${index}` }],
  }));

describe('ClientRequestTokens', () => {
  it('counts in slices what it counts at once, and the view sent by the same ids', async () => {
    const messages = history(50);
    const ids = assignStableIds(messages).map((message) => message.id);
    const atOnce = new ClientRequestTokens().count('system', [], messages, ids);
    const tokens = new ClientRequestTokens();
    expect(await tokens.countInSlices('system', [], messages, ids)).toBe(atOnce);
    const view: Message[] = messages.slice(40).map((message, offset) => ({
      ...message,
      id: ids[40 + offset] as string,
      seq: 40 + offset,
      meta: {},
    }));
    const sent = tokens.countSent('system', [], view, { history: messages, ids });
    expect(sent).toBe(new ClientRequestTokens().count('system', [], messages.slice(40), ids.slice(40)));
  });

  it('lets other work run while it counts a history of 200,000 messages', async () => {
    const messages = history(200_000);
    const ids = messages.map((_, index) => `m${index}`);
    const turns = new EventLoopTurns();
    await new ClientRequestTokens().countInSlices('system', [], messages, ids);
    turns.stop();
    expect(turns.count).toBeGreaterThanOrEqual(10);
  });
});
