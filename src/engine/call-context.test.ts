import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { CounterChooser, type FixedRegionMemo, resolveCallContext } from './call-context.ts';

const tools = (description: string): ToolDefinition[] => [
  { name: 'read', description, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'bash', description: 'Runs a command.', parameters: { type: 'object', required: ['command'] } },
];

describe('resolveCallContext', () => {
  it('keeps the tools array it holds when a call passes an equal one, and takes a changed one', () => {
    const memo: FixedRegionMemo = {};
    const counters = new CounterChooser(PRESETS.default);
    const first = tools('Reads a file.');
    const held = resolveCallContext(PRESETS.default, { tools: first, contextWindow: 32_000 }, memo, counters);
    const again = resolveCallContext(
      PRESETS.default,
      { tools: structuredClone(first), contextWindow: 32_000 },
      memo,
      counters,
    );
    expect(again.tools).toBe(first);
    expect(memo.request?.tools).toBe(first);
    expect(again.toolTokens).toBe(held.toolTokens);

    const changed = tools('Reads a file, or the part of it asked for.');
    const next = resolveCallContext(
      PRESETS.default,
      { tools: changed, contextWindow: 32_000 },
      memo,
      counters,
    );
    expect(next.tools).toBe(changed);
    expect(next.toolTokens).toBeGreaterThan(held.toolTokens);
  });
});
