import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createContextManager } from '../engine/context-manager.ts';
import { createFileMemorySink } from '../store/memory-files.ts';
import { createMemorySkillSource } from '../store/memory-skill-source.ts';
import { skillFile } from '../store/skill-source.conformance.ts';
import { createSqliteMemoryIndex } from '../store/sqlite-memory-index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import type { AgentTool, AgentToolContext } from './agent-tool.ts';
import { createContextTools } from './context-tools.ts';

const clock = () => {
  let now = Date.UTC(2025, 2, 14, 9, 0);
  return () => (now += 1_000);
};

const context = (sessionId: string): AgentToolContext => ({
  sessionId,
  signal: new AbortController().signal,
  confirm: async () => false,
});

const named = (tools: readonly AgentTool[], name: string): AgentTool => {
  const tool = tools.find((candidate) => candidate.definition.name === name);
  if (!tool) throw new Error(`no ${name}`);
  return tool;
};

/** A manager whose session `mine` holds one spilled result; returns the ref its pointer names. */
async function spilled(options: Partial<Parameters<typeof createContextManager>[0]> = {}) {
  const manager = createContextManager({
    policy: { ...PRESETS.default, model: 'gpt-4o' },
    clock: clock(),
    ...options,
  });
  const huge = Array.from({ length: 30_000 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n');
  await manager.append('mine', [user('dump the log'), callsTo(['c1', 'bash', '{"command":"cat big.log"}'])]);
  await manager.append('mine', [result('c1', huge, { name: 'bash' })]);
  const prepared = await manager.prepare('mine', {});
  const shown = prepared.messages.at(-1)?.parts[0];
  const pointer = shown?.type === 'tool-result' ? shown.content : '';
  const ref = /\(ref "([^"]+)"\)/.exec(pointer)?.[1];
  if (!ref) throw new Error(`no ref in ${pointer.slice(0, 200)}`);
  return { manager, ref };
}

describe('createContextTools', () => {
  it('offers read_offloaded and the memory tools, read_memory only when memory has files, read_skill only with skills', async () => {
    const names = (tools: readonly AgentTool[]) => tools.map((tool) => tool.definition.name);
    const plain = createContextManager({ policy: PRESETS.default });
    expect(names(createContextTools({ manager: plain }))).toEqual([
      'read_offloaded',
      'search_memory',
      'write_memory',
    ]);
    expect(names(createContextTools({ manager: plain, memory: false }))).toEqual(['read_offloaded']);
    const skills = createMemorySkillSource({
      tidy: { 'SKILL.md': skillFile('tidy', 'Tidy up.', 'Sort the imports.\n') },
    });
    expect(names(createContextTools({ manager: plain, skills }))).toEqual([
      'read_offloaded',
      'read_skill',
      'search_memory',
      'write_memory',
    ]);
    const withSkills = createContextManager({ policy: PRESETS.default, skills });
    const tools = createContextTools({ manager: withSkills });
    expect(names(tools)).toContain('read_skill');
    expect((await named(tools, 'read_skill').run({ name: 'tidy' }, context('s'))).content).toContain(
      'Sort the imports.',
    );
  });

  it("reads back the calling session's offloaded content, and answers another session's ref like an unknown one", async () => {
    const { manager, ref } = await spilled();
    const read = named(createContextTools({ manager }), 'read_offloaded');
    const own = await read.run({ ref, search: 'line 29999:' }, context('mine'));
    expect(own.isError).toBe(false);
    expect(own.content).toContain('line 29999: xxxx');
    const other = await read.run({ ref }, context('someone-else'));
    expect(other).toMatchObject({ isError: true, code: 'not_found' });
    expect(other.content).not.toContain('line 1:');
    const unknownRef = ref.replace(/[^/]+$/, 'r999999');
    const unknown = await read.run({ ref: unknownRef }, context('mine'));
    expect(other.content).toBe(unknown.content.replace(unknownRef, ref));
    const sized = named(
      createContextTools({ manager, readOffloaded: () => ({ maxChars: 2_000 }) }),
      'read_offloaded',
    );
    expect((await sized.run({ ref }, context('mine'))).content.length).toBeLessThanOrEqual(2_300);
  });

  it("writes memory through the manager's sink: search finds it, the index and read_memory show it", async () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ctxkit-context-tools-')));
    const memory = createFileMemorySink({
      dir,
      index: createSqliteMemoryIndex({ filename: path.join(dir, 'index.db') }),
      durable: false,
    });
    try {
      const manager = createContextManager({ policy: PRESETS.default, memory, clock: clock() });
      const tools = createContextTools({ manager });
      expect(tools.map((tool) => tool.definition.name)).toEqual([
        'read_offloaded',
        'read_memory',
        'search_memory',
        'write_memory',
      ]);
      const written = await named(tools, 'write_memory').run(
        { title: 'Release checklist', text: 'Bump the version, tag, then publish with provenance.' },
        context('s1'),
      );
      expect(written.isError).toBe(false);
      const found = await named(tools, 'search_memory').run({ query: 'provenance' }, context('s2'));
      expect(found.content).toContain('## 2025-03-14 09:00 UTC · Release checklist (memory/2025-03-14.md)');
      const index = await named(tools, 'read_memory').run({ path: 'MEMORY.md' }, context('s2'));
      expect(index.content).toContain('Release checklist');
      const note = await named(tools, 'read_memory').run({ path: 'memory/2025-03-14.md' }, context('s2'));
      expect(note.content).toContain('Bump the version, tag, then publish with provenance.');
      const outside = await named(tools, 'read_memory').run({ path: '../index.db' }, context('s2'));
      expect(outside).toMatchObject({ isError: true, code: 'invalid_path' });
    } finally {
      await memory.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
