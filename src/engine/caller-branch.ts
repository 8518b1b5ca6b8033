import type { Message } from '../core/message.ts';
import { contentId, type StableIdSource } from '../core/stable-id.ts';

/**
 * The caller's logical history: the log minus the messages a branch hid, as content ids and seqs. `sync()`
 * diffs what a caller sends against it, and messages appended without ids continue its numbering.
 */
export class CallerBranch {
  ids: string[] = [];
  seqs: number[] = [];
  readonly #idSet = new Set<string>();

  /** Starts over from a stored session's branch. */
  reset(seqs: number[], ids: string[]): void {
    this.seqs = seqs;
    this.ids = ids;
    this.#idSet.clear();
    for (const id of ids) this.#idSet.add(id);
  }

  record(seq: number, id: string): void {
    this.ids.push(id);
    this.#idSet.add(id);
    this.seqs.push(seq);
  }

  /** Keeps the first `kept` messages (the caller diverged after them). */
  truncate(kept: number): void {
    for (const id of this.ids.slice(kept)) this.#idSet.delete(id);
    this.ids = this.ids.slice(0, kept);
    this.seqs = this.seqs.slice(0, kept);
  }

  /**
   * Content ids for messages appended after the branch, numbered as `assignStableIds` would number them
   * over the whole branch (the 2nd "yes" of the conversation is `…_2` whether it came in one call or two).
   */
  continueContentIds(messages: readonly (Omit<Message, 'id' | 'seq'> | StableIdSource)[]): string[] {
    const fresh = new Set<string>();
    const used = (id: string) => this.#idSet.has(id) || fresh.has(id);
    return messages.map((message) => {
      const base = contentId(message);
      let occurrence = 1;
      let id = base;
      while (used(id)) {
        occurrence++;
        id = `${base}_${occurrence}`;
      }
      fresh.add(id);
      return id;
    });
  }
}
