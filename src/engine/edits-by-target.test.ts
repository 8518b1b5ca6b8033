import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Edit } from '../core/edit.ts';
import { EditsByTarget, reachesAcrossMessages } from './edits-by-target.ts';

const base = (id: number) => ({ id: `e${id}`, at: id, layer: 'clear' as const, reason: 'manual' as const });
const seq = fc.integer({ min: 0, max: 6 });

/** Edits of every shape the index tells apart: one target, several (with repeats), none, across messages. */
const editOf = (id: number): fc.Arbitrary<Edit> =>
  fc.oneof(
    seq.map((target) => ({ ...base(id), type: 'evict', target, content: 'x' }) as Edit),
    seq.map((target) => ({ ...base(id), type: 'truncate-result', target, content: 'x' }) as Edit),
    fc
      .tuple(fc.array(seq, { maxLength: 4 }), fc.boolean())
      .map(([targets, clearInputs]) => ({ ...base(id), type: 'clear', targets, clearInputs }) as Edit),
    fc.array(seq, { maxLength: 3 }).map((targets) => ({ ...base(id), type: 'hide', targets }) as Edit),
    seq.map((throughSeq) => ({ ...base(id), type: 'drop', throughSeq }) as Edit),
  );
const edits = fc
  .integer({ min: 0, max: 30 })
  .chain((length) => fc.tuple(...Array.from({ length }, (_, id) => editOf(id))));

/** What the index stands for: a scan of every edit. */
const targeting = (all: readonly Edit[], target: number) =>
  all.filter(
    (edit) =>
      ('target' in edit && edit.target === target) ||
      (edit.type === 'clear' && edit.targets.includes(target)),
  );

describe('EditsByTarget', () => {
  it('answers as a scan of every edit would, in the order they were made', () => {
    fc.assert(
      fc.property(edits, fc.integer({ min: 0, max: 30 }), (all, split) => {
        const index = new EditsByTarget();
        for (const edit of all.slice(0, split)) index.add(edit);
        const reset = new EditsByTarget();
        reset.reset(all.slice(0, split));
        for (const edit of all.slice(split)) {
          index.add(edit);
          reset.add(edit);
        }
        for (let target = 0; target <= 6; target++) {
          expect(index.of(target)).toEqual(targeting(all, target));
          expect(reset.of(target)).toEqual(targeting(all, target));
        }
        expect(index.anyAcrossMessages).toBe(all.some(reachesAcrossMessages));
        expect(reset.anyAcrossMessages).toBe(all.some(reachesAcrossMessages));
      }),
    );
  });

  it('files a clearing once under each target it names, however often it names it', () => {
    const index = new EditsByTarget();
    const clearing = { ...base(1), type: 'clear', targets: [3, 3, 5], clearInputs: false } as Edit;
    index.add(clearing);
    expect(index.of(3)).toEqual([clearing]);
    expect(index.of(5)).toEqual([clearing]);
    expect(index.of(4)).toEqual([]);
    expect(index.anyAcrossMessages).toBe(false);
  });

  it('forgets what it held when reset', () => {
    const index = new EditsByTarget();
    index.add({ ...base(1), type: 'hide', targets: [2] } as Edit);
    index.add({ ...base(2), type: 'evict', target: 2, content: 'x' } as Edit);
    expect(index.anyAcrossMessages).toBe(true);
    index.reset([]);
    expect(index.of(2)).toEqual([]);
    expect(index.anyAcrossMessages).toBe(false);
  });
});
