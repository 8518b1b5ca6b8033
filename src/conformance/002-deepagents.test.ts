import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handleReadMemory } from '../agent/read-memory-tool.ts';
import { createReadOffloadedHandler } from '../agent/read-offloaded-tool.ts';
import { handleReadSkill } from '../agent/read-skill-tool.ts';
import { contextLevel } from '../core/budget/context-level.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { textOf } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import {
  DEEPAGENTS_CLEARING_KEEP,
  DEEPAGENTS_CLEARING_TRIGGER,
  DEEPAGENTS_EVICT_TOKENS,
  DEEPAGENTS_PREVIEW_LINES,
  DEEPAGENTS_SUMMARIZE_TRIGGER,
  DEEPAGENTS_TAIL_CAP_BYTES,
  PRESETS,
} from '../core/policy/presets/index.ts';
import { resolvePolicyWith } from '../core/policy/resolve-policy.ts';
import { countRunes } from '../core/tokens/count-runes.ts';
import { type TokenCounter, tokensForRunes } from '../core/tokens/token-counter.ts';
import type { PrepareResult } from '../engine/prepare-call.ts';
import { createFsSkillSource } from '../store/fs-skill-source.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { LONG_SESSION } from '../testing/corpus.ts';
import {
  allText,
  corpusInputs,
  eventsOfType,
  resultContents,
  runes,
  seedManager,
  utf8Bytes,
} from './support/seeds-000-002-harness.ts';
import { NOT_APPLICABLE_002 } from './support/seeds-000-002-not-applicable.ts';

/**
 * deepagents (a deepagents-based agent, "Context handling"), statement by statement, with the `deepagents`
 * preset through the public ContextManager API on corpus sessions. The thresholds are fractions of the
 * model's whole window, so most tests set one (64k, 4k reserved for the reply: clearing at 38,400 input
 * tokens, summarization at 54,400) and replay pi-mono's long coding session against it.
 */

const DEEPAGENTS: Policy = { ...PRESETS.deepagents, model: 'gpt-4o' };
const deepagents = (override: Record<string, unknown>): Policy => ({
  ...resolvePolicyWith('deepagents', [override], { dialect: 'deepagents' }),
  model: 'gpt-4o',
});

const WINDOW = { contextWindow: 64_000, maxOutputTokens: 4_000 };
/** 8 turns, 23 tool calls. */
const TAU_TOOLS = 'tau-bench__gpt-4o-airline_task33_trial0.jsonl';
/** One request, twenty tool calls. */
const SWE_ONE_TURN = 'swe-agent__ctf_i_got_id_demo.jsonl';
/** pi-mono's first 400 messages: 220 tool calls, two clearings' worth and a summarization. */
const PI_400 = corpusInputs(LONG_SESSION, 0, 400);

/** Placeholders are `[cleared]`; everything else a result shows is its real content. */
const CLEARED = '[cleared]';
/** How the view closes a call the log never answered (pi-mono has a few). */
const STAND_IN = '[no result recorded';

interface Step {
  index: number;
  /** Pressure before this call's layers ran (as /context would have shown it). */
  before: number;
  result: PrepareResult;
  layers: string[];
}

/** Replays like the agent loop: append up to each reply, read /context, prepare the call, afterTurn. */
async function replay(
  manager: ReturnType<typeof seedManager>,
  inputs: readonly MessageInput[],
  request = WINDOW,
): Promise<Step[]> {
  const steps: Step[] = [];
  let from = 0;
  for (let index = 1; index < inputs.length; index++) {
    if (inputs[index]?.role !== 'assistant') continue;
    await manager.append('s', inputs.slice(from, index));
    from = index;
    const before = (await manager.stats('s', request)).pressure;
    const result = await manager.prepare('s', request);
    const layers = eventsOfType(result.events, 'compaction-finished').map((event) => event.layer);
    steps.push({ index, before, result, layers });
    await manager.afterTurn('s');
  }
  await manager.append('s', inputs.slice(from));
  return steps;
}

/** Tool calls by id. */
function callsById(messages: readonly Pick<Message, 'parts'>[]): Map<string, string> {
  const calls = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.callId, part.args);
  }
  return calls;
}

describe('deepagents: not applicable here', () => {
  it('lists each statement that cannot apply, with its reason', () => {
    expect(NOT_APPLICABLE_002.length).toBeGreaterThan(0);
    for (const entry of NOT_APPLICABLE_002) {
      expect(entry.statement.trim().length).toBeGreaterThan(0);
      expect(entry.reason.trim().length).toBeGreaterThan(20);
    }
  });
});

describe('deepagents: what enters the context', () => {
  it('"Every turn, the model receives: The system prompt, assembled per session" (passed per call, never stored in history)', async () => {
    const manager = seedManager(DEEPAGENTS);
    const system = 'You are a simulation agent. Ground rules: …';
    await manager.append('s', corpusInputs(TAU_TOOLS, 0, 10));
    expect((await manager.prepare('s', { system })).system).toBe(system);
    await manager.append('s', corpusInputs(TAU_TOOLS, 10, 20));
    const second = await manager.prepare('s', { system });
    expect(second.system).toBe(system);
    expect(allText(second.messages)).not.toContain('Ground rules');
    expect((await manager.history('s')).log).toHaveLength(20);
  });

  it('"The conversation so far: messages, tool calls, and tool results." — "Tool results enter as real content, not summaries"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    const prepared = await manager.prepare('s');
    expect(prepared.messages.map((message) => message.parts)).toEqual(inputs.map((input) => input.parts));
    expect(resultContents(prepared.messages)).toEqual(resultContents(inputs));
  });

  it('"The Julia kernel\'s streamed output is rendered through a terminal emulator (so progress bars collapse to their final state instead of thousands of carriage-return frames)"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const frames = Array.from(
      { length: 2_000 },
      (_, i) =>
        `\rsampling [${'#'.repeat(Math.floor(i / 50))}${' '.repeat(40 - Math.floor(i / 50))}] ${Math.floor(i / 20)}%`,
    ).join('');
    const output = `${frames}\rsampling [${'#'.repeat(40)}] 100%\n\x1b[32mdone\x1b[0m in 12.3 s`;
    await manager.append('s', [
      user('run the sampler'),
      callsTo(['run', 'julia', '{"code":"sample(model)"}']),
    ]);
    const { events } = await manager.append('s', [result('run', output, { name: 'julia' })]);
    expect(eventsOfType(events, 'tool-output-normalized')).toHaveLength(1);
    const shown = resultContents((await manager.prepare('s')).messages).at(-1);
    expect(shown).toBe(`sampling [${'#'.repeat(40)}] 100%\ndone in 12.3 s`);
    expect((await manager.history('s')).log.at(-1)?.parts[0]).toMatchObject({ content: output });
  });

  it('"and tail-capped at 256 KB"', async () => {
    // The seed's estimate, chars/4 and nothing else. ctxkit's chars/4 never counts below the bytes' floor
    // (token-floor.ts: 32,760 tokens for the capped text below), so with it this output is capped and then
    // evicted as capped (next test): at 256 KB, no text is under the eviction threshold by that count.
    const seedEstimate: TokenCounter = {
      name: 'chars/4, as the seed counts',
      count: (text) => tokensForRunes(countRunes(text), 4),
    };
    const manager = seedManager(DEEPAGENTS, { counter: seedEstimate });
    // 70,000 four-byte characters: 280,000 bytes, but only ~17,500 tokens by the seed's chars/4 estimate, so
    // it is capped, not evicted. o200k counts 2 tokens per character, so the window is one the capped
    // result truly fits in: otherwise ctxkit's final guard (not the seed) would cut it further.
    const output = `${'🌀'.repeat(70_000)}\nEND OF RUN`;
    expect(utf8Bytes(output)).toBeGreaterThan(DEEPAGENTS_TAIL_CAP_BYTES);
    await manager.append('s', [user('stream it'), callsTo(['run', 'julia', '{}'])]);
    const { events } = await manager.append('s', [result('run', output, { name: 'julia' })]);
    expect(eventsOfType(events, 'tool-output-spilled')).toEqual([]);
    const prepared = await manager.prepare('s', { contextWindow: 400_000, maxOutputTokens: 8_000 });
    expect(prepared.stats.guard?.rounds).toBe(0);
    const shown = resultContents(prepared.messages).at(-1) ?? '';
    const [body = '', notice = ''] = shown.split(/\n(?=\[output truncated)/);
    expect(utf8Bytes(body)).toBeLessThanOrEqual(DEEPAGENTS_TAIL_CAP_BYTES);
    expect(utf8Bytes(body)).toBeGreaterThan(DEEPAGENTS_TAIL_CAP_BYTES - 1_024);
    expect(body.endsWith('\nEND OF RUN')).toBe(true);
    expect(notice).toMatch(/kept the end/);
  });
  it('"tail-capped at 256 KB" before "Any tool result over ~20k tokens is written to large_tool_results/<id>": the kernel caps its stream, eviction sees the capped result', async () => {
    const manager = seedManager(DEEPAGENTS);
    const steps = Array.from(
      { length: 12_000 },
      (_, i) => `step ${i}: loss=${(1 / (i + 1)).toFixed(8)} grad_norm=${(i % 97) / 10}`,
    );
    const output = `FIRST STEP OF THE RUN\n${steps.join('\n')}\nEND OF RUN`;
    expect(utf8Bytes(output)).toBeGreaterThan(1.5 * DEEPAGENTS_TAIL_CAP_BYTES);
    await manager.append('s', [user('train it'), callsTo(['run', 'julia', '{"code":"train(model)"}'])]);
    const { events } = await manager.append('s', [result('run', output, { name: 'julia' })]);
    const spilled = eventsOfType(events, 'tool-output-spilled');
    expect(spilled).toHaveLength(1);
    const ref = spilled[0]?.blobRef ?? '';
    expect(ref).toMatch(/^large_tool_results\//);
    // What was evicted is the capped stream: its end, at most 256 KB, and the notice saying so.
    const stored = await manager.readOffloaded('s', ref);
    const [body = '', notice = ''] = stored.split(/\n(?=\[output truncated)/);
    expect(utf8Bytes(body)).toBeLessThanOrEqual(DEEPAGENTS_TAIL_CAP_BYTES);
    expect(utf8Bytes(body)).toBeGreaterThan(DEEPAGENTS_TAIL_CAP_BYTES - 1_024);
    expect(body.endsWith('\nEND OF RUN')).toBe(true);
    expect(stored).not.toContain('FIRST STEP OF THE RUN');
    expect(notice).toMatch(/kept the end/);
    // The stub previews the capped result, and the log keeps the stream as it came.
    const stub = resultContents((await manager.prepare('s')).messages).at(-1) ?? '';
    expect(stub).toContain(ref);
    expect(stub).toContain('END OF RUN');
    expect(stub).not.toContain('FIRST STEP OF THE RUN');
    expect((await manager.history('s')).log.at(-1)?.parts[0]).toMatchObject({ content: output });
  });
});

describe('deepagents: the skills index and the memory index', () => {
  const SYSTEM = 'You are a simulation agent. Ground rules: …';
  const REQUEST = { system: SYSTEM, ...WINDOW };
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ctxkit-002-indexes-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** `<root>/<name>/SKILL.md` files, the convention agents share. */
  async function skillsDir(root: string, skills: [name: string, description: string, body: string][]) {
    for (const [name, description, body] of skills) {
      await mkdir(join(root, name), { recursive: true });
      await writeFile(
        join(root, name, 'SKILL.md'),
        `---\nname: ${name}\ndescription: ${description}\n---\n${body}`,
      );
    }
    return root;
  }

  const PLOT_BODY = 'PLOT-BODY: call plot_series with the run id, never Plots.jl directly.';
  const BISECT_USER = 'BISECT-USER-BODY: the user-level version.';
  const BISECT_PROJECT = 'BISECT-PROJECT-BODY: bisect with `make check`.';
  const SOLVER_BODY = 'SOLVER-BODY: tighten abstol before reltol.';

  async function skillSource() {
    const user = await skillsDir(join(dir, 'user-skills'), [
      ['plot-results', 'Plot a simulation run from its results table.', PLOT_BODY],
      ['git-bisect', 'Find the commit that broke a test (user).', BISECT_USER],
    ]);
    const project = await skillsDir(join(dir, 'project-skills'), [
      ['git-bisect', 'Find the commit that broke a simulation test.', BISECT_PROJECT],
      ['tune-solver', 'Tune ODE solver tolerances when a run diverges.', SOLVER_BODY],
    ]);
    return createFsSkillSource([user, project]);
  }

  it('"The skills index: every skill\'s name and description. Skill bodies are not in the context until the agent reads one"', async () => {
    const manager = seedManager(DEEPAGENTS, { skills: await skillSource() });
    await manager.append('s', corpusInputs(TAU_TOOLS, 0, 10));
    const prepared = await manager.prepare('s', REQUEST);
    // After the caller's prompt, which stays a byte-stable prefix.
    expect(prepared.system.startsWith(`${SYSTEM}\n\n`)).toBe(true);
    for (const line of [
      '- git-bisect: Find the commit that broke a simulation test.',
      '- plot-results: Plot a simulation run from its results table.',
      '- tune-solver: Tune ODE solver tolerances when a run diverges.',
    ]) {
      expect(prepared.system).toContain(line);
    }
    const request = `${prepared.system}\n${allText(prepared.messages)}`;
    for (const body of [PLOT_BODY, BISECT_USER, BISECT_PROJECT, SOLVER_BODY])
      expect(request).not.toContain(body);
    expect(request).not.toContain('(user)');

    // "until the agent reads one": the read tool returns the body, and then it is in the conversation.
    const read = await handleReadSkill(manager.skills, { name: 'tune-solver' });
    expect(read).toMatchObject({ isError: false, content: SOLVER_BODY });
    await manager.append('s', [
      callsTo(['k1', 'read_skill', '{"name":"tune-solver"}']),
      result('k1', read.content, { name: 'read_skill' }),
    ]);
    const after = await manager.prepare('s', REQUEST);
    expect(allText(after.messages)).toContain(SOLVER_BODY);
    expect(after.system).toBe(prepared.system);
    expect(allText(after.messages)).not.toContain(PLOT_BODY);
  });

  it('"every skill\'s name and description" in every request, counted in the system prompt\'s tokens by every budget and by /context', async () => {
    const withSkills = seedManager(DEEPAGENTS, { skills: await skillSource() });
    const without = seedManager(DEEPAGENTS);
    for (const manager of [withSkills, without]) await manager.append('s', corpusInputs(TAU_TOOLS, 0, 10));
    const shown = await withSkills.prepare('s', REQUEST);
    const bare = await without.prepare('s', REQUEST);
    expect(bare.system).toBe(SYSTEM);
    expect(shown.system).toContain('- tune-solver: Tune ODE solver tolerances when a run diverges.');
    const indexTokens = shown.stats.tokens.system - bare.stats.tokens.system;
    expect(indexTokens).toBeGreaterThan(50);
    // chars/4, the preset's estimate, of what the index adds.
    expect(indexTokens).toBeGreaterThanOrEqual(Math.floor((shown.system.length - SYSTEM.length) / 4));
    expect(shown.stats.tokens.input - bare.stats.tokens.input).toBe(indexTokens);
    expect((await withSkills.stats('s', REQUEST)).tokens.system).toBe(shown.stats.tokens.system);
    // Every request, not only the first.
    await withSkills.append('s', [assistant('ok'), user('next')]);
    expect((await withSkills.prepare('s', REQUEST)).system).toBe(shown.system);
  });

  it('"The memory index MEMORY.md (see memory). Individual notes enter only when read."', async () => {
    const stores = await openEmbeddedStores({ dataDir: dir });
    try {
      const detail =
        'NOTE-DETAIL: the 64-bit build of the kernel overflows at n = 2^31; use Int128 for the counter.';
      const note = `${'Counter overflow seen in the long-run benchmark, reproduced twice on the CI runner. '.repeat(3)}${detail}`;
      await stores.memory.write('earlier', {
        at: Date.UTC(2025, 2, 14, 9),
        title: 'Kernel overflow',
        text: note,
      });
      await stores.memory.write('earlier', {
        at: Date.UTC(2025, 2, 15, 9),
        title: 'Plot colours',
        text: 'Use the viridis map.',
      });
      const manager = seedManager(DEEPAGENTS, stores);
      await manager.append('s', corpusInputs(TAU_TOOLS, 0, 10));
      const prepared = await manager.prepare('s', REQUEST);
      const index = (await stores.memory.readIndex?.()) ?? '';
      expect(index).toMatch(/Kernel overflow/);
      // The index, whole, after the caller's prompt: each note's title and where it is, none of its text.
      expect(prepared.system.startsWith(`${SYSTEM}\n\n`)).toBe(true);
      expect(prepared.system).toContain(`<memory_index>\n${index.trimEnd()}\n</memory_index>`);
      expect(index).toMatch(/Plot colours · \[memory\/2025-03-15\.md\]\(memory\/2025-03-15\.md\)/);
      const request = `${prepared.system}\n${allText(prepared.messages)}`;
      for (const text of [detail, note, 'Counter overflow', 'viridis']) expect(request).not.toContain(text);

      // "enter only when read": the read tool, by the path the index gives the note, returns its text.
      const path = /\[(memory\/2025-03-14\.md)\]/.exec(prepared.system)?.[1] ?? '';
      const read = await handleReadMemory(manager, { path });
      expect(read.isError).toBe(false);
      expect(read.content).toContain(note);
      expect(await handleReadMemory(manager, { path: '../sessions' })).toMatchObject({
        code: 'invalid_path',
      });

      // A note written now is in the next request's index.
      await stores.memory.write('s', {
        at: Date.UTC(2025, 2, 16, 9),
        title: 'Solver choice',
        text: 'Rodas5 for stiff runs.',
      });
      const next = await manager.prepare('s', REQUEST);
      expect(next.system).toMatch(/Solver choice/);
      expect(next.stats.tokens.memory).toBeGreaterThan(prepared.stats.tokens.memory);
      expect(next.stats.tokens.system).toBe(prepared.stats.tokens.system);
    } finally {
      await stores.close();
    }
  });
});

describe('deepagents: persistence (what the engine does in memory)', () => {
  it('"the agent is rebuilt with the new model on the same checkpoint thread, and the conversation carries over" (mid-session model switching)', async () => {
    const store = createMemorySessionStore();
    const first = seedManager(DEEPAGENTS, { store });
    const inputs = corpusInputs(TAU_TOOLS);
    await first.append('s', inputs.slice(0, 30));
    const before = await first.prepare('s', { model: 'gpt-4o' });
    expect(before.stats.contextWindow).toBe(128_000);
    // Same manager, other model: the thread carries over, measured against the new model's window.
    const switched = await first.prepare('s', { model: 'claude-sonnet-4' });
    expect(switched.messages.map((message) => message.parts)).toEqual(
      before.messages.map((message) => message.parts),
    );
    expect(switched.stats.contextWindow).toBe(200_000);
    // A rebuilt agent (a new manager) on the same thread: the whole conversation, nothing lost.
    const rebuilt = seedManager({ ...DEEPAGENTS, model: 'claude-sonnet-4' }, { store });
    await rebuilt.append('s', inputs.slice(30));
    const carried = await rebuilt.prepare('s');
    expect(carried.messages.map((message) => message.parts)).toEqual(inputs.map((input) => input.parts));
  });
});

describe('deepagents: growth and its limits', () => {
  let steps: Step[] = [];
  let manager: ReturnType<typeof seedManager>;
  const allEvents: ContextEvent[] = [];

  beforeAll(async () => {
    manager = seedManager(DEEPAGENTS);
    manager.on((event) => allEvents.push(event));
    steps = await replay(manager, PI_400);
  });

  it('"growth is managed in layers, cheapest first, each running ahead of the next so the expensive ones fire only when the cheaper ones are not enough"', () => {
    const firstClear = steps.findIndex((step) => step.layers.includes('clear'));
    const firstSummary = steps.findIndex((step) => step.layers.includes('summarize'));
    expect(firstClear).toBeGreaterThanOrEqual(0);
    expect(firstSummary).toBeGreaterThan(firstClear);
    // Clearing alone was enough for many calls before summarization was needed.
    expect(
      steps.filter((step) => step.layers.includes('clear') && !step.layers.includes('summarize')).length,
    ).toBeGreaterThan(5);
    for (const step of steps) {
      const summarize = step.layers.indexOf('summarize');
      if (summarize === -1) continue;
      // Within a call, clearing ran before summarizing (or had nothing left to clear).
      const clear = step.layers.indexOf('clear');
      expect(clear === -1 || clear < summarize).toBe(true);
    }
  });

  it('"Once the conversation passes ~60% of the model\'s window, the older tool results (source reads, REPL output) are replaced by a [cleared] placeholder while the most recent ones stay verbatim"', () => {
    let checked = 0;
    for (const step of steps) {
      const cleared = step.layers.includes('clear');
      if (step.before < DEEPAGENTS_CLEARING_TRIGGER - 0.005) expect(cleared).toBe(false);
      if (!cleared) continue;
      expect(step.before).toBeGreaterThanOrEqual(DEEPAGENTS_CLEARING_TRIGGER - 0.005);
      // Results from the log (not the stand-ins closing calls the corpus never answered).
      const contents = resultContents(step.result.messages).filter(
        (content) => !content.startsWith(STAND_IN),
      );
      const newest = contents.slice(-DEEPAGENTS_CLEARING_KEEP);
      expect(newest).not.toContain(CLEARED);
      const original = PI_400.slice(0, step.index);
      // The newest results are verbatim, exactly as the tools returned them.
      for (const content of newest) expect(resultContents(original)).toContain(content);
      expect(contents.filter((content) => content === CLEARED).length).toBeGreaterThan(0);
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });

  it('"It is transparent (the raw log is untouched; only the model\'s per-call view is clipped)"', async () => {
    const { log } = await manager.history('s');
    expect(log.map((message) => message.parts)).toEqual(PI_400.map((input) => input.parts));
    const cleared = steps
      .flatMap((step) => resultContents(step.result.messages))
      .filter((content) => content === CLEARED);
    expect(cleared.length).toBeGreaterThan(0);
  });

  it('"cleared results are re-derivable: the files are still on disk and REPL commands can be re-run" (each cleared result keeps its call, arguments intact)', () => {
    let seen = 0;
    const changed: string[] = [];
    const logged = callsById(PI_400);
    for (const step of steps) {
      const shown = callsById(step.result.messages);
      for (const message of step.result.messages) {
        const part = message.parts[0];
        if (part?.type !== 'tool-result' || part.content !== CLEARED) continue;
        seen++;
        const args = shown.get(part.callId);
        if (args === undefined || args !== logged.get(part.callId))
          changed.push(`${step.index}:${part.callId}`);
      }
    }
    expect(seen).toBeGreaterThan(0);
    expect(changed).toEqual([]);
  });

  it('"When clearing is not enough and the conversation reaches ~85% of the window, the older turns are replaced by a structured summary (session intent, key decisions, artifacts, next steps) while the newest turns stay verbatim"', async () => {
    const summarized = steps.filter((step) => step.layers.includes('summarize'));
    expect(summarized.length).toBeGreaterThan(0);
    for (const step of summarized) {
      const finished = eventsOfType(step.result.events, 'compaction-finished');
      const summarize = finished.find((event) => event.layer === 'summarize');
      // Summarized only at ~85 %, after whatever clearing could do in this call.
      expect((summarize?.tokensBefore ?? 0) / WINDOW.contextWindow).toBeGreaterThanOrEqual(
        DEEPAGENTS_SUMMARIZE_TRIGGER - 0.02,
      );
      const [summary, ...rest] = step.result.messages;
      expect(summary?.role).toBe('user');
      expect(textOf(summary ?? { parts: [] })).toMatch(/## Session intent/);
      // The newest turn is there verbatim: the request being answered, and every message after it.
      const original = PI_400.slice(0, step.index);
      const lastUser = original.findLastIndex((input) => input.role === 'user');
      const tail = original.slice(lastUser).map((input) => textOf({ parts: input.parts }));
      const shown = rest.map((message) => textOf(message));
      expect(shown.slice(-tail.length)).toEqual(tail);
    }
    const sections = await summarySections();
    // Structured: session intent, decisions, artifacts (files), what comes next (plan / state).
    for (const section of ['intent', 'decisions', 'files'])
      expect(sections[section]?.length).toBeGreaterThan(0);
    expect(
      (sections.next?.length ?? 0) + (sections.plan?.length ?? 0) + (sections.state?.length ?? 0),
    ).toBeGreaterThan(0);
  });

  async function summarySections(): Promise<Record<string, string[]>> {
    const { edits } = await manager.history('s');
    const summarize = edits.findLast((edit) => edit.type === 'summarize');
    return summarize?.type === 'summarize' ? summarize.summary.sections : {};
  }

  it('"The summarized turns are offloaded to conversation_history/<thread>.md first, so they remain recoverable, and the summary embeds that path."', async () => {
    const stats = await manager.stats('s', WINDOW);
    const { edits } = await manager.history('s');
    const summarize = edits.findLast((edit) => edit.type === 'summarize');
    if (summarize?.type !== 'summarize') throw new Error('expected a summary');
    const ref = summarize.summary.historyRef;
    expect(ref).toBe('conversation_history/s.md');
    expect(stats.summary?.throughSeq).toBe(summarize.throughSeq);
    const prepared = await manager.prepare('s', WINDOW);
    expect(textOf(prepared.messages[0] ?? { parts: [] })).toContain('conversation_history/s.md');
    const transcript = await manager.readOffloaded('s', ref ?? '');
    // Every summarized message is in the offloaded transcript, the first request included.
    expect(transcript).toContain(textOf({ parts: PI_400[0]?.parts ?? [] }).slice(0, 200));
    const lastSummarized = PI_400[summarize.throughSeq];
    expect(transcript).toContain(allText([{ parts: lastSummarized?.parts ?? [] }]).slice(0, 200));
  });

  it('"TraceRecorder records each compaction" — "compaction is non-mutating, so nothing is lost from the record"', async () => {
    const summaries = eventsOfType(allEvents, 'compaction-finished').filter(
      (event) => event.layer === 'summarize',
    );
    expect(summaries.length).toBe(steps.filter((step) => step.layers.includes('summarize')).length);
    for (const event of summaries) {
      expect(event.tokensAfter).toBeLessThan(event.tokensBefore);
      expect(event.messagesAfter).toBeLessThan(event.messagesBefore);
    }
    const { log } = await manager.history('s');
    expect(log).toHaveLength(PI_400.length);
  });

  it('"clearing and the summary preserve the working set and the conclusions, not every byte"', async () => {
    const sections = await summarySections();
    // Files the summarized part read and edited are named in the summary.
    const files = (sections.files ?? []).join('\n');
    expect(files).toMatch(/main\.ts/);
    expect(files).toMatch(/agent-session\.ts/);
    expect((sections.decisions ?? []).length + (sections.state ?? []).length).toBeGreaterThan(0);
  });
});

describe('deepagents: eviction of a large single result', () => {
  const source = resultContents(corpusInputs(LONG_SESSION, 0, 7)).join('\n');

  it('"Any tool result over ~20k tokens is written to large_tool_results/<id> under the session state dir and replaced inline with a head/tail preview plus a pointer"', async () => {
    const manager = seedManager(DEEPAGENTS);
    // ~25k tokens of real source: over the limit. ~19k tokens: stays inline.
    const big = source.slice(0, 100_000);
    const under = source.slice(0, 76_000);
    await manager.append('s', [
      user('read both'),
      callsTo(['big', 'read_file', '{"path":"main.ts"}'], ['small', 'read_file', '{"path":"tui.ts"}']),
    ]);
    const { events } = await manager.append('s', [
      result('big', big, { name: 'read_file' }),
      result('small', under, { name: 'read_file' }),
    ]);
    const spilled = eventsOfType(events, 'tool-output-spilled');
    expect(spilled).toHaveLength(1);
    const ref = spilled[0]?.blobRef ?? '';
    expect(ref).toMatch(/^large_tool_results\//);
    const [stub = '', inline = ''] = resultContents((await manager.prepare('s')).messages);
    expect(inline).toBe(under);
    expect(stub).toContain(ref);
    const lines = big.split('\n');
    for (const line of [
      ...lines.slice(0, DEEPAGENTS_PREVIEW_LINES),
      ...lines.slice(-DEEPAGENTS_PREVIEW_LINES),
    ]) {
      expect(stub).toContain(line);
    }
    expect(stub).not.toContain(lines[Math.floor(lines.length / 2)] ?? '—');
    expect(runes(under) / 4).toBeLessThan(DEEPAGENTS_EVICT_TOKENS);
    expect(runes(big) / 4).toBeGreaterThan(DEEPAGENTS_EVICT_TOKENS);
  });

  it('"The full result stays recoverable; the context holds a stub."', async () => {
    const manager = seedManager(DEEPAGENTS);
    const big = source.slice(0, 120_000);
    await manager.append('s', [user('read it'), callsTo(['big', 'read_file', '{"path":"main.ts"}'])]);
    const { events } = await manager.append('s', [result('big', big, { name: 'read_file' })]);
    const ref = eventsOfType(events, 'tool-output-spilled')[0]?.blobRef ?? '';
    expect(await manager.readOffloaded('s', ref)).toBe(big);
    const stub = resultContents((await manager.prepare('s')).messages).at(-1) ?? '';
    expect(stub.length).toBeLessThan(big.length / 20);
    expect((await manager.history('s')).log.at(-1)?.parts[0]).toMatchObject({ content: big });
  });

  it('"replaced inline with a head/tail preview plus a pointer the agent can read_file" (the read_offloaded tool, paged)', async () => {
    const manager = seedManager(DEEPAGENTS);
    const big = source.slice(0, 120_000);
    await manager.append('s', [user('read it'), callsTo(['big', 'read_file', '{"path":"main.ts"}'])]);
    await manager.append('s', [result('big', big, { name: 'read_file' })]);
    const prepared = await manager.prepare('s');
    const pointer = prepared.pointers.find((entry) => entry.callId === 'big');
    expect(pointer).toBeDefined();
    // The stub names the ref the agent passes to the tool.
    expect(resultContents(prepared.messages).at(-1)).toContain(pointer?.ref);
    const read = createReadOffloadedHandler(manager, 's');
    let text = '';
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const page = await read({ ref: pointer?.ref, offset });
      expect(page.isError).toBe(false);
      text += page.content.slice(page.content.indexOf('\n') + 1);
      offset = page.nextOffset;
    }
    expect(text).toBe(big);
    // Only the session that owns it can read it back.
    expect((await createReadOffloadedHandler(manager, 'other')({ ref: pointer?.ref })).code).toBe(
      'not_found',
    );
  });
});

describe('deepagents: clearing details', () => {
  it('"The attempt log is never cleared, since the agent refers back to it by value." (its tool named in exclude_tools)', async () => {
    const manager = seedManager(deepagents({ exclude_tools: ['attempt_log'] }));
    const attempt = 'attempt 1: NUTS, 4 chains, r_hat 1.31 (diverged); attempt 2: reparametrized, r_hat 1.01';
    const inputs: MessageInput[] = [
      ...PI_400.slice(0, 7),
      callsTo(['log-1', 'attempt_log', '{"action":"read"}']),
      result('log-1', attempt, { name: 'attempt_log' }),
      assistant('Noted the attempts.'),
      ...PI_400.slice(7, 120),
    ];
    const steps = await replay(manager, inputs);
    const clearings = steps.filter((step) => step.layers.includes('clear'));
    expect(clearings.length).toBeGreaterThan(1);
    const missing = steps
      .filter((step) => step.index > 8 && !resultContents(step.result.messages).includes(attempt))
      .map((step) => step.index);
    expect(missing).toEqual([]);
  });
});

describe('deepagents: /context, the window, /compact, usage', () => {
  it('"/context shows measured usage by category (the last call\'s usage_metadata is exactly what the conversation costs to send) plus both the clearing and the summarization thresholds"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const system = 'You are a coding agent.';
    await manager.append('s', PI_400.slice(0, 60));
    const prepared = await manager.prepare('s', { ...WINDOW, system });
    // What /context shows right after a call is what that call costs.
    const shown = await manager.stats('s', { ...WINDOW, system });
    expect(shown.tokens).toEqual(prepared.stats.tokens);
    await manager.append('s', [
      { ...assistant('Done reading.'), usage: { inputTokens: 41_250, outputTokens: 120 } },
    ]);
    const stats = await manager.stats('s');
    expect(stats.tokens.input).toBe(41_250 + 120);
    expect(stats.tokens.system).toBeGreaterThan(0);
    expect(stats.tokens.system + stats.tokens.tools + stats.tokens.summary + stats.tokens.history).toBe(
      stats.tokens.input,
    );
    expect(stats.thresholds.clearing).toEqual({ pressure: 0.6, tokens: 38_400 });
    expect(stats.thresholds.summarize).toEqual({ pressure: 0.85, tokens: 54_400 });
  });

  it('/context after a summarization still shows exactly what the call costs', async () => {
    const manager = seedManager(DEEPAGENTS);
    await manager.append('s', PI_400.slice(0, 300));
    const prepared = await manager.prepare('s', WINDOW);
    expect(eventsOfType(prepared.events, 'compaction-finished').map((event) => event.layer)).toContain(
      'summarize',
    );
    expect((await manager.stats('s', WINDOW)).tokens).toEqual(prepared.stats.tokens);
  });

  it('"The status bar keeps a ctx percentage in view (yellow at 70%, red at 90%)"', async () => {
    expect(DEEPAGENTS.display).toEqual({ warnAt: 0.7, dangerAt: 0.9 });
    const levels: string[] = [];
    for (const messages of [4, 10, 60]) {
      const manager = seedManager(DEEPAGENTS);
      await manager.append('s', PI_400.slice(0, messages));
      const { pressure } = await manager.stats('s', { contextWindow: 48_000, maxOutputTokens: 4_000 });
      levels.push(contextLevel(pressure, DEEPAGENTS.display));
    }
    // Before any call compacts: about 53 %, 80 % and 132 % of the whole window.
    expect(levels).toEqual(['ok', 'warn', 'danger']);
    // The marks themselves: yellow from 70 %, red from 90 %.
    expect([0.69, 0.7, 0.89, 0.9].map((pressure) => contextLevel(pressure, DEEPAGENTS.display))).toEqual([
      'ok',
      'warn',
      'warn',
      'danger',
    ]);
  });

  it('"The window the thresholds are measured against is the model\'s real loaded size: the provider package\'s profile data for cloud models"', async () => {
    const manager = seedManager({ ...DEEPAGENTS, model: 'claude-sonnet-4' });
    await manager.append('s', corpusInputs(TAU_TOOLS));
    const stats = await manager.stats('s');
    expect(stats.contextWindow).toBe(200_000);
    // ~60 % of the window; 85 % (170,000) is past the largest request the profile's 64,000-token reserve
    // leaves room for, so summarization fires there, at 136,000, rather than never (see deepagents.ts).
    expect(stats.maxOutputTokens).toBe(64_000);
    expect(stats.thresholds.clearing?.tokens).toBe(120_000);
    expect(stats.thresholds.summarize?.tokens).toBe(136_000);
  });

  it('"for a local model the num_ctx it was actually loaded with … Sizing the trigger to the loaded window is what lets compaction fire before a local model overflows."', async () => {
    // qwen2.5-coder's profile says 32k; this server loaded it with num_ctx = 16384.
    const loaded = { contextWindow: 16_384, maxOutputTokens: 2_048 };
    const manager = seedManager({ ...DEEPAGENTS, model: 'qwen2.5-coder' });
    const steps = await replay(
      manager,
      corpusInputs('openhands__multi_swe_bench_ponylang__ponyc-4595.jsonl'),
      loaded,
    );
    expect(steps.every((step) => step.result.stats.contextWindow === 16_384)).toBe(true);
    expect(steps.some((step) => step.layers.includes('summarize') || step.layers.includes('clear'))).toBe(
      true,
    );
    for (const step of steps) expect(step.result.stats.tokens.input).toBeLessThanOrEqual(16_384 - 2_048);
  });

  it('"/compact runs a summarization pass on demand against the checkpointed thread."', async () => {
    const manager = seedManager(DEEPAGENTS);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    const before = await manager.stats('s', WINDOW);
    expect(before.pressure).toBeLessThan(DEEPAGENTS_CLEARING_TRIGGER);
    const { compacted, events } = await manager.compact('s');
    expect(compacted).toBe(true);
    const finished = eventsOfType(events, 'compaction-finished');
    expect(finished.map((event) => [event.layer, event.reason])).toContainEqual(['manual', 'manual']);
    const after = await manager.stats('s', WINDOW);
    expect(after.summary).toBeDefined();
    expect(after.tokens.history).toBeLessThan(before.tokens.history);
    expect(await manager.readOffloaded('s', 'conversation_history/s.md')).toContain(
      textOf({ parts: inputs[0]?.parts ?? [] }),
    );
  });

  it('"Every compaction (automatic or manual) is recorded as a context_compaction trace event, and the full conversation remains in the trace"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const recorded: ContextEvent[] = [];
    manager.on((event) => recorded.push(event));
    // A 42k window: summarized on the 4th call (three large reads), cleared from then on.
    await replay(manager, PI_400.slice(0, 120), { contextWindow: 42_000, maxOutputTokens: 6_000 });
    await manager.compact('s');
    const { edits, log } = await manager.history('s');
    const compactions = eventsOfType(recorded, 'compaction-finished');
    // One event for each edit a compaction made (normalization on arrival is not a compaction).
    const compactionEdits = edits.filter((edit) => edit.layer !== 'normalize');
    expect(compactions.flatMap((event) => event.editIds).sort()).toEqual(
      compactionEdits.map((edit) => edit.id).sort(),
    );
    expect(compactions.map((event) => event.layer)).toEqual(
      expect.arrayContaining(['clear', 'summarize', 'manual']),
    );
    expect(log.map((message) => message.parts)).toEqual(PI_400.slice(0, 120).map((input) => input.parts));
  });

  it('"Token usage per model turn is recorded in the trace (model_usage events), so the cost of a workflow is measurable"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const usage: ContextEvent[] = [];
    manager.on((event) => event.type === 'model-usage' && usage.push(event));
    const inputs = corpusInputs(TAU_TOOLS).map((input, index) =>
      input.role === 'assistant'
        ? { ...input, meta: { model: 'gpt-4o' }, usage: { inputTokens: 1_000 + index, outputTokens: 50 } }
        : input,
    );
    let from = 0;
    for (let index = 1; index <= inputs.length; index++) {
      if (index < inputs.length && inputs[index]?.role !== 'assistant') continue;
      await manager.append('s', inputs.slice(from, index));
      from = index;
      if (index < inputs.length) await manager.prepare('s');
    }
    const assistants = inputs.filter((input) => input.role === 'assistant');
    expect(usage).toHaveLength(assistants.length);
    expect(eventsOfType(usage, 'model-usage').map((event) => event.usage)).toEqual(
      assistants.map((input) => input.usage),
    );
    expect(eventsOfType(usage, 'model-usage').every((event) => event.model === 'gpt-4o')).toBe(true);
    const total = eventsOfType(usage, 'model-usage').reduce(
      (sum, event) => sum + event.usage.inputTokens + event.usage.outputTokens,
      0,
    );
    expect(total).toBeGreaterThan(assistants.length * 1_000);
  });

  it('"a subagent runs in its own context window and returns a result, so the parent\'s context pays for the conclusion, not the exploration"', async () => {
    const manager = seedManager(DEEPAGENTS);
    const exploration = corpusInputs(SWE_ONE_TURN);
    await manager.append('child', exploration);
    const conclusion = textOf({
      parts:
        exploration.findLast((input) => input.role === 'assistant' && textOf({ parts: input.parts }))
          ?.parts ?? [],
    });
    await manager.append('parent', [
      user('Find the flag on the web challenge.'),
      callsTo(['sub', 'task', '{"description":"explore the challenge"}']),
      result('sub', conclusion, { name: 'task' }),
    ]);
    const parent = await manager.prepare('parent');
    const child = await manager.stats('child');
    expect(resultContents(parent.messages)).toEqual([conclusion]);
    for (const content of resultContents(exploration)) {
      if (content.length > 40) expect(allText(parent.messages)).not.toContain(content);
    }
    expect(parent.stats.tokens.history).toBeLessThan(child.tokens.history / 5);
  });
});

describe('deepagents: persistence on disk (the embedded SQLite stores)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ctxkit-002-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('"Conversation state lives in checkpoints.sqlite per session … the agent is rebuilt with the new model on the same checkpoint thread, and the conversation carries over"', async () => {
    const inputs = corpusInputs(TAU_TOOLS);
    const first = await openEmbeddedStores({ dataDir });
    await seedManager(DEEPAGENTS, first).append('s', inputs.slice(0, 30));
    await first.close();
    const second = await openEmbeddedStores({ dataDir });
    try {
      const rebuilt = seedManager({ ...DEEPAGENTS, model: 'claude-sonnet-4' }, second);
      await rebuilt.append('s', inputs.slice(30));
      const carried = await rebuilt.prepare('s');
      expect(carried.messages.map((message) => message.parts)).toEqual(inputs.map((input) => input.parts));
      expect(carried.stats.contextWindow).toBe(200_000);
    } finally {
      await second.close();
    }
  });

  it('"Durable knowledge belongs in memory, which survives the session boundary by design."', async () => {
    const first = await openEmbeddedStores({ dataDir });
    await first.memory.write('first-task', {
      at: Date.UTC(2025, 2, 14, 9),
      title: 'Tolerance finding',
      text: 'The solver needs abstol 1e-10 for the stiff benchmark.',
    });
    await first.close();
    // Another session, in another process, days later: the note is in its memory index, its text one read away.
    const second = await openEmbeddedStores({ dataDir });
    try {
      const manager = seedManager(DEEPAGENTS, second);
      await manager.append('second-task', [user('Set up the stiff benchmark again.')]);
      const prepared = await manager.prepare('second-task', { system: 'You are a careful agent.' });
      expect(prepared.system).toContain('Tolerance finding');
      expect(allText(prepared.messages)).not.toContain('abstol 1e-10');
      const path = /\[(memory\/2025-03-14\.md)\]/.exec(prepared.system)?.[1] ?? '';
      expect((await handleReadMemory(manager, { path })).content).toContain('abstol 1e-10');
      // Removing the session (retention does) leaves memory alone.
      await second.store.delete('second-task');
      expect((await second.store.list()).map((listing) => listing.id)).not.toContain('second-task');
      expect((await handleReadMemory(manager, { path })).content).toContain('abstol 1e-10');
    } finally {
      await second.close();
    }
  });

  it('"The trace (trace.sqlite) is a separate, append-only record for humans and scorers. It is never fed back to the model."', async () => {
    const stores = await openEmbeddedStores({ dataDir });
    try {
      const manager = seedManager(DEEPAGENTS, stores);
      await replay(manager, PI_400.slice(0, 120), { contextWindow: 42_000, maxOutputTokens: 6_000 });
      await manager.flushTrace();
      const events = await stores.trace.list('s');
      const compactions = eventsOfType(events, 'compaction-finished');
      expect(compactions.length).toBeGreaterThan(0);
      // Nothing of the trace reaches the model: no event's wording is in the request.
      const prepared = await manager.prepare('s', { contextWindow: 42_000, maxOutputTokens: 6_000 });
      expect(allText(prepared.messages)).not.toContain('compaction-finished');
      // Append-only: a later call adds events, the earlier ones stay as they were.
      await manager.flushTrace();
      const later = await stores.trace.list('s');
      expect(later.slice(0, events.length)).toEqual(events);
      expect(later.length).toBeGreaterThan(events.length);
    } finally {
      await stores.close();
    }
  });
});
