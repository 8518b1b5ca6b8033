import type { ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import { readOffloadedTool } from '../../agent/read-offloaded-tool.ts';
import { ctxkitTools } from './ai-sdk-tools.ts';
import { testManager } from './testing/ai-sdk-testing.ts';

const LOG = Array.from({ length: 4000 }, (_, i) => `line ${i}: ${'payload '.repeat(8)}`).join('\n');
const execution: ToolExecutionOptions<unknown> = { toolCallId: 'r1', messages: [], context: undefined };

/** A session whose one tool result was spilled on arrival; its ref. */
async function spilled() {
  const manager = testManager({ contextWindow: 16_000, maxOutputTokens: 2_000 });
  await manager.append('s', [
    { role: 'user', parts: [{ type: 'text', text: 'show the log' }] },
    { role: 'assistant', parts: [{ type: 'tool-call', callId: 'c1', name: 'cat', args: '{}' }] },
    {
      role: 'tool',
      parts: [{ type: 'tool-result', callId: 'c1', name: 'cat', content: LOG, isError: false }],
    },
  ]);
  const prepared = await manager.prepare('s', { system: 'sys', tools: [readOffloadedTool] });
  const ref = prepared.pointers[0]?.ref ?? '';
  expect(ref).not.toBe('');
  return { manager, ref };
}

describe('ctxkitTools', () => {
  it("offers read_offloaded with ctxkit's description and schema", () => {
    const { read_offloaded } = ctxkitTools({ manager: testManager(), sessionId: 's' });
    expect(read_offloaded.description).toBe(readOffloadedTool.description);
    expect((read_offloaded.inputSchema as { jsonSchema: unknown }).jsonSchema).toEqual(
      readOffloadedTool.parameters,
    );
  });

  it("reads the session's offloaded content, sized to the room the window has left", async () => {
    const { manager, ref } = await spilled();
    const { read_offloaded } = ctxkitTools({ manager, sessionId: 's' });
    const answer = await read_offloaded.execute?.({ ref }, execution);
    if (!answer || Symbol.asyncIterator in answer) throw new Error('expected one answer');
    expect(answer.isError).toBe(false);
    expect(answer.content).toContain('line 0:');
    // 16k window, 2k reserved, the request itself: far less than the 300 KB log fits in one answer.
    expect(answer.content.length).toBeLessThan(40_000);
    expect(answer.nextOffset).toBeGreaterThan(0);
    const wide = ctxkitTools({ manager, sessionId: 's', maxChars: 5_000 }).read_offloaded;
    const small = await wide.execute?.({ ref }, execution);
    if (!small || Symbol.asyncIterator in small) throw new Error('expected one answer');
    expect(small.content.length).toBeLessThan(6_000);
  });

  it("answers another session's ref or bad arguments as an error result the model can read", async () => {
    const { manager, ref } = await spilled();
    const other = ctxkitTools({ manager, sessionId: 'someone-else' }).read_offloaded;
    const answer = await other.execute?.({ ref }, execution);
    if (!answer || Symbol.asyncIterator in answer) throw new Error('expected one answer');
    expect(answer).toMatchObject({ isError: true, code: 'not_found' });
    const output = await other.toModelOutput?.({ toolCallId: 'r1', input: { ref }, output: answer });
    expect(output).toEqual({ type: 'error-text', value: answer.content });
  });
});
