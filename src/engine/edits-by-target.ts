import type { Edit } from '../core/edit.ts';

/**
 * Edits that make one message's projection depend on others: a cleared result blanking its call,
 * archived calls, compressed turns, branches, hidden messages. A session holding one is re-projected
 * whole rather than patched message by message.
 */
export function reachesAcrossMessages(edit: Edit): boolean {
  return (
    edit.type === 'archive' ||
    edit.type === 'compress-text' ||
    edit.type === 'branch' ||
    edit.type === 'hide' ||
    (edit.type === 'clear' && edit.clearInputs === true)
  );
}

const NONE: readonly Edit[] = Object.freeze([]);

/**
 * A session's held edits by the log message they target (an edit's `target`, each of a clearing's
 * `targets`), in the order they were made, and whether any reaches across messages. Patching a
 * message in place asks both on every call that edits one; a long session holds thousands of edits,
 * which a scan would read for every message patched.
 */
export class EditsByTarget {
  #byTarget = new Map<number, Edit[]>();
  #acrossMessages = 0;

  add(edit: Edit): void {
    if (reachesAcrossMessages(edit)) this.#acrossMessages++;
    if ('target' in edit) this.#file(edit.target, edit);
    else if (edit.type === 'clear') for (const target of new Set(edit.targets)) this.#file(target, edit);
  }

  /** Indexes `edits` afresh, in their order. */
  reset(edits: readonly Edit[]): void {
    this.#byTarget = new Map();
    this.#acrossMessages = 0;
    for (const edit of edits) this.add(edit);
  }

  /** The edits targeting log message `seq`, oldest first. Read only. */
  of(seq: number): readonly Edit[] {
    return this.#byTarget.get(seq) ?? NONE;
  }

  /** Whether any held edit reaches across messages (`reachesAcrossMessages`). */
  get anyAcrossMessages(): boolean {
    return this.#acrossMessages > 0;
  }

  #file(seq: number, edit: Edit): void {
    const filed = this.#byTarget.get(seq);
    if (filed) filed.push(edit);
    else this.#byTarget.set(seq, [edit]);
  }
}
