import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assistant, callsTo, numbered, result, user } from '../../testing/build-messages.ts';
import { repairableLogs } from '../../testing/log-arbitraries.ts';
import type { DropEdit, Edit, SummarizeEdit } from '../edit.ts';
import type { Message } from '../message.ts';
import { projectView, type View } from './project-view.ts';
import { viewAfterCut } from './view-after-cut.ts';

const base = { at: 0, tokensBefore: 0, tokensAfter: 0 };

/** Content edits of single messages and prefix cuts anywhere: the edits a view may be cut under. */
function editsFor(log: readonly Message[], picks: readonly number[]): Edit[] {
  const results = log.filter((message) => message.role === 'tool').map((message) => message.seq);
  return picks.flatMap((pick, i): Edit[] => {
    const common = { ...base, id: `e${i}` };
    const target = results[pick % Math.max(1, results.length)];
    switch (pick % 4) {
      case 0:
        return target === undefined
          ? []
          : [
              {
                ...common,
                type: 'evict',
                layer: 'clear',
                reason: 'context_pressure',
                target,
                content: 'p',
                blobRef: 'b',
                sha256: 's',
                bytes: 1,
              },
            ];
      case 1:
        return target === undefined
          ? []
          : [
              {
                ...common,
                type: 'clear',
                layer: 'clear',
                reason: 'context_pressure',
                targets: [target],
                placeholder: '[cleared]',
                clearInputs: false,
              },
            ];
      default:
        return [cut(`e${i}`, pick % 2 === 0 ? 'summarize' : 'drop', pick % log.length)];
    }
  });
}

function cut(id: string, type: 'summarize' | 'drop', throughSeq: number): SummarizeEdit | DropEdit {
  const common = { ...base, id, throughSeq };
  return type === 'summarize'
    ? {
        ...common,
        type,
        layer: 'summarize',
        reason: 'token_budget',
        placement: 'own-message',
        summary: { text: `s${id}`, sections: {}, throughSeq, tokens: 1, producer: 'extractive' },
      }
    : { ...common, type, layer: 'drop', reason: 'token_budget', reminder: `r${id}` };
}

/** Everything a view holds, in a form `toEqual` compares. */
const plain = (view: View) => ({
  entries: view.entries,
  summary: view.summary,
  placement: view.placement,
  reminder: view.reminder,
  cut: view.cut,
  coverage: [...view.coverage].sort((a, b) => a[0] - b[0]),
  pending: view.pairing.pending(),
});

describe('viewAfterCut', () => {
  it('is the projection of the log under every edit, when it gives one', () => {
    let given = 0;
    fc.assert(
      fc.property(
        repairableLogs,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.nat(),
        fc.boolean(),
        (log, picks, at, summarized) => {
          const edits = editsFor(log, picks);
          const next = cut('next', summarized ? 'summarize' : 'drop', at % log.length);
          const before = projectView(log, edits, { leaveCallsOpen: true });
          const after = viewAfterCut(before, next, log);
          if (!after) return;
          given++;
          const projected = projectView(log, [...edits, next], { leaveCallsOpen: true });
          expect(plain(after.view)).toEqual(plain(projected));
          expect(after.dropped).toBe(before.entries.length - projected.entries.length);
          // The view's owner may have its own coverage map updated instead of copied.
          const owned = new Map(before.coverage);
          const inPlace = viewAfterCut(before, next, log, owned);
          expect(inPlace?.view.coverage).toBe(owned);
          expect(plain(inPlace?.view as View)).toEqual(plain(projected));
        },
      ),
      { numRuns: 3_000 },
    );
    // A third of the random cuts are older than the view's or split a call from its result; the rest
    // are answered without the projection: the property is not met by refusing.
    expect(given).toBeGreaterThan(900);
  });

  it('refuses a cut older than the view’s, and one that would leave a result without its call', () => {
    const log = numbered([
      user('go'), // 0
      callsTo(['a', 'read', '{}']), // 1
      result('a', 'A'), // 2
      assistant('done'), // 3
      user('again'), // 4
    ]);
    const cutAt3 = projectView(log, [cut('c1', 'drop', 3)], { leaveCallsOpen: true });
    expect(viewAfterCut(cutAt3, cut('c2', 'drop', 2), log)).toBeUndefined();
    const uncut = projectView(log, [], { leaveCallsOpen: true });
    expect(viewAfterCut(uncut, cut('c3', 'summarize', 1), log)).toBeUndefined();
    expect(viewAfterCut(uncut, cut('c4', 'summarize', 3), log)?.dropped).toBe(4);
  });

  it('refuses a cut past a call still open', () => {
    const log = numbered([user('go'), callsTo(['a', 'read', '{}'])]);
    const open = projectView(log, [], { leaveCallsOpen: true });
    expect(viewAfterCut(open, cut('c', 'drop', 1), log)).toBeUndefined();
  });
});
