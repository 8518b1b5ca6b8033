import { describe, expect, it } from 'vitest';
import { ModelCallError } from '../core/errors/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { DEFAULT_CLEARING_TRIGGER } from '../core/policy/presets/default.ts';
import { PRESET_NAMES, PRESETS } from '../core/policy/presets/index.ts';
import { projectView } from '../core/view/project-view.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { corpusFiles, LONG_SESSION, loadCorpusSession } from '../testing/corpus.ts';
import { asInput, replaySession } from '../testing/replay-session.ts';
import { createContextManager } from './context-manager.ts';

const withModel = (policy: Policy): Policy => ({ ...policy, model: 'gpt-4o' });
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};

describe('prepare on real sessions', () => {
  for (const preset of PRESET_NAMES) {
    it(`never sends a request over the window or with a broken tool pair (${preset}, 16k, every corpus session)`, async () => {
      for (const file of corpusFiles()) {
        if (file === LONG_SESSION) continue;
        const transcript = loadCorpusSession(file);
        const manager = createContextManager({ policy: withModel(PRESETS[preset]), clock: clock() });
        const system = transcript.system.join('\n');
        await replaySession(
          manager,
          file,
          transcript.messages,
          { system, contextWindow: 16_000, maxOutputTokens: 2_000 },
          ({ result }) => {
            expect(result.stats.tokens.input + 2_000, file).toBeLessThanOrEqual(16_000);
            expect(findPairingViolations(result.messages), file).toEqual([]);
          },
        );
      }
    });
  }

  it('keeps the 979-message session inside a 32k window, never mutates the log, and explains every message', async () => {
    const transcript = loadCorpusSession(LONG_SESSION);
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    let compactions = 0;
    await replaySession(
      manager,
      'long',
      transcript.messages,
      { system: 'You are a coding agent.', contextWindow: 32_000, maxOutputTokens: 4_096 },
      ({ result }) => {
        expect(result.stats.tokens.input + 4_096).toBeLessThanOrEqual(32_000);
        expect(findPairingViolations(result.messages)).toEqual([]);
        // Rewrites of the prefix are what break a prompt cache wholesale; offloading the newest results does not.
        compactions += result.events.filter(
          (event) =>
            event.type === 'compaction-finished' &&
            ['summarize', 'drop', 'trim', 'compress-text', 'emergency'].includes(event.layer),
        ).length;
      },
    );
    const { log, edits } = await manager.history('long');
    expect(log.map(asInput)).toEqual(transcript.messages.map(asInput));
    const view = projectView(log, edits);
    for (const message of log) {
      const shown = view.entries.some((entry) => entry.message === message);
      expect(shown || view.coverage.has(message.seq)).toBe(true);
    }
    expect(compactions).toBeGreaterThan(0);
    // Cache economy: compaction is the exception, not something every call pays for.
    expect(compactions).toBeLessThan(transcript.messages.length / 8);
  });
});

describe('the incremental view', () => {
  it('always equals the pure projection of log and edits', async () => {
    const transcript = loadCorpusSession('openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl');
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    await replaySession(
      manager,
      'view',
      transcript.messages,
      { contextWindow: 8_000, maxOutputTokens: 1_000 },
      async ({ result }) => {
        const { log, edits } = await manager.history('view');
        const pure = projectView(log, edits).entries.map((entry) => entry.message);
        const shown = result.messages.filter(
          (message) => !['summary', 'reminder', 'system_note'].includes(message.meta.kind ?? ''),
        );
        expect(shown.map((message) => message.id)).toEqual(pure.map((message) => message.id));
      },
    );
  });
});

describe('append', () => {
  it('normalizes a tool result on arrival: the log keeps it as it came, the view gets it rendered', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const progress = `${Array.from({ length: 50 }, (_, i) => `\r[${'#'.repeat(i)}] ${i * 2}%`).join('')}\rdone 100%\x1b[K\n\x1b[31mFAIL\x1b[0m x.test.ts`;
    await manager.append('s', [user('run the tests'), callsTo(['c1', 'bash', '{"command":"npm test"}'])]);
    const { events } = await manager.append('s', [result('c1', progress, { name: 'bash' })]);
    expect(events.map((event) => event.type)).toContain('tool-output-normalized');
    const prepared = await manager.prepare('s', {});
    const shown = prepared.messages.at(-1)?.parts[0];
    expect(shown).toMatchObject({ type: 'tool-result', content: 'done 100%\nFAIL x.test.ts' });
    const { log } = await manager.history('s');
    expect(log.at(-1)?.parts[0]).toMatchObject({ content: progress });
  });

  it('spills a huge result to a blob the session can read back, with its sha256 in the pointer', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const huge = Array.from({ length: 30_000 }, (_, i) => `line ${i}: ${'x'.repeat(20)}`).join('\n');
    await manager.append('s', [user('dump the log'), callsTo(['c1', 'bash', '{"command":"cat big.log"}'])]);
    const { events } = await manager.append('s', [result('c1', huge, { name: 'bash' })]);
    const spilled = events.find((event) => event.type === 'tool-output-spilled');
    if (spilled?.type !== 'tool-output-spilled') throw new Error('expected a spill');
    const prepared = await manager.prepare('s', {});
    const pointer = prepared.messages.at(-1)?.parts[0];
    expect(pointer?.type === 'tool-result' && pointer.content).toContain(spilled.blobRef);
    expect(pointer?.type === 'tool-result' && pointer.content).toContain(spilled.sha256);
    expect(await manager.readOffloaded('s', spilled.blobRef)).toBe(huge);
    await expect(manager.readOffloaded('other-session', spilled.blobRef)).rejects.toMatchObject({
      code: expect.stringMatching(/blob/),
    });
  });
});

describe('sync', () => {
  it('appends only what is new when the caller sends its whole history each time', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const history = [user('hi'), assistant('hello'), user('yes'), assistant('ok'), user('yes')];
    await manager.sync('s', history.slice(0, 2));
    await manager.sync('s', history.slice(0, 4));
    const last = await manager.sync('s', history);
    expect(last.messages).toHaveLength(1);
    const { log } = await manager.history('s');
    expect(log.map((message) => message.parts[0])).toEqual(history.map((message) => message.parts[0]));
    expect(new Set(log.map((message) => message.id)).size).toBe(5);
  });

  it('records a divergence and carries on from the caller’s version, losing nothing', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    await manager.sync('s', [user('write a poem'), assistant('roses are red'), user('shorter')]);
    const edited = await manager.sync('s', [
      user('write a poem'),
      assistant('roses are red'),
      user('longer please'),
    ]);
    expect(edited.diverged).toBe(true);
    expect(edited.events.map((event) => event.type)).toContain('history-diverged');
    const { log } = await manager.history('s');
    expect(log).toHaveLength(4);
    const prepared = await manager.prepare('s', {});
    expect(prepared.messages.map((message) => message.parts[0])).toEqual([
      { type: 'text', text: 'write a poem' },
      { type: 'text', text: 'roses are red' },
      { type: 'text', text: 'longer please' },
    ]);
    const again = await manager.sync('s', [
      user('write a poem'),
      assistant('roses are red'),
      user('longer please'),
      assistant('roses are red, violets are blue'),
    ]);
    expect(again.diverged).toBe(false);
    expect(again.messages).toHaveLength(1);
  });
});

describe('budget errors', () => {
  it('throws a ContextBudgetError naming the region when the fixed regions alone cannot fit', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    await manager.append('s', [user('hi')]);
    const tools = Array.from({ length: 200 }, (_, i) => ({
      name: `tool_${i}`,
      description: 'does a thing '.repeat(20),
      parameters: { type: 'object', properties: { path: { type: 'string' } } },
    }));
    await expect(
      manager.prepare('s', { tools, contextWindow: 8_000, maxOutputTokens: 1_000 }),
    ).rejects.toMatchObject({
      code: 'context_budget_exceeded',
      region: 'toolDefinitions',
    });
  });
});

describe('a long agent turn (one request, many tool calls)', () => {
  const turn = numbered([
    user('read every module and write up what each one does'),
    ...Array.from({ length: 40 }, (_, n) => [
      callsTo([`c${n}`, 'read_file', `{"path":"src/module-${n}.ts"}`]),
      result(
        `c${n}`,
        Array.from({ length: 60 }, (_, line) => `export const value${n}_${line} = ${n * 100 + line};`).join(
          '\n',
        ),
      ),
    ]).flat(),
    assistant('every module is written up'),
  ]);
  const request = { system: 'You are a coding agent.', contextWindow: 8_000, maxOutputTokens: 1_000 };
  const editsAfterReplay = async (policy: Policy) => {
    const manager = createContextManager({ policy, clock: clock() });
    await replaySession(manager, 'turn', turn, request, ({ result: prepared }) => {
      expect(prepared.stats.tokens.input + 1_000).toBeLessThanOrEqual(8_000);
    });
    return (await manager.history('turn')).edits;
  };

  it('is summarized between its messages under default, where a turn-only cut finds nowhere to cut', async () => {
    const edits = await editsAfterReplay(withModel(PRESETS.default));
    const summaries = edits.filter((edit) => edit.type === 'summarize');
    expect(summaries.length).toBeGreaterThan(0);
    for (const edit of summaries) expect(edit.throughSeq).toBeGreaterThan(0);

    const turnOnly = await editsAfterReplay(
      withModel({ ...PRESETS.default, summarize: { ...PRESETS.default.summarize, cutAt: 'turn' } }),
    );
    expect(turnOnly.some((edit) => edit.type === 'summarize')).toBe(false);
  });
});

describe('the three paths', () => {
  it('async: a summary started after a turn is applied whole by the next prepare', async () => {
    const policy: Policy = {
      ...withModel(PRESETS.picoclaw),
      budget: { ...PRESETS.picoclaw.budget, contextWindow: 6_000, maxOutputTokens: 500 },
    };
    const manager = createContextManager({ policy, clock: clock() });
    // picoclaw cuts only at turn boundaries: a multi-turn customer-service session.
    const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
    let scheduled = 0;
    let applied = 0;
    manager.on((event) => {
      if (event.type === 'summary-scheduled') scheduled++;
      if (event.type === 'summary-applied') applied++;
    });
    await replaySession(manager, 's', transcript.messages, { system: transcript.system.join('\n') });
    expect(scheduled).toBeGreaterThan(0);
    expect(applied).toBeGreaterThan(0);
    const { edits } = await manager.history('s');
    expect(edits.some((edit) => edit.type === 'summarize')).toBe(true);
  });

  it('reactive: an overflow is compacted and retried once, then reset to the last turn + summary with media kept', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const transcript = loadCorpusSession(
      'swe-agent__replay__marshmallow-code__marshmallow-1867__default___install_from_source__marshmallow-code__marshmallow-1867.jsonl',
    );
    await manager.append('s', transcript.messages.slice(0, -1).map(asInput));
    const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:screenshot-1' };
    await manager.append('s', [
      { role: 'user', parts: [{ type: 'text', text: 'see this screenshot' }, image], meta: {} },
    ]);
    await manager.prepare('s', { contextWindow: 128_000, maxOutputTokens: 4_000 });
    const overflow = new ModelCallError(
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 131000 tokens.",
      {
        status: 400,
        providerCode: 'context_length_exceeded',
      },
    );
    const first = await manager.recover('s', overflow);
    expect(first.retry).toBe(true);
    expect(
      first.events.some(
        (event) => event.type === 'compaction-finished' && event.reason === 'context_overflow',
      ),
    ).toBe(true);
    const second = await manager.recover('s', overflow);
    expect(second.retry).toBe(true);
    const after = await manager.prepare('s', {});
    const lastUser = after.messages.filter((message) => message.role === 'user').at(-1);
    expect(lastUser?.parts).toContainEqual(image);
    expect(
      after.messages.filter((message) => message.meta.kind === undefined || message.meta.kind === 'message'),
    ).toHaveLength(1);
    const third = await manager.recover('s', overflow);
    expect(third.retry).toBe(false);
  });

  it('reactive: an error that is not an overflow is not retried and changes nothing', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    await manager.append('s', [user('hi')]);
    const rateLimited = new ModelCallError('Rate limit reached for gpt-4o on tokens per min (TPM)', {
      status: 429,
      providerCode: 'rate_limit_exceeded',
    });
    expect((await manager.recover('s', rateLimited)).retry).toBe(false);
    expect((await manager.history('s')).edits).toEqual([]);
  });
});

describe('manual commands and stats', () => {
  it('/compact summarizes the older part now; /context clear forgets it into memory; stats explain both', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const transcript = loadCorpusSession('tau-bench__gpt-4o-airline_task33_trial0.jsonl');
    await manager.append('s', transcript.messages.map(asInput));
    const before = await manager.stats('s', {
      system: transcript.system.join('\n'),
      contextWindow: 32_000,
      maxOutputTokens: 2_000,
    });
    expect(before.messages.view).toBe(transcript.messages.length);
    expect(before.thresholds.clearing?.pressure).toBe(DEFAULT_CLEARING_TRIGGER);
    expect(before.thresholds.summarize?.pressure).toBe(0.85);
    expect(before.roles.tool).toBe(transcript.messages.filter((message) => message.role === 'tool').length);

    const compacted = await manager.compact('s', { instructions: 'keep the reservation ids' });
    expect(compacted.compacted).toBe(true);
    const after = await manager.stats('s');
    expect(after.summary?.producer).toBe('extractive');
    expect(after.tokens.history).toBeLessThan(before.tokens.history);

    await manager.clear('s');
    const cleared = await manager.stats('s');
    expect(cleared.messages.view).toBe(0);
    expect(cleared.messages.log).toBe(transcript.messages.length);
    expect(cleared.summary).toBeUndefined();
    const found = await manager.memory.search('s', 'reservation');
    expect(found.length).toBeGreaterThan(0);
  });

  it('emits compaction-started and compaction-finished with figures for every edit', async () => {
    const manager = createContextManager({ policy: withModel(PRESETS.default), clock: clock() });
    const events: string[] = [];
    manager.on((event) => {
      if (event.type === 'compaction-finished') {
        expect(event.tokensAfter).toBeLessThanOrEqual(event.tokensBefore);
        expect(event.editIds.length).toBeGreaterThan(0);
      }
      events.push(event.type);
    });
    const transcript = loadCorpusSession('swe-agent__ctf_i_got_id_demo.jsonl');
    await replaySession(manager, 's', transcript.messages, { contextWindow: 6_000, maxOutputTokens: 500 });
    const started = events.filter((type) => type === 'compaction-started').length;
    expect(started).toBeGreaterThan(0);
    expect(events.filter((type) => type === 'compaction-finished').length).toBeGreaterThanOrEqual(started);
  });
});
