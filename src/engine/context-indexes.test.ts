import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergePolicy } from '../core/policy/merge-policy.ts';
import type { Policy, PolicyOverride } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createFileMemorySink, type FileMemorySink } from '../store/memory-files.ts';
import { createMemorySkillSource } from '../store/memory-skill-source.ts';
import { createSqliteMemoryIndex } from '../store/sqlite-memory-index.ts';
import { callsTo, result, user } from '../testing/build-messages.ts';
import { createContextManager } from './context-manager.ts';

const SYSTEM = 'You are a careful agent.';
const policyOf = (preset: keyof typeof PRESETS, override: PolicyOverride = {}): Policy => ({
  ...mergePolicy(PRESETS[preset], override),
  model: 'gpt-4o',
});

let dir: string;
let memory: FileMemorySink;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'ctxkit-indexes-'));
  memory = createFileMemorySink({
    dir,
    index: createSqliteMemoryIndex({ filename: ':memory:' }),
    durable: false,
  });
});
afterEach(async () => {
  await memory.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function writeNotes(count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    await memory.write('earlier', {
      at: Date.UTC(2025, 0, 1) + index * 3_600_000,
      title: `Note ${index}`,
      text: `Finding number ${index}: the cache key must include the tenant id.`,
    });
  }
}

const skills = (count: number) =>
  createMemorySkillSource(
    Object.fromEntries(
      Array.from({ length: count }, (_, index) => {
        const name = `skill-${index}`;
        return [
          name,
          {
            'SKILL.md': `---\nname: ${name}\ndescription: ${'Does a careful thing. '.repeat(20)}\n---\nBody ${index}.\n`,
          },
        ];
      }),
    ),
  );

describe('the indexes in every request, as the policy says', () => {
  it('only deepagents shows the memory index by default: the memory directory is shared by every session', async () => {
    await writeNotes(2);
    const shown = async (preset: keyof typeof PRESETS) => {
      const manager = createContextManager({ policy: policyOf(preset), memory });
      await manager.append('s', [user('hello')]);
      return (await manager.prepare('s', { system: SYSTEM })).system;
    };
    expect(await shown('deepagents')).toMatch(/^You are a careful agent\.\n\n## Memory\n[\s\S]*Note 1/);
    for (const preset of ['default', 'cowagent', 'tiancai', 'digitorn', 'picoclaw'] as const) {
      expect(await shown(preset), preset).toBe(SYSTEM);
    }
  });

  it('reports the memory index as the memory category, out of system, the categories still adding up to input', async () => {
    await writeNotes(5);
    const withIndex = createContextManager({ policy: policyOf('deepagents'), memory });
    const without = createContextManager({ policy: policyOf('deepagents') });
    for (const manager of [withIndex, without]) await manager.append('s', [user('hello')]);
    const shown = await withIndex.prepare('s', { system: SYSTEM });
    const bare = await without.prepare('s', { system: SYSTEM });
    const { tokens } = shown.stats;
    expect(tokens.memory).toBeGreaterThan(0);
    expect(tokens.system).toBe(bare.stats.tokens.system);
    expect(tokens.system + tokens.tools + tokens.summary + tokens.memory + tokens.history).toBe(tokens.input);
    expect((await withIndex.stats('s', { system: SYSTEM })).tokens).toEqual(tokens);
  });

  it('an index that cannot be read leaves the request without it and says so, never failing the call', async () => {
    const failingMemory = {
      ...memory,
      write: memory.write.bind(memory),
      search: memory.search.bind(memory),
      readIndex: () =>
        Promise.reject(Object.assign(new Error('MEMORY.md: permission denied'), { code: 'EACCES' })),
    };
    const failingSkills = {
      list: () => Promise.reject(new Error('skills directory vanished')),
      read: skills(1).read,
    };
    const manager = createContextManager({
      policy: policyOf('deepagents'),
      memory: failingMemory,
      skills: failingSkills,
    });
    await manager.append('s', [user('hello')]);
    const prepared = await manager.prepare('s', { system: SYSTEM });
    expect(prepared.system).toBe(SYSTEM);
    const unavailable = prepared.events.filter((event) => event.type === 'index-unavailable');
    expect(unavailable).toMatchObject([
      { index: 'skills', code: 'error', message: 'skills directory vanished' },
      { index: 'memory', code: 'EACCES' },
    ]);
    // Recovery and /context clear go on too.
    await expect(manager.stats('s')).resolves.toMatchObject({ sessionId: 's' });
    await expect(manager.clear('s')).resolves.toBeDefined();
  });

  it('shows neither index when the policy says not to, and nothing without a source', async () => {
    await writeNotes(1);
    const policy = policyOf('default', { indexes: { skills: { show: false }, memory: { show: false } } });
    const manager = createContextManager({ policy, memory, skills: skills(3) });
    await manager.append('s', [user('hello')]);
    expect((await manager.prepare('s', { system: SYSTEM })).system).toBe(SYSTEM);
    const bare = createContextManager({ policy: policyOf('default') });
    await bare.append('s', [user('hello')]);
    expect((await bare.prepare('s', { system: SYSTEM })).system).toBe(SYSTEM);
  });

  it('holds each index to its cap, whole lines and a notice, and counts what is shown (as system and memory)', async () => {
    await writeNotes(200);
    const cap = 600;
    const policy = policyOf('default', {
      indexes: { memory: { show: true, maxTokens: cap }, skills: { maxTokens: cap } },
    });
    const manager = createContextManager({ policy, memory, skills: skills(100) });
    await manager.append('s', [user('hello')]);
    const prepared = await manager.prepare('s', { system: SYSTEM });
    expect(prepared.system).toMatch(
      /lines of the index are not shown; read_memory \{"path": "MEMORY\.md"\} reads all of it/,
    );
    expect(prepared.system).toMatch(/more skills not listed here: read_skill with no name lists them all/);
    expect(prepared.system).toContain('Note 199');
    const bare = createContextManager({ policy: policyOf('default') });
    await bare.append('s', [user('hello')]);
    const { system, memory: memoryTokens } = prepared.stats.tokens;
    const added = system + memoryTokens - (await bare.prepare('s', { system: SYSTEM })).stats.tokens.system;
    expect(added).toBeGreaterThan(cap);
    expect(added).toBeLessThanOrEqual(2 * cap + 4);
  });

  it('counts toward pressure: the index alone can bring clearing on (deepagents clears at 60 % of the window)', async () => {
    const big = 'output line with some detail\n'.repeat(400);
    const build = async (withSkills: boolean) => {
      const manager = createContextManager({
        policy: policyOf('deepagents'),
        ...(withSkills ? { skills: skills(60) } : {}),
      });
      // Seven results of ~2,900 tokens: about half of a 40k window, under the clearing threshold alone.
      for (let turn = 0; turn < 7; turn++) {
        await manager.append('s', [user(`step ${turn}`), callsTo([`c${turn}`, 'bash', '{}'])]);
        await manager.append('s', [result(`c${turn}`, big, { name: 'bash' })]);
      }
      return manager.prepare('s', { system: SYSTEM, contextWindow: 40_000, maxOutputTokens: 4_000 });
    };
    const plain = await build(false);
    const indexed = await build(true);
    expect(indexed.stats.tokens.system).toBeGreaterThan(plain.stats.tokens.system + 5_000);
    const cleared = (events: { type: string }[]) =>
      events.filter((event) => event.type === 'tool-results-cleared');
    expect(cleared(plain.events)).toEqual([]);
    expect(cleared(indexed.events)).not.toEqual([]);
    expect(indexed.stats.tokens.history).toBeLessThan(plain.stats.tokens.history);
  });

  it('refuses, naming the system prompt, a request whose uncapped index alone cannot fit the window', async () => {
    const manager = createContextManager({ policy: policyOf('deepagents'), skills: skills(200) });
    await manager.append('s', [user('hello')]);
    await expect(
      manager.prepare('s', { system: SYSTEM, contextWindow: 8_000, maxOutputTokens: 1_000 }),
    ).rejects.toMatchObject({ code: 'context_budget_exceeded', region: 'system' });
  });
});
