import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, callsTo, numbered, result, user } from '../../testing/build-messages.ts';
import { repairableLogs } from '../../testing/log-arbitraries.ts';
import type { Edit, Summary } from '../edit.ts';
import type { Message } from '../message.ts';
import { textOf, toolResultOf } from '../message.ts';
import { pairToolCalls } from '../turns/pair-tool-calls.ts';
import { WorkSlices } from '../work-slices.ts';
import { CLEARED_ARGS, projectView, projectViewInSlices } from './project-view.ts';
import { findPairingViolations, INTERRUPTED_RESULT_TEXT } from './tool-pairing-repair.ts';

const base = { at: 0, tokensBefore: 0, tokensAfter: 0 };
const image = { type: 'media' as const, mediaType: 'image/png', ref: 'blob:img' };
const summary = (throughSeq: number): Summary => ({
  text: 'summary',
  sections: {},
  throughSeq,
  tokens: 2,
  producer: 'extractive',
});

const log = numbered([
  user('read both files'), // 0
  callsTo(['a', 'read', '{"path":"a.ts"}'], ['b', 'read', '{"path":"b.ts"}']), // 1
  result('a', 'A'.repeat(100), { name: 'read' }), // 2
  result('b', 'B', { name: 'read', media: [image] }), // 3
  assistant('both read'), // 4
  user('now test'), // 5
  callsTo(['c', 'bash', '{"cmd":"npm test"}']), // 6
  result('c', 'FAIL x.test.ts', { name: 'bash', isError: true }), // 7
  assistant('tests fail'), // 8
]);

const seqs = (messages: { sourceSeq: number | undefined }[]) => messages.map((entry) => entry.sourceSeq);

describe('projectView', () => {
  it('shows the log as is when there are no edits', () => {
    const view = projectView(log, []);
    expect(view.entries.map((entry) => entry.message)).toEqual(log);
    expect(view.coverage.size).toBe(0);
    expect(view.summary).toBeUndefined();
  });

  it('cuts the prefix at a summarize edit and carries its summary apart', () => {
    const edit: Edit = {
      ...base,
      id: 'e1',
      type: 'summarize',
      layer: 'summarize',
      reason: 'context_pressure',
      throughSeq: 4,
      summary: summary(4),
      placement: 'own-message',
    };
    const view = projectView(log, [edit]);
    expect(seqs(view.entries)).toEqual([5, 6, 7, 8]);
    expect(view.summary?.throughSeq).toBe(4);
    expect(view.placement).toBe('own-message');
    expect([...view.coverage.keys()]).toEqual([0, 1, 2, 3, 4]);
  });

  it('keeps the summary under a later drop, and loses it on a reset', () => {
    const summarize: Edit = {
      ...base,
      id: 's',
      type: 'summarize',
      layer: 'summarize',
      reason: 'context_pressure',
      throughSeq: 0,
      summary: summary(0),
      placement: 'system-message',
    };
    const drop: Edit = {
      ...base,
      id: 'd',
      type: 'drop',
      layer: 'drop',
      reason: 'hook',
      throughSeq: 4,
      reminder: 'goal',
    };
    const dropped = projectView(log, [summarize, drop]);
    expect(dropped.summary?.throughSeq).toBe(0);
    expect(dropped.reminder).toBe('goal');
    expect(seqs(dropped.entries)).toEqual([5, 6, 7, 8]);
    const reset: Edit = {
      ...base,
      id: 'r',
      type: 'reset',
      layer: 'emergency',
      reason: 'context_overflow',
      throughSeq: 4,
      keepSummary: false,
    };
    expect(projectView(log, [summarize, reset]).summary).toBeUndefined();
  });

  it('replaces a result’s content and records which edit did it', () => {
    const edit: Edit = {
      ...base,
      id: 't',
      type: 'truncate-result',
      layer: 'truncate-old',
      reason: 'old_result_limit',
      target: 2,
      content: 'AAA…[truncated]',
      originalChars: 100,
    };
    const view = projectView(log, [edit]);
    const shown = view.entries[2]?.message;
    if (!shown) throw new Error('the result is not in view');
    expect(toolResultOf(shown)?.content).toBe('AAA…[truncated]');
    expect(view.coverage.get(2)).toEqual({ by: 'edit', editId: 't', type: 'truncate-result' });
    expect(log[2]?.parts[0]).toMatchObject({ content: 'A'.repeat(100) });
  });

  it('clears results to a placeholder, drops their media, and can blank the calls’ inputs', () => {
    const edit: Edit = {
      ...base,
      id: 'c',
      type: 'clear',
      layer: 'clear',
      reason: 'context_pressure',
      targets: [2, 3],
      placeholder: '[cleared]',
      clearInputs: true,
    };
    const view = projectView(log, [edit]);
    const cleared = view.entries.filter((entry) => entry.sourceSeq === 2 || entry.sourceSeq === 3);
    for (const entry of cleared) {
      expect(toolResultOf(entry.message)).toMatchObject({ content: '[cleared]' });
      expect(toolResultOf(entry.message)?.media).toBeUndefined();
    }
    const call = view.entries.find((entry) => entry.sourceSeq === 1)?.message;
    expect(call?.parts.map((part) => (part.type === 'tool-call' ? part.args : ''))).toEqual([
      CLEARED_ARGS,
      CLEARED_ARGS,
    ]);
  });

  it('archives results with their calls and shows one digest after the anchor', () => {
    const edit: Edit = {
      ...base,
      id: 'ar',
      type: 'archive',
      layer: 'archive',
      reason: 'tool_call_cutoff',
      targets: [2],
      digest: '[tool digest] read a.ts',
      digestAfterSeq: 8,
    };
    const view = projectView(log, [edit]);
    const call = view.entries.find((entry) => entry.sourceSeq === 1)?.message;
    expect(call?.parts.map((part) => (part.type === 'tool-call' ? part.callId : part.type))).toEqual(['b']);
    expect(seqs(view.entries)).toEqual([0, 1, 3, 4, 5, 6, 7, 8, undefined]);
    expect(view.entries.at(-1)?.message).toMatchObject({
      role: 'user',
      meta: { kind: 'tool_summary', userVisible: false },
    });
    expect(pairToolCalls(view.entries.map((entry) => entry.message)).unansweredCalls).toEqual([]);
  });

  it('compresses each turn to its first user text and final reply', () => {
    const edit: Edit = {
      ...base,
      id: 'ct',
      type: 'compress-text',
      layer: 'compress-text',
      reason: 'token_budget',
      fromSeq: 0,
      throughSeq: 8,
    };
    const view = projectView(log, [edit]);
    expect(view.entries.map((entry) => `${entry.message.role}:${textOf(entry.message)}`)).toEqual([
      'user:read both files',
      'assistant:both read',
      'user:now test',
      'assistant:tests fail',
    ]);
    expect([...view.coverage.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 6, 7]);
  });

  it('hides the messages a hide edit names, wherever they are, and records which edit did it', () => {
    const edit: Edit = {
      ...base,
      id: 'hi',
      type: 'hide',
      layer: 'emergency',
      reason: 'context_overflow',
      targets: [6, 7, 8],
    };
    const view = projectView(log, [edit]);
    expect(seqs(view.entries)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const seq of [6, 7, 8]) {
      expect(view.coverage.get(seq)).toEqual({ by: 'edit', editId: 'hi', type: 'hide' });
    }
    expect(view.cut).toBeUndefined();
    // Hiding only a result takes its call with it; the other call of the message stays.
    const result = projectView(log, [{ ...edit, targets: [2] }]);
    const call = result.entries.find((entry) => entry.sourceSeq === 1)?.message;
    expect(call?.parts.map((part) => (part.type === 'tool-call' ? part.callId : part.type))).toEqual(['b']);
    expect(findPairingViolations(result.entries.map((entry) => entry.message))).toEqual([]);
  });

  it('answers an interrupted call with a stand-in result and leaves out a result with no call', () => {
    const broken = numbered([
      user('go'),
      callsTo(['x', 'bash'], ['y', 'bash']),
      result('x', 'done'),
      user('stop that'),
      result('ghost', 'late'),
      assistant('ok'),
    ]);
    const view = projectView(broken, []);
    const messages = view.entries.map((entry) => entry.message);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'tool',
      'user',
      'assistant',
    ]);
    const standIn = messages[3];
    if (!standIn) throw new Error('no stand-in');
    expect(toolResultOf(standIn)).toMatchObject({
      callId: 'y',
      content: INTERRUPTED_RESULT_TEXT,
      isError: true,
    });
    expect(view.coverage.get(4)).toEqual({ by: 'orphan-result' });
  });

  it('never shows a message hidden from the agent', () => {
    const hidden = numbered([user('a'), assistant('secret', { agentVisible: false }), assistant('b')]);
    const view = projectView(hidden, []);
    expect(seqs(view.entries)).toEqual([0, 2]);
    expect(view.coverage.get(1)).toEqual({ by: 'hidden' });
  });
});

function randomEdits(log: Message[], picks: number[]): Edit[] {
  const results = log.filter((message) => message.role === 'tool').map((message) => message.seq);
  const users = log.filter((message) => message.role === 'user').map((message) => message.seq);
  const edits: Edit[] = [];
  picks.forEach((pick, i) => {
    const common = { ...base, id: `e${i}` };
    const target = results[pick % Math.max(1, results.length)];
    switch (pick % 5) {
      case 0:
        if (target !== undefined)
          edits.push({
            ...common,
            type: 'archive',
            layer: 'archive',
            reason: 'tool_call_cutoff',
            targets: [target],
            digest: 'd',
            digestAfterSeq: log.length - 1,
          });
        break;
      case 1:
        if (target !== undefined)
          edits.push({
            ...common,
            type: 'clear',
            layer: 'clear',
            reason: 'context_pressure',
            targets: [target],
            placeholder: '[cleared]',
            clearInputs: pick % 2 === 0,
          });
        break;
      case 2: {
        const boundary = users[pick % users.length];
        if (boundary !== undefined && boundary > 0)
          edits.push({
            ...common,
            type: 'drop',
            layer: 'drop',
            reason: 'hook',
            throughSeq: boundary - 1,
            reminder: 'r',
          });
        break;
      }
      case 3:
        edits.push({
          ...common,
          type: 'compress-text',
          layer: 'compress-text',
          reason: 'token_budget',
          fromSeq: 0,
          throughSeq: pick % log.length,
        });
        break;
      default:
        if (target !== undefined)
          edits.push({
            ...common,
            type: 'truncate-result',
            layer: 'truncate-old',
            reason: 'old_result_limit',
            target,
            content: 'cut',
            originalChars: 9,
          });
    }
  });
  return edits;
}

describe('projectView properties', () => {
  it('never separates a call from its result, and explains every log message not shown as logged', () => {
    fc.assert(
      fc.property(repairableLogs, fc.array(fc.nat(), { maxLength: 6 }), (history, picks) => {
        const view = projectView(history, randomEdits(history, picks));
        const messages = view.entries.map((entry) => entry.message);
        expect(findPairingViolations(messages)).toEqual([]);
        for (const message of history) {
          const shown = view.entries.find((entry) => entry.sourceSeq === message.seq);
          const verbatim = shown !== undefined && shown.message === message;
          expect(verbatim || view.coverage.has(message.seq)).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('hide edits over any messages: pairing holds and every hidden message is explained', () => {
    fc.assert(
      fc.property(
        repairableLogs,
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.array(fc.nat()),
        (history, picks, hide) => {
          const targets = [...new Set(hide.map((pick) => pick % history.length))];
          const edits: Edit[] = [
            ...randomEdits(history, picks),
            { ...base, id: 'hi', type: 'hide', layer: 'emergency', reason: 'context_overflow', targets },
          ];
          const view = projectView(history, edits);
          expect(findPairingViolations(view.entries.map((entry) => entry.message))).toEqual([]);
          for (const seq of targets) {
            expect(view.entries.some((entry) => entry.sourceSeq === seq)).toBe(false);
            expect(view.coverage.has(seq)).toBe(true);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('projectView text edits', () => {
  it('replaces all text parts of a message with the clipped text, other parts kept', () => {
    const history = numbered([
      {
        role: 'user',
        parts: [{ type: 'text', text: 'x'.repeat(50) }, image, { type: 'text', text: 'more' }],
        meta: {},
      },
      assistant('ok'),
    ]);
    const edit: Edit = {
      ...base,
      id: 'tt',
      type: 'truncate-text',
      layer: 'emergency',
      reason: 'context_overflow',
      target: 0,
      text: 'xxx…',
      originalChars: 54,
    };
    const view = projectView(history, [edit]);
    expect(view.entries[0]?.message.parts).toEqual([{ type: 'text', text: 'xxx…' }, image]);
    expect(view.coverage.get(0)).toEqual({ by: 'edit', editId: 'tt', type: 'truncate-text' });
  });
});

describe('projectView identity and open calls', () => {
  it('gives a changed message an id of its own, so per-id caches never serve stale figures', () => {
    const edit: Edit = {
      ...base,
      id: 'cut1',
      type: 'truncate-result',
      layer: 'truncate-old',
      reason: 'old_result_limit',
      target: 2,
      content: 'short',
      originalChars: 100,
    };
    const view = projectView(log, [edit]);
    expect(view.entries[2]?.message.id).toBe(`${log[2]?.id}~cut1`);
    expect(view.entries[3]?.message.id).toBe(log[3]?.id);
  });

  it('can leave calls at the end open and hand over the pairing state', () => {
    const open = numbered([user('go'), callsTo(['z', 'bash'])]);
    const view = projectView(open, [], { leaveCallsOpen: true });
    expect(view.entries).toHaveLength(2);
    expect(view.pairing.pending().map((message) => toolResultOf(message)?.callId)).toEqual(['z']);
    expect(projectView(open, []).entries).toHaveLength(3);
  });
});

describe('projectViewInSlices', () => {
  it('projects what projectView projects, a pause every thousand messages', async () => {
    const log = numbered(
      Array.from({ length: 5_000 }, (_, index) =>
        index % 2 === 0 ? user(`u${index}`) : assistant(`a${index}`),
      ),
    );
    const edits: Edit[] = [
      {
        id: 'cut',
        at: 1,
        type: 'drop',
        layer: 'trim',
        reason: 'context_pressure',
        throughSeq: 2_999,
        tokensBefore: 100,
        tokensAfter: 50,
      },
    ];
    let now = 0;
    const sliced = await projectViewInSlices(
      log,
      edits,
      { leaveCallsOpen: true },
      new WorkSlices(1, () => now++),
    );
    expect(sliced).toEqual(projectView(log, edits, { leaveCallsOpen: true }));
    // The clock was looked at between steps: the projection paused.
    expect(now).toBeGreaterThan(5);
  });
});
