import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../core/errors/index.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { PRESETS } from '../core/policy/presets/index.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { DEFAULT_TOOL_INJECTION, type ToolDefinition } from '../core/tool-definition.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemoryMemorySink } from '../store/memory-memory-sink.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import { createMemoryTraceStore } from '../store/trace-store.ts';
import { loadCorpusSession } from '../testing/corpus.ts';
import { asInput, replaySession } from '../testing/replay-session.ts';
import type { PrepareRequest } from './call-context.ts';
import { createContextManager } from './context-manager.ts';
import { RESUME_TOOL_HEADINGS, snapshotNoteOf, systemNoteFromSnapshot } from './restore-session.ts';

const TAU = 'tau-bench__gpt-4o-airline_task33_trial0.jsonl';
const clock = () => {
  let now = 1_700_000_000_000;
  return () => (now += 1_000);
};
const tools = [
  {
    name: 'get_reservation_details',
    description: 'Get the details of a reservation.\nMore text.',
    parameters: {},
  },
  { name: 'book_reservation', description: 'Book a reservation.', parameters: {} },
];

/** Two managers on the same stores: the second one is the process after a restart. */
async function beforeAndAfterRestart(policy: Policy, request: PrepareRequest) {
  const stores = {
    store: createMemorySessionStore(),
    blobs: createMemoryBlobStore(),
    memory: createMemoryMemorySink(),
  };
  const first = createContextManager({ policy, clock: clock(), ...stores });
  const transcript = loadCorpusSession(TAU);
  await replaySession(first, 's', transcript.messages.slice(0, -1), request);
  const before = await first.prepare('s', request);
  const second = createContextManager({ policy, clock: clock(), ...stores });
  const after = await second.prepare('s', request);
  return { before, after, second };
}

describe('restore after a restart', () => {
  it('full (default): returns exactly what it returned before', async () => {
    const policy = { ...PRESETS.default, model: 'gpt-4o' };
    const { before, after } = await beforeAndAfterRestart(policy, {
      system: 'airline agent',
      tools,
      contextWindow: 6_000,
      maxOutputTokens: 500,
    });
    expect(after.messages).toEqual(before.messages);
    expect(after.system).toBe(before.system);
    expect(after.stats.tokens).toEqual(before.stats.tokens);
  });

  it('text (cowagent): the most recent max(3, max_context_turns / 6) turns, user text and final reply only', async () => {
    const policy = { ...PRESETS.cowagent, model: 'gpt-4o' };
    const { after } = await beforeAndAfterRestart(policy, { system: 'airline agent' });
    const keep = Math.max(3, Math.floor(policy.trim.maxTurns / 6));
    const users = after.messages.filter(
      (message) => message.role === 'user' && message.meta.kind === undefined,
    );
    expect(users).toHaveLength(keep);
    expect(after.messages.some((message) => message.role === 'tool')).toBe(false);
    for (const message of after.messages) {
      expect(message.parts.every((part) => part.type === 'text')).toBe(true);
    }
  });

  it('snapshot (digitorn): the newest compaction snapshot is replayed with tools, memory and tool-call examples', async () => {
    const policy = { ...PRESETS.digitorn, model: 'gpt-4o' };
    const request = { system: 'airline agent', tools, contextWindow: 6_000, maxOutputTokens: 500 };
    const { after, second } = await beforeAndAfterRestart(policy, request);
    const { edits } = await second.history('s');
    const compaction = edits.find(
      (edit) => (edit.type === 'summarize' || edit.type === 'drop') && edit.snapshot,
    );
    expect(compaction).toBeDefined();
    const note = after.messages.find(
      (message) =>
        message.meta.kind === 'system_note' &&
        message.parts.some((part) => part.type === 'text' && part.text.startsWith('[Session resumed]')),
    );
    const text = note?.parts[0]?.type === 'text' ? note.parts[0].text : '';
    expect(text).toContain('get_reservation_details: Get the details of a reservation.');
    expect(text).toMatch(/Recent tool calls:\n- \w+\(/);
  });
});

describe("the snapshot records each tool's injection mode, and the resume note uses it (digitorn)", () => {
  const policy = { ...PRESETS.digitorn, model: 'gpt-4o' };
  const modes = [
    {
      name: 'get_reservation_details',
      description: 'Get the details of a reservation.',
      injection: 'direct',
    },
    { name: 'search_flights', description: 'Search direct flights.', injection: 'compact_direct' },
    { name: 'book_reservation', description: 'Book a reservation.', injection: 'discovery' },
    { name: 'cancel_reservation', description: 'Cancel a reservation.' },
  ] satisfies ToolDefinition[];

  it('records name, first description line and mode, unset = direct; the note groups them by what the agent does', async () => {
    const request = { system: 'airline agent', tools: modes, contextWindow: 6_000, maxOutputTokens: 500 };
    const { after, second } = await beforeAndAfterRestart(policy, request);
    const snapshot = (await second.history('s')).edits
      .map((edit) => (edit.type === 'summarize' || edit.type === 'drop' ? edit.snapshot : undefined))
      .find((found) => found !== undefined);
    expect(snapshot?.tools).toEqual([
      {
        name: 'get_reservation_details',
        description: 'Get the details of a reservation.',
        injection: 'direct',
      },
      { name: 'search_flights', description: 'Search direct flights.', injection: 'compact_direct' },
      { name: 'book_reservation', description: 'Book a reservation.', injection: 'discovery' },
      { name: 'cancel_reservation', description: 'Cancel a reservation.', injection: DEFAULT_TOOL_INJECTION },
    ]);
    const note = after.messages.find((message) => message.id.startsWith('reminder-'));
    const text = note?.parts[0]?.type === 'text' ? note.parts[0].text : '';
    expect(text).toContain(
      [
        RESUME_TOOL_HEADINGS['called-by-name'],
        '- get_reservation_details: Get the details of a reservation.',
        '- search_flights: Search direct flights.',
        '- cancel_reservation: Cancel a reservation.',
        RESUME_TOOL_HEADINGS.discovery,
        '- book_reservation: Book a reservation.',
      ].join('\n'),
    );
  });

  it('reads a snapshot recorded before modes were as all direct, and leaves out an empty group', () => {
    const note = systemNoteFromSnapshot({
      tools: [{ name: 'read_file', description: 'Read a file.' }],
      memory: [],
      toolExamples: [],
    });
    expect(note).toBe(
      [
        '[Session resumed] Context from before the restart:',
        RESUME_TOOL_HEADINGS['called-by-name'],
        '- read_file: Read a file.',
      ].join('\n'),
    );
    expect(note).not.toContain(RESUME_TOOL_HEADINGS.discovery);
    const discoveryOnly = systemNoteFromSnapshot({
      tools: [{ name: 'deploy', description: '', injection: 'discovery' }],
      memory: [],
      toolExamples: [],
    });
    expect(discoveryOnly).toContain(`${RESUME_TOOL_HEADINGS.discovery}\n- deploy`);
    expect(discoveryOnly).not.toContain(RESUME_TOOL_HEADINGS['called-by-name']);
  });

  it('refuses a mode it does not know, naming the field, before anything is stored', async () => {
    const manager = createContextManager({ policy, clock: clock() });
    await manager.append('s', [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }]);
    const tools = [modes[0], { name: 'x', injection: 'lazy\u001b[31m' }] as unknown as ToolDefinition[];
    const error = await manager.prepare('s', { tools }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ field: 'tools[1].injection' });
    expect((error as Error).message).toContain('direct | compact_direct | discovery');
    // Quoted as JSON: no control character of the input reaches a terminal.
    expect((error as Error).message).not.toContain('\u001b');
    expect((await manager.history('s')).edits).toEqual([]);
  });
});

describe('snapshotNoteOf', () => {
  it('is the resume note of a snapshot restore, and nothing for any other cut', async () => {
    const policy = { ...PRESETS.digitorn, model: 'gpt-4o' };
    const request = { system: 'airline agent', tools, contextWindow: 6_000, maxOutputTokens: 500 };
    const { after } = await beforeAndAfterRestart(policy, request);
    const note = after.messages.find((message) => message.id.startsWith('reminder-'));
    expect(note?.parts[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^\[Session resumed\]/),
    });
    const reminder = note?.parts[0]?.type === 'text' ? note.parts[0].text : '';
    const restoreCut = {
      id: 'r',
      at: 0,
      type: 'drop',
      layer: 'restore',
      reason: 'session_restored',
      throughSeq: 3,
      reminder,
      tokensBefore: 0,
      tokensAfter: 0,
    } as const;
    expect(snapshotNoteOf({ cut: restoreCut, reminder })).toBe(reminder);
    expect(
      snapshotNoteOf({
        cut: { ...restoreCut, layer: 'drop', reason: 'context_pressure' },
        reminder: 'recap',
      }),
    ).toBeUndefined();
    expect(snapshotNoteOf({ cut: undefined, reminder: undefined })).toBeUndefined();
  });
});

/** The store, counting how often the whole log was read. */
function countingStore(store: SessionStore): SessionStore & { fullReads: () => number } {
  let fullReads = 0;
  return {
    ...store,
    load: (sessionId) => {
      fullReads++;
      return store.load(sessionId);
    },
    fullReads: () => fullReads,
  };
}

describe('resuming reads only what the view can show', () => {
  const policy = { ...PRESETS.default, model: 'gpt-4o' };
  // Small enough that the session is summarized (more than once) on the way.
  const request = { system: 'airline agent', tools, contextWindow: 3_000, maxOutputTokens: 500 };

  it('restores from the bodies after the newest cut, and fetches the older ones only when asked', async () => {
    const store = countingStore(createMemorySessionStore());
    const stores = { store, blobs: createMemoryBlobStore(), memory: createMemoryMemorySink() };
    const first = createContextManager({ policy, clock: clock(), ...stores });
    const transcript = loadCorpusSession(TAU);
    await replaySession(first, 's', transcript.messages.slice(0, -2), request);
    const before = await first.prepare('s', request);
    const { log: logBefore, edits: editsBefore } = await first.history('s');
    const recent = await store.loadRecent('s');
    expect(recent?.logStart).toBeGreaterThan(0);

    const second = createContextManager({ policy, clock: clock(), ...stores });
    const readsBefore = store.fullReads();
    const after = await second.prepare('s', request);
    expect(after.messages).toEqual(before.messages);
    expect(after.stats.tokens).toEqual(before.stats.tokens);
    expect(store.fullReads()).toBe(readsBefore);

    // The older bodies come from the store once, when the whole log is asked for.
    const whole = await second.history('s');
    expect(whole.log).toEqual(logBefore);
    expect(whole.edits.slice(0, editsBefore.length)).toEqual(editsBefore);
    expect((await second.history('s')).log).toEqual(logBefore);
    expect(store.fullReads()).toBe(readsBefore + 1);
    // And it carries on from there.
    const appended = await second.append('s', transcript.messages.slice(-2).map(asInput));
    expect(appended.messages.map((message) => message.seq)).toEqual([logBefore.length, logBefore.length + 1]);
    expect((await second.prepare('s', request)).messages.at(-1)?.seq).toBe(logBefore.length + 1);
  });

  it('numbers appended messages as an uninterrupted manager does, repeats included', async () => {
    const stores = { store: createMemorySessionStore(), blobs: createMemoryBlobStore() };
    const transcript = loadCorpusSession(TAU);
    const history = transcript.messages.map(asInput);
    const steady = createContextManager({ policy, clock: clock() });
    const resumed = createContextManager({ policy, clock: clock(), ...stores });
    await replaySession(resumed, 's', transcript.messages, request);
    await replaySession(steady, 's', transcript.messages, request);
    const again = createContextManager({ policy, clock: clock(), ...stores });
    // The same user message again: its id must be the `_2` of the first one, in both.
    const repeat = history.find((message) => message.role === 'user');
    if (!repeat) throw new Error('no user message');
    const [fromSteady] = (await steady.append('s', [repeat])).messages;
    const [fromResumed] = (await again.append('s', [repeat])).messages;
    expect(fromResumed?.id).toBe(fromSteady?.id);
    expect(fromResumed?.id).toMatch(/_2$/);
    // sync() recognizes the history it already holds, before the newest cut included.
    const synced = await again.sync('s', [...history, repeat]);
    expect(synced.diverged).toBe(false);
    expect(synced.messages).toEqual([]);
  });

  it('reuses the token counts kept with the messages instead of tokenizing the view again', async () => {
    const exact = createExactCounter('o200k');
    let countedChars = 0;
    const counting: TokenCounter = {
      name: exact.name,
      maxTokensPerByte: 1,
      count: (text) => {
        countedChars += text.length;
        return exact.count(text);
      },
    };
    const store = createMemorySessionStore();
    const first = createContextManager({ policy, clock: clock(), store, counter: counting });
    const transcript = loadCorpusSession(TAU);
    await replaySession(first, 's', transcript.messages.slice(0, -1), request);
    const before = await first.prepare('s', request);
    // The same session, with and without its counts kept.
    const { log, edits } = await first.history('s');
    const uncounted = createMemorySessionStore();
    await uncounted.appendMessages('s', log, 0, 1);
    await uncounted.appendEdits('s', edits, 0, 1);

    countedChars = 0;
    const resumed = await createContextManager({ policy, clock: clock(), store, counter: counting }).prepare(
      's',
      request,
    );
    const withCounts = countedChars;
    countedChars = 0;
    const recounted = await createContextManager({
      policy,
      clock: clock(),
      store: uncounted,
      counter: counting,
    }).prepare('s', request);
    expect(resumed.messages).toEqual(before.messages);
    expect(recounted.messages).toEqual(before.messages);
    expect(withCounts).toBeLessThan(countedChars / 2);
  });

  it('a session stored without content ids (written before they were kept) restores from the whole log', async () => {
    const original = createContextManager({ policy, clock: clock() });
    const transcript = loadCorpusSession(TAU);
    await replaySession(original, 's', transcript.messages.slice(0, -1), request);
    const before = await original.prepare('s', request);
    const { log, edits } = await original.history('s');
    const store = countingStore(createMemorySessionStore());
    await store.appendMessages('s', log, 0, 1);
    await store.appendEdits('s', edits, 0, 1);
    expect((await store.loadRecent('s'))?.contentIds.every((id) => id === null)).toBe(true);
    const restored = createContextManager({ policy, clock: clock(), store });
    const after = await restored.prepare('s', request);
    expect(after.messages).toEqual(before.messages);
    expect(store.fullReads()).toBe(1);
  });
});

describe('trace', () => {
  it('records every event, in order, apart from the session and never in what the model is sent', async () => {
    const trace = createMemoryTraceStore();
    const manager = createContextManager({
      policy: { ...PRESETS.default, model: 'gpt-4o' },
      clock: clock(),
      trace,
    });
    const transcript = loadCorpusSession(TAU);
    const seen: string[] = [];
    manager.on((event) => seen.push(event.type));
    const steps = await replaySession(manager, 's', transcript.messages, {
      contextWindow: 5_000,
      maxOutputTokens: 500,
    });
    await manager.flushTrace();
    const recorded = await trace.list('s');
    expect(recorded.map((event) => event.type)).toEqual(seen);
    expect(seen).toContain('compaction-finished');
    const exported = (await trace.exportJsonl('s')).trim().split('\n');
    expect(exported).toHaveLength(recorded.length);
    const sent = JSON.stringify(steps.map((step) => step.result.messages));
    expect(sent).not.toContain('compaction-finished');
  });
});
