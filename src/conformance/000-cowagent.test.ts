import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MessageInput } from '../core/message.ts';
import { textOf } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import {
  COWAGENT_COMPRESS_BELOW_TURNS,
  COWAGENT_EMERGENCY_MAX_TURNS,
  COWAGENT_EMERGENCY_TOOL_RESULT_MAX_CHARS,
  COWAGENT_EMERGENCY_USER_TEXT_MAX_CHARS,
  COWAGENT_MAX_CONTEXT_TOKENS,
  COWAGENT_MAX_CONTEXT_TURNS,
  COWAGENT_TRUNCATE_OLD_MAX_CHARS,
  PRESETS,
} from '../core/policy/presets/index.ts';
import { resolvePolicy } from '../core/policy/resolve-policy.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import { openEmbeddedStores } from '../store/open-embedded-stores.ts';
import { DAY_MS } from '../store/retention.ts';
import { assistant, callsTo, result, user } from '../testing/build-messages.ts';
import { LONG_SESSION, loadCorpusSession } from '../testing/corpus.ts';
import { replaySession } from '../testing/replay-session.ts';
import {
  allText,
  callIds,
  concatCorpus,
  corpusInputs,
  eventsOfType,
  firstTurns,
  overflowError,
  RecordingSummarizer,
  resultContents,
  runes,
  seedClock,
  seedManager,
} from './support/seeds-000-002-harness.ts';
import { NOT_APPLICABLE_000 } from './support/seeds-000-002-not-applicable.ts';

/**
 * cowagent (cowagent, "Short-term Memory"), statement by statement, with the `cowagent` preset, through
 * the public ContextManager API, on corpus sessions. The model is gpt-4o (a 128k window), so every
 * figure the seed gives (20,000 characters, 20 turns, 50,000 tokens, 5 turns, 10K) is what fires a rule,
 * never the window.
 */

const COWAGENT: Policy = { ...PRESETS.cowagent, model: 'gpt-4o' };

/** 8 turns, 23 tool calls: a customer-service session. */
const TAU_TOOLS = 'tau-bench__gpt-4o-airline_task33_trial0.jsonl';
/** 8 turns, 23 tool calls. */
const TAU_TOOLS_2 = 'tau-bench__gpt-4o-airline_task9_trial2.jsonl';
/** Two tool-using customer-service sessions back to back: 30 turns, 27 tool calls. */
const TAU_30_TURNS = [
  'tau-bench__gpt-4o-airline_task13_trial0.jsonl',
  'tau-bench__gpt-4o-airline_task23_trial3.jsonl',
];
/** A 30-turn chat with a single tool call. */
const TAU_CHATTY = 'tau-bench__gpt-4o-airline_task9_trial3.jsonl';
/** One user request, twenty tool calls. */
const SWE_ONE_TURN = 'swe-agent__ctf_i_got_id_demo.jsonl';

describe('cowagent: not applicable here', () => {
  it('lists each statement that cannot apply, with its reason', () => {
    expect(NOT_APPLICABLE_000.length).toBeGreaterThan(0);
    for (const entry of NOT_APPLICABLE_000) {
      expect(entry.statement.trim().length).toBeGreaterThan(0);
      expect(entry.reason.trim().length).toBeGreaterThan(20);
    }
  });
});

describe('cowagent: context structure', () => {
  it('"Conversation context is the Agent\'s short-term memory, containing all messages in the current session (user input, Agent replies, tool calls and results)"', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    const prepared = await manager.prepare('s');
    expect(prepared.messages.map((message) => message.role)).toEqual(inputs.map((input) => input.role));
    expect(prepared.messages.map((message) => message.parts)).toEqual(inputs.map((input) => input.parts));
    expect(callIds(prepared.messages)).toHaveLength(23);
    expect(resultContents(prepared.messages)).toHaveLength(23);
  });

  it('"Each conversation turn consists of: User message → Agent thinking → Tool call → Tool result → ... → Agent final reply"', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    const stats = await manager.stats('s');
    // A turn is one user message and everything up to the next one.
    expect(stats.turns).toBe(inputs.filter((input) => input.role === 'user').length);
    expect(stats.turns).toBe(8);
  });

  it('"A single turn may include multiple tool calls"', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(SWE_ONE_TURN);
    await manager.append('s', inputs);
    const prepared = await manager.prepare('s');
    expect((await manager.stats('s')).turns).toBe(1);
    expect(resultContents(prepared.messages)).toHaveLength(20);
    expect(findPairingViolations(prepared.messages)).toEqual([]);
  });

  it('"All tool calls and results are retained in context until compressed or trimmed"', async () => {
    const manager = seedManager(COWAGENT);
    const transcript = loadCorpusSession(TAU_TOOLS);
    const steps = await replaySession(
      manager,
      's',
      transcript.messages,
      {},
      ({ index, result: prepared }) => {
        const sofar = transcript.messages.slice(0, index);
        expect(callIds(prepared.messages)).toEqual(callIds(sofar));
        expect(resultContents(prepared.messages)).toEqual(resultContents(sofar));
        expect(eventsOfType(prepared.events, 'compaction-finished')).toEqual([]);
      },
    );
    expect(steps.length).toBeGreaterThan(20);
  });
});

describe('cowagent: compression strategy', () => {
  it('"When context exceeds limits, the system automatically compresses to free space"', async () => {
    const manager = seedManager(COWAGENT);
    const compactions: string[] = [];
    manager.on((event) => {
      if (event.type === 'compaction-finished') compactions.push(event.layer);
    });
    const transcript = loadCorpusSession(TAU_CHATTY);
    await replaySession(manager, 's', transcript.messages, {});
    // Nobody called compact(): the 30 turns went over the 20-turn limit and were trimmed.
    expect(compactions).toContain('trim');
    expect((await manager.stats('s')).turns).toBeLessThanOrEqual(COWAGENT_MAX_CONTEXT_TURNS);
  });

  describe('1. Tool Result Truncation', () => {
    // pi-mono: the first turn reads three files of 49,929, 51,266 and 24,030 characters.
    const firstTurn = corpusInputs(LONG_SESSION, 0, 7);
    const secondUser = corpusInputs(LONG_SESSION, 7, 8);
    const bigResults = resultContents(firstTurn).filter(
      (content) => content.length > COWAGENT_TRUNCATE_OLD_MAX_CHARS,
    );

    it('"Before each decision loop, the system checks tool call results in historical turns. Results exceeding 20,000 characters are truncated, keeping only the beginning and end with a truncation notice"', async () => {
      expect(bigResults).toHaveLength(3);
      const manager = seedManager(COWAGENT);
      await manager.append('s', [...firstTurn, ...secondUser]);
      const prepared = await manager.prepare('s');
      const shown = resultContents(prepared.messages);
      const original = resultContents(firstTurn);
      expect(shown).toHaveLength(original.length);
      original.forEach((content, index) => {
        const seen = shown[index] ?? '';
        if (content.length <= COWAGENT_TRUNCATE_OLD_MAX_CHARS) {
          expect(seen).toBe(content);
          return;
        }
        expect(runes(seen)).toBeLessThanOrEqual(COWAGENT_TRUNCATE_OLD_MAX_CHARS);
        expect(seen.startsWith(content.slice(0, 2_000))).toBe(true);
        expect(seen.endsWith(content.slice(-2_000))).toBe(true);
        expect(seen).toMatch(/truncated/i);
      });
    });

    it('"Current turn results are not affected"', async () => {
      const manager = seedManager(COWAGENT);
      await manager.append('s', firstTurn);
      const prepared = await manager.prepare('s');
      expect(resultContents(prepared.messages)).toEqual(resultContents(firstTurn));
      expect(eventsOfType(prepared.events, 'compaction-finished')).toEqual([]);
    });
  });

  describe('2. Turn Trimming', () => {
    const thirtyTurns = concatCorpus(TAU_30_TURNS);
    const twentyOne = firstTurns(thirtyTurns, COWAGENT_MAX_CONTEXT_TURNS + 1);

    it('"When conversation turns exceed agent_max_context_turns: The oldest half of complete turns is trimmed (preserving tool call chain integrity)"', async () => {
      const manager = seedManager(COWAGENT);
      await manager.append('s', firstTurns(thirtyTurns, COWAGENT_MAX_CONTEXT_TURNS));
      const atLimit = await manager.prepare('s');
      expect(eventsOfType(atLimit.events, 'compaction-finished')).toEqual([]);

      await manager.append('s', twentyOne.slice(atLimit.messages.length));
      expect((await manager.stats('s')).turns).toBe(21);
      const prepared = await manager.prepare('s');
      const trims = eventsOfType(prepared.events, 'compaction-finished').filter(
        (event) => event.layer === 'trim',
      );
      expect(trims).toHaveLength(1);
      // floor(21 / 2) = 10 whole turns go; 11 stay, starting at a user message.
      expect((await manager.stats('s')).turns).toBe(11);
      const kept = firstTurns(twentyOne, 10).length;
      expect(prepared.messages.map((message) => message.parts)).toEqual(
        twentyOne.slice(kept).map((input) => input.parts),
      );
      expect(prepared.messages[0]?.role).toBe('user');
      expect(findPairingViolations(prepared.messages)).toEqual([]);
    });

    it('"Trimmed messages are summarized by LLM and written to the daily memory file" (the memory sink; the file is the persistence issue\'s)', async () => {
      const summarizer = new RecordingSummarizer();
      const manager = seedManager(COWAGENT, { summarizer });
      await manager.append('s', twentyOne);
      await manager.prepare('s');
      // The trimmed turns are summarized in the background, and their note written after.
      await vi.waitFor(async () => expect(await manager.memory.search('s', 'trimmed turns')).toHaveLength(1));
      expect(summarizer.calls).toHaveLength(1);
      const summarized = summarizer.calls[0]?.messages ?? [];
      expect(summarized.map((message) => message.parts)).toEqual(
        firstTurns(twentyOne, 10).map((input) => input.parts),
      );
      const notes = await manager.memory.search('s', 'trimmed turns');
      expect(notes).toHaveLength(1);
      // What the first trimmed turn asked for is in the note, and search finds it.
      const firstRequest = textOf({ parts: twentyOne[0]?.parts ?? [] }).slice(0, 40);
      expect(notes[0]?.text).toContain(firstRequest);
    });

    it('"Once the LLM summary is ready, it is also injected into the first user message of the retained context"', async () => {
      const manager = seedManager(COWAGENT);
      await manager.append('s', twentyOne);
      const trimmed = await manager.prepare('s');
      await vi.waitFor(async () => expect(await manager.memory.search('s', 'trimmed turns')).toHaveLength(1));
      // Ready, but not inside the turn that trimmed: it takes effect from the next turn on.
      const sameTurn = await manager.prepare('s');
      expect(eventsOfType(sameTurn.events, 'summary-applied')).toEqual([]);
      await manager.append('s', [user('And the next thing?')]);
      const next = await manager.prepare('s');
      expect(eventsOfType(next.events, 'summary-applied')).toHaveLength(1);
      const [note] = await manager.memory.search('s', 'trimmed turns');
      const first = next.messages[0];
      expect(first?.role).toBe('user');
      const [injected, ...own] = first?.parts ?? [];
      expect(injected?.type === 'text' && injected.text).toContain(note?.text ?? '—');
      // The rest of that message is the first retained user message itself; nothing else was added.
      expect(own).toEqual(trimmed.messages[0]?.parts);
      expect(next.messages).toHaveLength(trimmed.messages.length + 1);
    });

    it('"takes effect from the next turn onward": not in a call again of the turn that trimmed, though that call starts the turn', async () => {
      const manager = seedManager(COWAGENT);
      await manager.append('s', [...twentyOne, user('One more thing.')]);
      const trimmed = await manager.prepare('s');
      expect(eventsOfType(trimmed.events, 'summary-scheduled')).toHaveLength(1);
      await vi.waitFor(async () => expect(await manager.memory.search('s', 'trimmed turns')).toHaveLength(1));
      // The same call again (a retry): still the turn that trimmed.
      const again = await manager.prepare('s');
      expect(eventsOfType(again.events, 'summary-applied')).toEqual([]);
      await manager.append('s', [assistant('Done.'), user('And now?')]);
      const next = await manager.prepare('s');
      expect(eventsOfType(next.events, 'summary-applied')).toHaveLength(1);
    });

    it('"Summary injection runs asynchronously in the background and takes effect from the next turn onward"', async () => {
      const manager = seedManager(COWAGENT);
      const trimmedAt: number[] = [];
      let withSummary = 0;
      const transcript = loadCorpusSession(TAU_CHATTY);
      let sawTrim = false;
      await replaySession(manager, 's', transcript.messages, {}, ({ index, result: prepared }) => {
        const trim = eventsOfType(prepared.events, 'compaction-finished').some(
          (event) => event.layer === 'trim',
        );
        const summaryShown = prepared.messages.some((message) =>
          textOf(message).includes('# Summary of the conversation'),
        );
        const startsTurn = transcript.messages[index - 1]?.role === 'user';
        if (trim && !sawTrim) {
          sawTrim = true;
          trimmedAt.push(index);
          // Scheduled now, in the background: the call that trims does not carry the summary yet.
          expect(eventsOfType(prepared.events, 'summary-scheduled')).toHaveLength(1);
          expect(summaryShown).toBe(false);
        } else if (sawTrim && (startsTurn || withSummary > 0)) {
          // From the next turn on, and from then on in every call.
          expect(summaryShown).toBe(true);
          withSummary++;
        } else if (sawTrim) {
          // The calls left in the turn that trimmed go without it.
          expect(summaryShown).toBe(false);
        }
      });
      expect(trimmedAt).toHaveLength(1);
      expect(withSummary).toBeGreaterThan(0);
    });
  });

  describe('3. Token Budget Trimming', () => {
    /** pi-mono's first three turns, then a fourth that reads three large source files. */
    function underFiveTurns(): MessageInput[] {
      const turns = corpusInputs(LONG_SESSION, 0, 14);
      const files = resultContents(corpusInputs(LONG_SESSION, 0, 7)).slice(0, 3);
      return [
        ...turns,
        callsTo(
          ['read-a', 'read', '{"path":"a.ts"}'],
          ['read-b', 'read', '{"path":"b.ts"}'],
          ['read-c', 'read', '{"path":"c.ts"}'],
        ),
        result('read-a', files[0] ?? '', { name: 'read' }),
        result('read-b', files[1] ?? '', { name: 'read' }),
        result('read-c', files[2] ?? '', { name: 'read' }),
      ];
    }

    it('"After turn trimming, if tokens still exceed the budget: Fewer than 5 turns: All turns undergo text compression — each turn keeps only the first user text and last Agent reply, removing intermediate tool call chains"', async () => {
      const manager = seedManager(COWAGENT);
      const inputs = underFiveTurns();
      await manager.append('s', inputs);
      const before = await manager.stats('s');
      expect(before.turns).toBe(4);
      expect(before.tokens.input).toBeGreaterThan(COWAGENT_MAX_CONTEXT_TOKENS);
      const prepared = await manager.prepare('s');
      expect(prepared.stats.tokens.input).toBeLessThanOrEqual(COWAGENT_MAX_CONTEXT_TOKENS);
      expect(eventsOfType(prepared.events, 'compaction-finished').map((event) => event.layer)).toContain(
        'compress-text',
      );
      // The three finished turns: first user text, last agent reply; no tool call chain between.
      const currentStart = prepared.messages.findLastIndex((message) => message.role === 'user');
      const finished = prepared.messages.slice(0, currentStart);
      expect(finished.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      for (const message of finished) expect(message.parts.every((part) => part.type === 'text')).toBe(true);
      expect(textOf(finished[0] ?? { parts: [] })).toBe(textOf({ parts: inputs[0]?.parts ?? [] }));
      // The turn in progress (no final reply yet) keeps its tool chain: see the preset's note.
      expect(callIds(prepared.messages.slice(currentStart))).toEqual(['read-a', 'read-b', 'read-c']);
    });

    it('"All turns undergo text compression": 4 finished turns, the last one included, give 8 alternating user/assistant messages with no tool parts', async () => {
      const manager = seedManager(COWAGENT);
      const finalReply = 'The three files define the session store, its codec and the migrations.';
      const inputs = [...underFiveTurns(), assistant(finalReply)];
      await manager.append('s', inputs);
      const before = await manager.stats('s');
      expect(before.turns).toBe(COWAGENT_COMPRESS_BELOW_TURNS - 1);
      expect(before.tokens.input).toBeGreaterThan(COWAGENT_MAX_CONTEXT_TOKENS);
      const prepared = await manager.prepare('s');
      expect(prepared.stats.tokens.input).toBeLessThanOrEqual(COWAGENT_MAX_CONTEXT_TOKENS);
      expect(prepared.messages.map((message) => message.role)).toEqual([
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
        'user',
        'assistant',
      ]);
      for (const message of prepared.messages)
        expect(message.parts.every((part) => part.type === 'text')).toBe(true);
      // Each turn: its first user text and its last agent reply.
      const users = inputs.filter((input) => input.role === 'user');
      expect(
        prepared.messages.filter((_, index) => index % 2 === 0).map((message) => textOf(message)),
      ).toEqual(users.map((input) => textOf({ parts: input.parts.filter((part) => part.type === 'text') })));
      expect(textOf(prepared.messages.at(-1) ?? { parts: [] })).toBe(finalReply);
      // The log keeps every tool call and result.
      expect(callIds((await manager.history('s')).log)).toHaveLength(callIds(inputs).length);
    });

    it('"5 or more turns: The first half of turns is trimmed again, with discarded content written to memory and a context summary injected"', async () => {
      const manager = seedManager(COWAGENT);
      // pi-mono's first nine turns: about 54k tokens once old results are truncated, under the 20-turn limit.
      const inputs = firstTurns(corpusInputs(LONG_SESSION, 0, 200), 9);
      await manager.append('s', inputs);
      expect((await manager.stats('s')).turns).toBe(9);
      const prepared = await manager.prepare('s');
      expect(prepared.stats.tokens.input).toBeLessThanOrEqual(COWAGENT_MAX_CONTEXT_TOKENS);
      // The first half, floor(9 / 2) = 4 turns, goes; the newest 5 stay.
      expect((await manager.stats('s')).turns).toBe(5);
      const kept = firstTurns(inputs, 4).length;
      const shownTexts = prepared.messages.map((message) => textOf(message));
      expect(shownTexts.some((text) => text.includes(textOf({ parts: inputs[kept]?.parts ?? [] })))).toBe(
        true,
      );
      await vi.waitFor(async () => expect(await manager.memory.search('s', '')).not.toEqual([]));
      await manager.append('s', [user('And the next thing?')]);
      const next = await manager.prepare('s');
      expect(textOf(next.messages[0] ?? { parts: [] })).toContain('# Summary of the conversation');
    });
  });

  describe('4. Overflow Emergency Handling', () => {
    it('"When the model API returns a context overflow error: 1. All current messages are summarized and written to memory"', async () => {
      const summarizer = new RecordingSummarizer();
      const manager = seedManager(COWAGENT, { summarizer });
      const inputs = corpusInputs(TAU_TOOLS);
      await manager.append('s', inputs);
      const sent = await manager.prepare('s');
      const recovered = await manager.recover('s', overflowError());
      expect(recovered.retry).toBe(true);
      expect(summarizer.calls[0]?.messages.map((message) => message.parts)).toEqual(
        sent.messages.map((message) => message.parts),
      );
      const notes = await manager.memory.search('s', 'context overflow');
      expect(notes).toHaveLength(1);
      expect(notes[0]?.text).toContain(textOf({ parts: inputs[0]?.parts ?? [] }).slice(0, 40));
    });

    /** Eight tool-using turns, then a ninth with a 15K-character request and a 30K-character result. */
    function overflowingSession(): MessageInput[] {
      const longRequest = `${'Please review this log carefully. '.repeat(450)}END-OF-REQUEST`;
      const longResult = `${resultContents(corpusInputs(TAU_TOOLS_2)).join('\n').repeat(3).slice(0, 30_000)}END-OF-RESULT`;
      return [
        ...corpusInputs(TAU_TOOLS_2),
        user(longRequest),
        callsTo(['dump', 'get_reservation_details', '{"reservation_id":"ALL"}']),
        result('dump', longResult, { name: 'get_reservation_details' }),
      ];
    }

    it('"2. Aggressive trimming is applied (tool results limited to 10K chars, user text to 10K, max 5 turns)"', async () => {
      const manager = seedManager(COWAGENT);
      const inputs = overflowingSession();
      await manager.append('s', inputs);
      expect((await manager.stats('s')).turns).toBe(9);
      await manager.prepare('s');
      expect((await manager.recover('s', overflowError())).retry).toBe(true);
      const retried = await manager.prepare('s');
      expect((await manager.stats('s')).turns).toBeLessThanOrEqual(COWAGENT_EMERGENCY_MAX_TURNS);
      for (const message of retried.messages) {
        for (const part of message.parts) {
          if (part.type === 'tool-result') {
            expect(runes(part.content)).toBeLessThanOrEqual(COWAGENT_EMERGENCY_TOOL_RESULT_MAX_CHARS);
          }
          if (part.type === 'text' && message.role === 'user') {
            expect(runes(part.text)).toBeLessThanOrEqual(COWAGENT_EMERGENCY_USER_TEXT_MAX_CHARS);
          }
        }
      }
      // Clipped, not dropped: the current turn's request and result are still there, head and tail.
      const text = allText(retried.messages);
      expect(text).toContain('END-OF-REQUEST');
      expect(text).toContain('END-OF-RESULT');
    });

    it('"3. If still overflowing, the entire conversation context is cleared"', async () => {
      const manager = seedManager(COWAGENT);
      const inputs = overflowingSession();
      await manager.append('s', inputs);
      await manager.prepare('s');
      expect((await manager.recover('s', overflowError())).retry).toBe(true);
      await manager.prepare('s');
      // The second overflow clears everything: there is nothing left to resend, so no retry.
      expect((await manager.recover('s', overflowError())).retry).toBe(false);
      const cleared = await manager.prepare('s');
      expect(cleared.messages).toEqual([]);
      const stats = await manager.stats('s');
      expect(stats.tokens.summary).toBe(0);
      expect(stats.messages.view).toBe(0);
      // The log is intact: every message is still on record.
      const { log } = await manager.history('s');
      expect(log).toHaveLength(inputs.length);
      // The conversation goes on from the user's next message, alone.
      await manager.append('s', [user('Start over: what can you do?')]);
      const next = await manager.prepare('s');
      expect(next.messages.map((message) => textOf(message))).toEqual(['Start over: what can you do?']);
    });
  });
});

describe('cowagent: session persistence (what the engine does in memory)', () => {
  it('"Conversation messages are persisted … automatically restored after service restart" (a second manager over the same store)', async () => {
    const store = createMemorySessionStore();
    const before = seedManager(COWAGENT, { store });
    await before.append('s', corpusInputs(TAU_TOOLS));
    const sent = await before.prepare('s');

    const after = seedManager(COWAGENT, { store });
    const restored: number[] = [];
    after.on((event) => {
      if (event.type === 'session-restored') restored.push(event.messages);
    });
    const prepared = await after.prepare('s');
    expect(restored).toEqual([corpusInputs(TAU_TOOLS).length]);
    // "Restores the most recent max(3, max_context_turns / 6) turns", "only … user text and Agent final reply".
    const keep = Math.max(3, Math.floor(COWAGENT.trim.maxTurns / 6));
    const users = prepared.messages.filter(
      (message) => message.role === 'user' && message.meta.kind === undefined,
    );
    expect(users).toHaveLength(keep);
    expect(prepared.messages.length).toBeLessThan(sent.messages.length);
    expect(prepared.messages.every((message) => message.parts.every((part) => part.type === 'text'))).toBe(
      true,
    );
    const lastUser = sent.messages.filter((message) => message.role === 'user').at(-1);
    expect(users.at(-1)?.parts).toEqual(lastUser?.parts.filter((part) => part.type === 'text'));
  });
});

describe('cowagent: commands', () => {
  it('"/context | View current context statistics (message count, role distribution, total characters)"', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    const stats = await manager.stats('s');
    expect(stats.messages.view).toBe(inputs.length);
    expect(stats.roles).toEqual({
      user: inputs.filter((input) => input.role === 'user').length,
      assistant: inputs.filter((input) => input.role === 'assistant').length,
      tool: inputs.filter((input) => input.role === 'tool').length,
    });
    const chars = inputs
      .flatMap((input) => input.parts)
      .reduce((sum, part) => {
        if (part.type === 'text' || part.type === 'reasoning') return sum + part.text.length;
        if (part.type === 'tool-call') return sum + part.args.length;
        if (part.type === 'tool-result') return sum + part.content.length;
        return sum;
      }, 0);
    expect(stats.chars).toBe(chars);
  });

  it('"/context clear | Clear current session context"', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    await manager.clear('s');
    const stats = await manager.stats('s');
    expect(stats.messages.view).toBe(0);
    expect(stats.messages.log).toBe(inputs.length);
  });

  it('"Configurable via config.json": "/config agent_max_context_tokens 80000 | Adjust context token budget"', async () => {
    const inputs = firstTurns(corpusInputs(LONG_SESSION, 0, 200), 9);
    const preset = seedManager(COWAGENT);
    await preset.append('s', inputs);
    const atPreset = await preset.prepare('s');
    expect(atPreset.stats.tokens.input).toBeLessThanOrEqual(COWAGENT_MAX_CONTEXT_TOKENS);

    // The same conversation (about 54k tokens) fits a budget of 80,000 untouched but for old results.
    const adjusted = seedManager({
      ...resolvePolicy('cowagent', { agent_max_context_tokens: 80_000 }),
      model: 'gpt-4o',
    });
    await adjusted.append('s', inputs);
    const prepared = await adjusted.prepare('s');
    expect(prepared.stats.tokens.input).toBeGreaterThan(COWAGENT_MAX_CONTEXT_TOKENS);
    expect(eventsOfType(prepared.events, 'compaction-finished').map((event) => event.layer)).toEqual([
      'truncate-old',
    ]);
  });

  it('"/config agent_max_context_turns 30 | Adjust context turn limit"', async () => {
    const sixty = [...concatCorpus(TAU_30_TURNS), ...corpusInputs(TAU_CHATTY)];
    const manager = seedManager({
      ...resolvePolicy('cowagent', { agent_max_context_turns: 30 }),
      model: 'gpt-4o',
    });
    await manager.append('s', firstTurns(sixty, 30));
    const at30 = await manager.prepare('s');
    expect(
      eventsOfType(at30.events, 'compaction-finished').filter((event) => event.layer === 'trim'),
    ).toEqual([]);
    await manager.append('s', firstTurns(sixty, 31).slice(firstTurns(sixty, 30).length));
    const at31 = await manager.prepare('s');
    expect(
      eventsOfType(at31.events, 'compaction-finished').filter((event) => event.layer === 'trim'),
    ).toHaveLength(1);
    expect((await manager.stats('s')).turns).toBe(31 - 15);
  });

  it('"After clearing context, the Agent \'forgets\' previous conversation content."', async () => {
    const manager = seedManager(COWAGENT);
    const inputs = corpusInputs(TAU_TOOLS);
    await manager.append('s', inputs);
    await manager.clear('s');
    await manager.append('s', [user('What did we talk about?')]);
    const prepared = await manager.prepare('s');
    expect(prepared.messages).toHaveLength(1);
    expect(textOf(prepared.messages[0] ?? { parts: [] })).toBe('What did we talk about?');
    expect(allText(prepared.messages)).not.toContain(textOf({ parts: inputs[0]?.parts ?? [] }));
  });

  it('"Content that was already written to long-term memory can still be retrieved via memory search."', async () => {
    const manager = seedManager(COWAGENT);
    const twentyOne = firstTurns(concatCorpus(TAU_30_TURNS), 21);
    await manager.append('s', twentyOne);
    await manager.prepare('s');
    await vi.waitFor(async () => expect(await manager.memory.search('s', 'trimmed turns')).toHaveLength(1));
    const trimmedRequest = textOf({ parts: twentyOne[0]?.parts ?? [] }).slice(0, 40);
    const lastRequest = textOf({
      parts: twentyOne.findLast((input) => input.role === 'user')?.parts ?? [],
    }).slice(0, 40);
    await manager.clear('s');
    expect((await manager.stats('s')).messages.view).toBe(0);
    // Trimmed earlier, and what was still in context when it was cleared: both are found.
    expect((await manager.memory.search('s', trimmedRequest)).map((note) => note.title)).toContain(
      'Trimmed turns',
    );
    expect((await manager.memory.search('s', lastRequest)).map((note) => note.title)).toContain(
      'Cleared context',
    );
  });
});

describe('cowagent: on disk, with the embedded stores', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ctxkit-000-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('"Trimmed messages are summarized by LLM and written to the daily memory file"', async () => {
    const stores = await openEmbeddedStores({ dataDir });
    try {
      const clock = seedClock();
      const manager = seedManager(COWAGENT, { ...stores, clock });
      const twentyOne = firstTurns(concatCorpus(TAU_30_TURNS), COWAGENT_MAX_CONTEXT_TURNS + 1);
      await manager.append('s', twentyOne);
      await manager.prepare('s');
      // The summary is written in the background ("takes effect from the next turn onward").
      const day = new Date(clock()).toISOString().slice(0, 10);
      const file = join(dataDir, 'memory', `${day}.md`);
      let daily = '';
      for (let tries = 0; tries < 200 && !daily.includes('Trimmed turns'); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        daily = await readFile(file, 'utf8').catch(() => '');
      }
      expect(daily).toContain('Trimmed turns');
      // What the first trimmed turn asked for is in the file.
      expect(daily).toContain(textOf({ parts: twentyOne[0]?.parts ?? [] }).slice(0, 40));
    } finally {
      await stores.close();
    }
  });

  it('"Conversation messages are persisted to a local database, automatically restored after service restart": "Restores the most recent max(3, max_context_turns / 6) turns", "Only retains each turn\'s user text and Agent final reply"', async () => {
    const inputs = corpusInputs(TAU_TOOLS);
    const first = await openEmbeddedStores({ dataDir });
    await seedManager(COWAGENT, first).append('s', inputs);
    await first.close();

    // A new process: new stores over the same SQLite file, a new manager.
    const second = await openEmbeddedStores({ dataDir });
    try {
      const manager = seedManager(COWAGENT, second);
      expect((await manager.history('s')).log).toHaveLength(inputs.length);
      const prepared = await manager.prepare('s');
      const users = prepared.messages.filter(
        (message) => message.role === 'user' && message.meta.kind === undefined,
      );
      expect(users).toHaveLength(Math.max(3, Math.floor(COWAGENT.trim.maxTurns / 6)));
      expect(prepared.messages.every((message) => message.parts.every((part) => part.type === 'text'))).toBe(
        true,
      );
    } finally {
      await second.close();
    }
  });

  it('"Sessions older than 30 days are automatically cleaned up" (startRetention: on start, then daily)', async () => {
    expect(COWAGENT.retention.maxIdleDays).toBe(30);
    const stores = await openEmbeddedStores({ dataDir });
    try {
      const start = Date.UTC(2025, 0, 31);
      let now = start - 31 * DAY_MS;
      const manager = seedManager(COWAGENT, { ...stores, clock: () => now });
      await manager.append('old', [user('a month ago')]);
      now = start - 29 * DAY_MS;
      await manager.append('recent', [user('last month')]);
      now = start;
      const schedule = manager.startRetention();
      const first = await schedule.first;
      await schedule.stop();
      expect(first.ok && first.report.removed.map((entry) => entry.sessionId)).toEqual(['old']);
      expect((await stores.store.list()).map((listing) => listing.id)).toEqual(['recent']);
      // The manager forgot it too: used again, the session starts afresh.
      await manager.append('old', [user('back again')]);
      expect((await manager.history('old')).log.map((message) => textOf(message))).toEqual(['back again']);
    } finally {
      await stores.close();
    }
  });
});
