import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_READ_MEMORY_LIMIT, isReadMemoryCall } from '../entries/agent.ts';
import {
  createContextManager,
  createFileMemorySink,
  createReadMemoryHandler,
  handleReadMemory,
  PRESETS,
  readMemoryResultPart,
  readMemoryTool,
  toAnthropicTool,
  toOpenAITool,
} from '../index.ts';
import { createSqliteMemoryIndex } from '../store/sqlite-memory-index.ts';

const T0 = Date.UTC(2025, 2, 14, 9, 0, 0);

async function withManager(
  test: (manager: ReturnType<typeof createContextManager>, dir: string) => Promise<void>,
): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-read-memory-'));
  const memory = createFileMemorySink({
    dir,
    index: createSqliteMemoryIndex({ filename: ':memory:' }),
    durable: false,
  });
  try {
    await test(createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' }, memory }), dir);
  } finally {
    await memory.close();
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('the memory read tool, through the public API', () => {
  it('is named as the memory index names it, with the path as its one required argument', () => {
    expect(readMemoryTool.name).toBe('read_memory');
    expect(readMemoryTool.parameters).toMatchObject({ required: ['path'], additionalProperties: false });
    expect(toOpenAITool(readMemoryTool)).toEqual({
      type: 'function',
      function: {
        name: 'read_memory',
        description: readMemoryTool.description,
        parameters: readMemoryTool.parameters,
      },
    });
    expect(toAnthropicTool(readMemoryTool)).toEqual({
      name: 'read_memory',
      description: readMemoryTool.description,
      input_schema: readMemoryTool.parameters,
    });
    expect(isReadMemoryCall({ name: 'read_memory' })).toBe(true);
    expect(isReadMemoryCall({ name: 'read_offloaded' })).toBe(false);
  });

  it('reads a daily file and the index, from JSON text, an object or a bare string', () =>
    withManager(async (manager) => {
      await manager.memory.write('s', { at: T0, title: 'Deploy', text: 'Staging is blue/green.' });
      const day = await handleReadMemory(manager, '{"path": "memory/2025-03-14.md"}');
      expect(day).toMatchObject({ isError: false });
      expect(day.content).toContain('Staging is blue/green.');
      expect((await handleReadMemory(manager, { path: 'memory/2025-03-14.md' })).content).toBe(day.content);
      expect((await handleReadMemory(manager, '"MEMORY.md"')).content).toMatch(/^# Memory index/);
      const part = await readMemoryResultPart(manager, {
        type: 'tool-call',
        callId: 'c1',
        name: 'read_memory',
        args: '{"path":"memory/2025-03-14.md"}',
      });
      expect(part).toEqual({
        type: 'tool-result',
        callId: 'c1',
        name: 'read_memory',
        content: day.content,
        isError: false,
      });
    }));

  it('refuses a path outside the memory directory or not a memory file with an error that says what is', () =>
    withManager(async (manager) => {
      await manager.memory.write('s', { at: T0, title: 'Deploy', text: 'x' });
      const handler = createReadMemoryHandler(manager);
      for (const bad of ['../../etc/passwd', '/etc/passwd', 'memory/../ctxkit.db', 'notes.md']) {
        const answer = await handler({ path: bad });
        expect(answer, bad).toMatchObject({ isError: true, code: 'invalid_path' });
        expect(answer.content, bad).toMatch(
          /^Error: memory path .*MEMORY\.md or a daily file memory\/YYYY-MM-DD\.md/,
        );
      }
      expect(await handler({ path: 'memory/2020-01-01.md' })).toMatchObject({
        isError: true,
        code: 'not_found',
      });
    }));

  it('answers bad arguments with what is wrong', () =>
    withManager(async (manager) => {
      const cases: [unknown, RegExp][] = [
        ['{not json', /must be a JSON object/],
        [{}, /"path" is required/],
        [{ path: 'MEMORY.md', extra: 1 }, /unknown argument extra/],
        [{ path: 'MEMORY.md', offset: -1 }, /"offset" must be an integer ≥ 0/],
        [[1], /must be an object/],
      ];
      for (const [args, message] of cases) {
        const answer = await handleReadMemory(manager, args);
        expect(answer.code).toBe('invalid_arguments');
        expect(answer.content).toMatch(message);
      }
    }));

  it('reads a long file a part at a time, parts joining to the whole', () =>
    withManager(async (manager) => {
      const text = Array.from({ length: 2_000 }, (_, index) => `fact ${index}: ${'z'.repeat(20)}`).join('\n');
      await manager.memory.write('s', { at: T0, title: 'Facts', text });
      const whole = await manager.readMemory('memory/2025-03-14.md');
      expect(whole.length).toBeGreaterThan(DEFAULT_READ_MEMORY_LIMIT);
      let offset: number | undefined = 0;
      let joined = '';
      while (offset !== undefined) {
        const part = await handleReadMemory(manager, { path: 'memory/2025-03-14.md', offset });
        expect(part.isError).toBe(false);
        joined += part.content.slice(part.content.indexOf('\n') + 1);
        if (part.nextOffset !== undefined)
          expect(part.content).toContain(
            `Next: read_memory({"path":"memory/2025-03-14.md","offset":${part.nextOffset}`,
          );
        offset = part.nextOffset;
      }
      expect(joined).toBe(whole);
    }));

  it('says so when the agent keeps no memory files', async () => {
    const manager = createContextManager({ policy: { ...PRESETS.default, model: 'gpt-4o' } });
    expect(await handleReadMemory(manager, { path: 'MEMORY.md' })).toMatchObject({
      isError: true,
      code: 'unavailable',
    });
    await expect(manager.readMemory('MEMORY.md')).rejects.toMatchObject({ code: 'memory_unavailable' });
  });
});
