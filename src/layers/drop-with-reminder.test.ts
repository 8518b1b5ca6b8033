import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edit, SummarizeEdit } from '../core/edit.ts';
import { textOf } from '../core/message.ts';
import { projectView } from '../core/view/project-view.ts';
import { assistant, callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { runeLength } from './clip-text.ts';
import {
  buildContextReminder,
  CONTEXT_REMINDER_PREFIX,
  DEFAULT_REMINDER_MAX_CHARS,
  emergencyKeepRecent,
  planDrop,
} from './drop-with-reminder.ts';
import { planRecentSplit } from './split-recent.ts';
import { expectCleanCut } from './testing/expect-clean-cut.ts';
import { layerInputFor, messagesOf, TEST_NOW, violationsAfter } from './testing/layer-input-for.ts';
import { sessionArbitrary } from './testing/random-session.ts';
import { CORPUS, readCorpusSession } from './testing/read-corpus.ts';

const log = numbered([
  user('Migrate the billing service to the new payments API'), // 0
  callsTo(['a', 'read_file', '{"path":"src/billing.ts"}']), // 1
  result('a', 'export function charge() {}', { name: 'read_file' }), // 2
  assistant('Read the billing module.'), // 3
  user('Also keep the old endpoint working'), // 4
  callsTo(['b', 'bash', '{"command":"npm test"}'], ['c', 'grep', '{"pattern":"legacyCharge"}']), // 5
  result('c', 'src/legacy.ts:3', { name: 'grep' }), // 6
  result('b', 'running 12 tests\nFAIL billing.test.ts: expected 200, got 500', {
    name: 'bash',
    isError: true,
  }), // 7
  assistant('The billing test fails with a 500.'), // 8
  user('Fix it'), // 9
  callsTo(['d', 'edit_file', '{"path":"src/billing.ts"}']), // 10
  result('d', 'ok', { name: 'edit_file' }), // 11
  assistant('Fixed.'), // 12
]);

describe('planDrop (digitorn truncate strategy)', () => {
  it('"Drop everything before the split. Inject a single system message recapping the goal + recent activity"', () => {
    const input = layerInputFor(log);
    const edit = planDrop(input, { keepRecentMessages: 4 });
    expect(edit).toMatchObject({
      type: 'drop',
      throughSeq: 8,
      layer: 'drop',
      reason: 'context_pressure',
      at: TEST_NOW,
      tokensBefore: input.regions.history,
    });
    expect(edit?.tokensAfter).toBeLessThan(input.regions.history);
    const reminder = edit?.reminder ?? '';
    expect(reminder.split('\n')).toEqual([
      `${CONTEXT_REMINDER_PREFIX} 9 earlier messages were dropped to keep the conversation within the context window.`,
      'Goal: Migrate the billing service to the new payments API',
      'Recent requests:',
      '- Also keep the old endpoint working',
      'Recent tool calls:',
      '- read_file(src/billing.ts)',
      '- grep(legacyCharge)',
      '- bash(npm test) → error',
      'Last error: bash(npm test): error: FAIL billing.test.ts: expected 200, got 500',
      'Last reply: The billing test fails with a 500.',
    ]);
    const view = projectView(log, edit ? [edit] : []);
    expect(view.reminder).toBe(reminder);
    expect(messagesOf(view).map(textOf)[0]).toBe('Fix it');
    expect(violationsAfter(log, edit ? [edit] : [])).toEqual([]);
  });

  it('takes the goal from the previous summary’s intent, else from the previous reminder', () => {
    const summarize: SummarizeEdit = {
      id: 's',
      at: 0,
      layer: 'summarize',
      reason: 'context_pressure',
      tokensBefore: 0,
      tokensAfter: 0,
      type: 'summarize',
      throughSeq: 3,
      placement: 'own-message',
      summary: {
        text: 'summary',
        sections: { intent: ['Move billing to payments v2'] },
        throughSeq: 3,
        tokens: 5,
        producer: 'extractive',
      },
    };
    const fromSummary = planDrop(layerInputFor(log, [summarize]), { keepRecentMessages: 4 });
    expect(fromSummary?.reminder).toMatch(/^Goal: Move billing to payments v2$/m);

    const first = planDrop(layerInputFor(log), { keepRecentTurns: 2 });
    expect(first?.reminder).toMatch(/^Goal: Migrate the billing service/m);
    const edits: Edit[] = first ? [first] : [];
    const second = planDrop(layerInputFor(log, edits), { keepRecentTurns: 1 });
    // The dropped part now starts at "Also keep…", but the goal carries over from the first reminder.
    expect(second?.reminder).toMatch(/^Goal: Migrate the billing service/m);
  });

  it('"Halves keep_recent (minimum 4)" for the emergency truncate', () => {
    expect(emergencyKeepRecent(10)).toBe(5);
    expect(emergencyKeepRecent(6)).toBe(4);
    expect(emergencyKeepRecent(3)).toBe(4);
  });

  it('keeps the reminder within maxChars and takes the caller’s reason and layer', () => {
    const long = numbered([
      user(`goal ${'g'.repeat(5_000)}`),
      ...Array.from({ length: 10 }, (_, n) => [
        user(`request ${n} ${'q'.repeat(900)}`),
        assistant('ok'),
      ]).flat(),
    ]);
    const edit = planDrop(
      layerInputFor(long),
      { keepRecentTurns: 1, reason: 'context_overflow', layer: 'emergency' },
      { maxChars: 600 },
    );
    expect(runeLength(edit?.reminder ?? '')).toBeLessThanOrEqual(600);
    expect(edit).toMatchObject({ reason: 'context_overflow', layer: 'emergency' });
    expect(edit?.reminder).toMatch(/^Goal: goal g+…$/m);
  });

  it('cannot drop a single turn; builds a reminder with no user request at all', () => {
    const single = numbered([user('go'), callsTo(['a', 'bash']), result('a', 'x'), assistant('done')]);
    expect(planDrop(layerInputFor(single), { keepRecentMessages: 1 })).toBeUndefined();
    const headless = numbered([callsTo(['a', 'bash']), result('a', 'x'), assistant('resumed')]);
    expect(buildContextReminder(headless, [], undefined).split('\n')).toEqual([
      `${CONTEXT_REMINDER_PREFIX} 3 earlier messages were dropped to keep the conversation within the context window.`,
      'Recent tool calls:',
      '- bash',
      'Last reply: resumed',
    ]);
  });

  it('property: a drop is a clean cut and its reminder stays within its size', () => {
    fc.assert(
      fc.property(sessionArbitrary, fc.integer({ min: 1, max: 20 }), ({ log: session, edits }, keep) => {
        const input = layerInputFor(session, edits);
        const edit = planDrop(input, { keepRecentMessages: keep });
        const split = planRecentSplit(input, { keepRecentMessages: keep });
        expect(edit?.throughSeq).toBe(split?.throughSeq);
        if (!edit || !split) return;
        expectCleanCut(session, edits, split);
        expect(runeLength(edit.reminder ?? '')).toBeLessThanOrEqual(DEFAULT_REMINDER_MAX_CHARS);
        expect(edit.reminder).toMatch(/^Goal: request \d+/m);
      }),
      { numRuns: 300 },
    );
  });

  it('drops a real tau-bench dialogue to 10 messages with a reminder', () => {
    const session = readCorpusSession(CORPUS.tauBench);
    const input = layerInputFor(session);
    const edit = planDrop(input, { keepRecentMessages: 10 });
    expect(edit?.reminder).toMatch(/^Goal: /m);
    expect(edit?.reminder).toMatch(/^Recent tool calls:/m);
    const firstRequest = session.find((message) => message.role === 'user');
    expect(edit?.reminder).toContain(firstRequest ? textOf(firstRequest).slice(0, 40) : 'Goal: ');
    expect(violationsAfter(session, edit ? [edit] : [])).toEqual([]);
  });
});
