import { describe, expect, it, vi } from 'vitest';
import type { Message, MessageInput } from '../core/message.ts';
import { assignStableIds } from '../core/stable-id.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { EventLoopTurns } from '../testing/event-loop-turns.ts';
import { ClientRequestTokens } from './client-request-tokens.ts';

/** Messages counted by their content, the counting itself. */
const counted = vi.hoisted(() => ({ messages: 0 }));
vi.mock('../core/tokens/estimate-message-tokens.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../core/tokens/estimate-message-tokens.ts')>();
  return {
    ...original,
    estimateMessageTokens: (...args: Parameters<typeof original.estimateMessageTokens>) => {
      counted.messages++;
      return original.estimateMessageTokens(...args);
    },
  };
});

/** The view of the whole history, as ctxkit left it, but for the message at `changed`. */
const viewOf = (messages: readonly MessageInput[], ids: readonly string[], changed: number): Message[] =>
  messages.map((message, index) => ({
    ...message,
    ...(index === changed && { parts: [{ type: 'text', text: 'a summary' }] }),
    id: ids[index] as string,
    seq: index,
    meta: {},
  }));

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

  it('counts the view sent by the counts made for its request, though it remembers fewer messages', async () => {
    const messages = history(2_000);
    const ids = messages.map((_, index) => `m${index}`);
    // Remembering 100: counting the history forgets most of it.
    const tokens = new ClientRequestTokens(100);
    await tokens.countInSlices('system', [], messages, ids);
    const view = viewOf(messages, ids, 7);
    const before = counted.messages;
    const sent = tokens.countSent('system', [], view, { history: messages, ids });
    // The one message ctxkit changed, not the 1,900 forgotten again.
    expect(counted.messages - before).toBe(1);
    expect(sent).toBe(
      new ClientRequestTokens().count(
        'system',
        [],
        view,
        view.map((message) => message.id),
      ),
    );
    expect(await tokens.countSentInSlices('system', [], view, { history: messages, ids })).toBe(sent);
  });

  it('lets other work run while it counts the view sent', async () => {
    const messages = history(20_000);
    const ids = messages.map((_, index) => `m${index}`);
    const tokens = new ClientRequestTokens(100);
    await tokens.countInSlices('system', [], messages, ids);
    const view = viewOf(messages, ids, 7);
    const turns = new EventLoopTurns();
    let now = 0;
    // A slice of 1,000 looks at the clock: a turn every 1,000 messages at least.
    const sent = await tokens.countSentInSlices(
      'system',
      [],
      view,
      { history: messages, ids },
      new WorkSlices(1_000, () => now++),
    );
    turns.stop();
    expect(sent).toBe(tokens.countSent('system', [], view, { history: messages, ids }));
    expect(turns.count).toBeGreaterThanOrEqual(15);
  });
});
