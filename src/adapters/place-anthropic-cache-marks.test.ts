import { describe, expect, it } from 'vitest';
import { createCachePrefixMemory } from '../core/cache/cache-prefix-memory.ts';
import { anthropicCacheBlocks } from './anthropic-cache-blocks.ts';
import { placeAnthropicCacheMarks } from './place-anthropic-cache-marks.ts';

const long = (word: string) => `${word} `.repeat(1500);
const system = long('Rules.');

function conversation(turns: number): Record<string, unknown> {
  const messages: unknown[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push({ role: 'user', content: `question ${turn}` });
    messages.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: `t${turn}`, signature: 's' },
        { type: 'text', text: `answer ${turn}` },
      ],
    });
  }
  messages.push({ role: 'user', content: 'next' });
  return { model: 'claude-sonnet-4-5', max_tokens: 100, system, messages };
}

const markedPositions = (body: Record<string, unknown>) =>
  anthropicCacheBlocks(body).flatMap((block, at) => (block.marked ? [at] : []));

describe('placeAnthropicCacheMarks', () => {
  it('marks the system, the block before the largest message block and the end, as cache_control', () => {
    // Blocks: system 0, "question 0" 1, thinking 2 (the largest message block), "answer 0" 3, "next" 4.
    const placed = placeAnthropicCacheMarks(conversation(1));
    expect(placed.senderMarked).toBe(false);
    expect(placed.breakpoints).toEqual([0, 1, 4]);
    expect(markedPositions(placed.body)).toEqual([0, 1, 4]);
    expect(placed.body.system).toEqual([
      { type: 'text', text: system, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('leaves a body with any mark of its own exactly as it is', () => {
    const body = { ...conversation(2), cache_control: { type: 'ephemeral' } };
    const placed = placeAnthropicCacheMarks(body, { memory: createCachePrefixMemory() });
    expect(placed.senderMarked).toBe(true);
    expect(placed.body).toBe(body);
    expect(placed.breakpoints).toEqual([]);
  });

  it('marks nothing when the whole request is under the model’s minimum', () => {
    const placed = placeAnthropicCacheMarks({
      model: 'claude-opus-4-6',
      system: 'short',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(placed.breakpoints).toEqual([]);
    expect(placed.body.system).toBe('short');
  });

  it('reads where the remembered request of the conversation wrote, once it was remembered', () => {
    const memory = createCachePrefixMemory();
    const first = placeAnthropicCacheMarks(conversation(2), { memory });
    // Not remembered (its answer never began): the next request is placed as a first one.
    expect(placeAnthropicCacheMarks(conversation(14), { memory }).breakpoints).toHaveLength(4);
    first.remember();
    // 2 turns: system, then 2 × (question, thinking, answer) and "next": the end was block 7.
    expect(first.breakpoints).toEqual([0, 1, 7]);
    // 14 turns later the request has 44 blocks; "next" (block 7) became a question, so 7 blocks are
    // shared and the read goes to the last entry the first request wrote inside them (block 1); the
    // largest block added since is the thinking at 32 ("t10", one character longer), marked before.
    const later = placeAnthropicCacheMarks(conversation(14), { memory });
    expect(later.breakpoints).toEqual([0, 1, 31, 43]);
  });
});
