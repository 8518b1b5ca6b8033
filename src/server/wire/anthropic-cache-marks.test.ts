import { describe, expect, it } from 'vitest';
import { anthropicCacheBlocks } from '../../adapters/anthropic-cache-blocks.ts';
import { createCachePrefixMemory } from '../../core/cache/cache-prefix-memory.ts';
import { anthropicRuleViolation } from '../../testing/anthropic-request-rules.ts';
import { withAnthropicCacheMarks } from './anthropic-cache-marks.ts';

const EPHEMERAL = { type: 'ephemeral' };
const SYSTEM = 'You are Claude Code, working in a repository. '.repeat(120);

function upstream(results: number): Record<string, unknown> {
  const messages: unknown[] = [{ role: 'user', content: 'fix the tests' }];
  for (let step = 0; step < results; step++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${step}`, name: 'Read', input: { file_path: `/f${step}.ts` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${step}`, content: `file ${step} `.repeat(30) }],
    });
  }
  return {
    model: 'claude-sonnet-4-5',
    max_tokens: 4096,
    system: SYSTEM,
    tools: [{ name: 'Read', input_schema: { type: 'object' } }],
    messages,
  };
}

const marked = (body: Record<string, unknown>) =>
  anthropicCacheBlocks(body).flatMap((block, at) => (block.marked ? [at] : []));

describe('withAnthropicCacheMarks', () => {
  it('marks a body whose client marked nothing: system, end, and the previous end once sent', () => {
    const memory = createCachePrefixMemory();
    const first = withAnthropicCacheMarks(upstream(2), { clientBody: upstream(2), memory });
    // Blocks: tool 0, system 1, then the question and two calls with their results (2..6): the system,
    // the call before the first (largest) result, the end.
    expect(marked(first.body)).toEqual([1, 3, 6]);
    expect(first.placed).toBe(3);
    expect(first.body.system).toEqual([{ type: 'text', text: SYSTEM, cache_control: EPHEMERAL }]);
    expect(anthropicRuleViolation(first.body)).toBeUndefined();
    first.sent();

    // 25 more calls and results (50 blocks) later, the read still lands on the first request's end; the
    // call before the first two-digit (largest) result, step 10's at block 24, is marked too.
    const later = withAnthropicCacheMarks(upstream(27), { clientBody: upstream(27), memory });
    expect(marked(later.body)).toEqual([1, 6, 23, 56]);
    expect(anthropicRuleViolation(later.body)).toBeUndefined();
  });

  it('turns string content into one text block carrying the mark', () => {
    const body = { ...upstream(0) };
    const result = withAnthropicCacheMarks(body, { clientBody: body, memory: createCachePrefixMemory() });
    expect((result.body.messages as Array<{ content: unknown }>)[0]?.content).toEqual([
      { type: 'text', text: 'fix the tests', cache_control: EPHEMERAL },
    ]);
    expect(body.messages).toEqual(upstream(0).messages);
  });

  it('adds nothing when the client marked anything, even a mark the rendered body lost', () => {
    const memory = createCachePrefixMemory();
    const client = {
      ...upstream(2),
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'fix the tests', cache_control: EPHEMERAL }] },
      ],
    };
    const rendered = upstream(2);
    const result = withAnthropicCacheMarks(rendered, { clientBody: client, memory });
    expect(result.body).toBe(rendered);
    expect(result.placed).toBe(0);
    const automatic = { ...upstream(2), cache_control: EPHEMERAL };
    expect(withAnthropicCacheMarks(automatic, { clientBody: automatic, memory }).body).toBe(automatic);
  });

  it('sends the rendered body as it is when turned off', () => {
    const rendered = upstream(3);
    const result = withAnthropicCacheMarks(rendered, {
      clientBody: rendered,
      memory: createCachePrefixMemory(),
      enabled: false,
    });
    expect(result.body).toBe(rendered);
    expect(JSON.stringify(result.body)).not.toContain('cache_control');
  });
});
