import type { Message } from '../core/message.ts';
import { contentId, type StableIdSource } from '../core/stable-id.ts';
import { forEachInSlices, WorkSlices } from '../core/work-slices.ts';

/**
 * The caller's logical history: the log minus the messages a branch hid, as content ids and seqs. `sync()`
 * diffs what a caller sends against it, and messages appended without ids continue its numbering.
 */
export class CallerBranch {
  ids: string[] = [];
  seqs: number[] = [];
  readonly #idSet = new Set<string>();
  /**
   * Per content id, an occurrence below which every numbered id of that content is in the branch: the
   * next one is looked for from there, not from 1 (the n-th "ok" of a conversation looked at n - 1 taken
   * ids first, so n alike messages took time in proportion to n²).
   */
  readonly #takenBelow = new Map<string, number>();

  /** Starts over from a stored session's branch. */
  reset(seqs: number[], ids: string[]): void {
    this.seqs = seqs;
    this.ids = ids;
    this.#idSet.clear();
    this.#takenBelow.clear();
    for (const id of ids) this.#idSet.add(id);
  }

  /** `reset` in slices: a stored branch of hundreds of thousands of messages. */
  async resetInSlices(seqs: number[], ids: string[], slices: WorkSlices = new WorkSlices()): Promise<void> {
    this.reset(seqs, []);
    this.ids = ids;
    await forEachInSlices(ids, (id) => this.#idSet.add(id), slices);
  }

  record(seq: number, id: string): void {
    this.ids.push(id);
    this.#idSet.add(id);
    this.seqs.push(seq);
  }

  /** Keeps the first `kept` messages (the caller diverged after them). */
  truncate(kept: number): void {
    for (const id of this.ids.slice(kept)) this.#idSet.delete(id);
    // Ids given up may be given again: look for each content's next from the start.
    this.#takenBelow.clear();
    this.ids = this.ids.slice(0, kept);
    this.seqs = this.seqs.slice(0, kept);
  }

  /**
   * Content ids for messages appended after the branch, numbered as `assignStableIds` would number them
   * over the whole branch (the 2nd "yes" of the conversation is `…_2` whether it came in one call or two).
   */
  continueContentIds(messages: readonly (Omit<Message, 'id' | 'seq'> | StableIdSource)[]): string[] {
    const fresh = new Set<string>();
    const freshBelow = new Map<string, number>();
    const used = (id: string): boolean => this.#idSet.has(id) || fresh.has(id);
    return messages.map((message) => {
      const base = contentId(message);
      let taken = this.#takenBelow.get(base) ?? 1;
      while (this.#idSet.has(numbered(base, taken))) taken++;
      // Only contents the branch holds twice or more are worth a mark (the walk to 2 is one look).
      if (taken > 2) this.#takenBelow.set(base, taken);
      // Below both marks every id is taken (by the branch, or by this call): the first free one from there.
      let occurrence = Math.max(taken, freshBelow.get(base) ?? 1);
      let id = numbered(base, occurrence);
      while (used(id)) id = numbered(base, ++occurrence);
      fresh.add(id);
      freshBelow.set(base, occurrence + 1);
      return id;
    });
  }
}

/** The id of a content's `occurrence`-th message: the content id, then `_2`, `_3`… */
function numbered(base: string, occurrence: number): string {
  return occurrence === 1 ? base : `${base}_${occurrence}`;
}
