import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edit } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import { textOf } from '../core/message.ts';
import { splitTurns } from '../core/turns/parse-turn-boundaries.ts';
import { projectView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { planTokenBudgetTrim } from './compress-text.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { layerInputFor, messagesOf, repairsIn, violationsAfter } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:shot' };

/** `count` turns, each: request, a thought with a call, a parallel pair, a final reply. */
function turns(count: number): Message[] {
  const drafts: Parameters<typeof numbered>[0] = [];
  for (let t = 0; t < count; t++) {
    drafts.push(
      user(`request ${t}`),
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: `thinking ${t}` },
          { type: 'tool-call', callId: `a${t}`, name: 'read_file', args: '{}' },
        ],
        meta: {},
      },
      result(`a${t}`, `file ${t} ${'f'.repeat(400)}`),
      callsTo([`b${t}`, 'bash'], [`c${t}`, 'grep']),
      result(`b${t}`, 'make out'),
      result(`c${t}`, 'grep out', { media: [image] }),
      assistant(`reply ${t}`),
    );
  }
  return numbered(drafts);
}

const texts = (messages: readonly Message[]) =>
  messages.map((message) => `${message.role}:${textOf(message)}`);

describe('planTokenBudgetTrim (cowagent stage 3)', () => {
  it('"Fewer than 5 turns: All turns undergo text compression — each turn keeps only the first user text and last Agent reply, removing intermediate tool call chains"', () => {
    const log = turns(3);
    const input = layerInputFor(log);
    const plan = planTokenBudgetTrim(input, { includeCurrentTurn: true });
    expect(plan?.kind).toBe('compress');
    if (plan?.kind !== 'compress') return;
    expect(plan.edit).toMatchObject({
      type: 'compress-text',
      fromSeq: 0,
      throughSeq: 20,
      layer: 'compress-text',
      reason: 'token_budget',
      tokensBefore: input.regions.history,
    });
    const view = messagesOf(projectView(log, [plan.edit]));
    expect(texts(view)).toEqual([
      'user:request 0',
      'assistant:reply 0',
      'user:request 1',
      'assistant:reply 1',
      'user:request 2',
      'assistant:reply 2',
    ]);
    expect(violationsAfter(log, [plan.edit])).toEqual([]);
    // The estimate is what the compressed view costs.
    expect(layerInputFor(log, [plan.edit]).regions.history).toBe(plan.edit.tokensAfter);
  });

  it('compresses every finished turn, the last one included: 4 turns give 8 alternating text messages', () => {
    const log = turns(4);
    const plan = planTokenBudgetTrim(layerInputFor(log));
    if (plan?.kind !== 'compress') throw new Error('expected a compression');
    expect(plan.edit).toMatchObject({ fromSeq: 0, throughSeq: log.length - 1 });
    const view = messagesOf(projectView(log, [plan.edit]));
    expect(view.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    expect(view.every((message) => message.parts.every((part) => part.type === 'text'))).toBe(true);
    expect(texts(view).at(-1)).toBe('assistant:reply 3');
  });

  it('leaves a turn in progress alone by default: the request just arrived, or a call waits for its result', () => {
    const finished = turns(3);
    // Mid-chain: the reply has not come; the last call's result has.
    const midChain = finished.slice(0, -1);
    const plan = planTokenBudgetTrim(layerInputFor(midChain));
    if (plan?.kind !== 'compress') throw new Error('expected a compression');
    expect(plan.edit.throughSeq).toBe(13);
    expect(messagesOf(projectView(midChain, [plan.edit])).slice(4)).toEqual(midChain.slice(14));
    // A call still waiting: the assistant's last message calls a tool.
    const waiting = finished.slice(0, -3);
    const waitingPlan = planTokenBudgetTrim(layerInputFor(waiting));
    expect(waitingPlan?.kind === 'compress' && waitingPlan.edit.throughSeq).toBe(13);
    // A new request: its turn has nothing to compress and its media stays.
    const asked = numbered([
      ...finished,
      { role: 'user', parts: [{ type: 'text', text: 'and this?' }, image], meta: {} },
    ]);
    const askedPlan = planTokenBudgetTrim(layerInputFor(asked));
    if (askedPlan?.kind !== 'compress') throw new Error('expected a compression');
    expect(askedPlan.edit.throughSeq).toBe(20);
    expect(messagesOf(projectView(asked, [askedPlan.edit])).at(-1)).toEqual(asked.at(-1));
    // Asked for, the turn in progress goes too.
    const all = planTokenBudgetTrim(layerInputFor(midChain), { includeCurrentTurn: true });
    expect(all?.kind === 'compress' && all.edit.throughSeq).toBe(midChain.length - 1);
  });

  it('"5 or more turns: The first half of turns is trimmed again"', () => {
    const log = turns(5);
    const plan = planTokenBudgetTrim(layerInputFor(log));
    expect(plan?.kind).toBe('trim-half');
    if (plan?.kind !== 'trim-half') return;
    expect(plan).toMatchObject({
      turnsBefore: 5,
      turnsRemoved: 2,
      turnsAfter: 3,
      cutIndex: 14,
      throughSeq: 13,
    });
    expect(plan.trimmed).toEqual(log.slice(0, 14));
    expectCleanCut(log, [], plan);
    expect(planTokenBudgetTrim(layerInputFor(log), { belowTurns: 6 })?.kind).toBe('compress');
  });

  it('keeps the first user text of a message with media, and the text of a final reply that also calls a tool', () => {
    const log = numbered([
      { role: 'user', parts: [{ type: 'text', text: 'what is this?' }, image], meta: {} },
      callsTo(['a', 'ocr']),
      result('a', 'text in image'),
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'It says hello.' },
          { type: 'tool-call', callId: 'b', name: 'log', args: '{}' },
        ],
        meta: {},
      },
      result('b', 'logged'),
      user('thanks'),
    ]);
    const plan = planTokenBudgetTrim(layerInputFor(log));
    if (plan?.kind !== 'compress') throw new Error('expected a compression');
    const view = messagesOf(projectView(log, [plan.edit]));
    expect(view.map((message) => message.parts.map((part) => part.type))).toEqual([
      ['text'],
      ['text'],
      ['text'],
    ]);
    expect(texts(view)).toEqual(['user:what is this?', 'assistant:It says hello.', 'user:thanks']);
    expect(violationsAfter(log, [plan.edit])).toEqual([]);
  });

  it('returns undefined when there is nothing to compress: a single turn in progress, or turns already text only', () => {
    expect(planTokenBudgetTrim(layerInputFor(turns(1).slice(0, -1)))).toBeUndefined();
    expect(planTokenBudgetTrim(layerInputFor(turns(1)))?.kind).toBe('compress');
    const log = turns(3);
    const first = planTokenBudgetTrim(layerInputFor(log), { includeCurrentTurn: true });
    const edits: Edit[] = first?.kind === 'compress' ? [first.edit] : [];
    expect(planTokenBudgetTrim(layerInputFor(log, edits), { includeCurrentTurn: true })).toBeUndefined();
    const chat = numbered([user('a'), assistant('b'), user('c'), assistant('d')]);
    expect(planTokenBudgetTrim(layerInputFor(chat), { includeCurrentTurn: true })).toBeUndefined();
  });

  it('property: compression leaves at most a user text and a reply per compressed turn; trimming cuts cleanly', () => {
    fc.assert(
      fc.property(
        sessionArbitrary,
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        ({ log, edits }, belowTurns, includeCurrentTurn) => {
          const input = layerInputFor(log, edits);
          const plan = planTokenBudgetTrim(input, { belowTurns, includeCurrentTurn });
          if (!plan) return;
          if (plan.kind === 'trim-half') {
            expectCleanCut(log, edits, plan);
            return;
          }
          const after = projectView(log, [...edits, plan.edit]);
          const messages = messagesOf(after);
          expect(violationsAfter(log, [...edits, plan.edit])).toEqual([]);
          expect(repairsIn(after).orphaned).toBeLessThanOrEqual(repairsIn(input.view).orphaned);
          const inRange = after.entries.filter(
            (entry) => entry.sourceSeq !== undefined && entry.sourceSeq <= plan.edit.throughSeq,
          );
          for (const turn of splitTurns(inRange.map((entry) => entry.message))) {
            expect(turn.end - turn.start).toBeLessThanOrEqual(2);
          }
          for (const entry of inRange)
            expect(entry.message.parts.every((part) => part.type === 'text')).toBe(true);
          const untouched = input.view.entries.filter(
            (entry) => entry.sourceSeq !== undefined && entry.sourceSeq > plan.edit.throughSeq,
          );
          for (const entry of untouched) expect(messages).toContainEqual(entry.message);
          expect(plan.edit.tokensAfter).toBeLessThan(input.regions.history);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('trims, then compresses, a real tau-bench dialogue', () => {
    const log = readCorpusSession(CORPUS.tauBench);
    const trim = planTokenBudgetTrim(layerInputFor(log));
    expect(trim?.kind).toBe('trim-half');
    if (trim?.kind === 'trim-half') expectCleanCut(log, [], trim);
    const compress = planTokenBudgetTrim(layerInputFor(log), { belowTurns: 20 });
    if (compress?.kind !== 'compress') throw new Error('expected a compression');
    expect(compress.edit.tokensAfter).toBeLessThan(compress.edit.tokensBefore);
    expect(violationsAfter(log, [compress.edit])).toEqual([]);
  });
});
