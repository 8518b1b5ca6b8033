import type { DropEdit, SummarizeEdit } from '../edit.ts';
import type { Message } from '../message.ts';
import type { CoverageReason, ReadonlyView, View } from './project-view.ts';

/**
 * The view after one more prefix cut (a summary or a drop through `edit.throughSeq`), worked out from the
 * view before it: what `projectView(log, [...edits, edit], { leaveCallsOpen: true })` returns, without
 * projecting the log again. A cut takes messages off the front and changes nothing about the rest, so
 * the entries after it stay as they were; every log message it reaches is covered by it.
 *
 * Valid only when no edit the view was projected from reaches across messages (archives, compressed
 * turns, hidden messages, branches, cleared inputs: `reachesAcrossMessages`), which make one message's
 * projection depend on others. Undefined, and the caller projects the log, when the answer is not known
 * from the view alone: the cut is older than the view's, it would leave a result without its call (the
 * projection leaves such a result out), or a call still open was made before it.
 *
 * `log` is the log the view was projected from, in seq order. The new view's coverage is `coverage`,
 * updated: a copy of the view's by default; the view's owner may hand in the view's own map, which a
 * long log makes worth not copying on every cut.
 */
export function viewAfterCut(
  view: ReadonlyView,
  edit: SummarizeEdit | DropEdit,
  log: readonly Message[],
  coverage?: Map<number, CoverageReason>,
): { view: View; dropped: number } | undefined {
  const through = edit.throughSeq;
  if (view.cut && through < view.cut.throughSeq) return undefined;
  for (const standIn of view.pairing.pending()) if (standIn.seq <= through) return undefined;
  const entries = view.entries;
  // Stand-ins (no seq of their own) follow the call they answer: before the first kept message, they go with it.
  let first = 0;
  for (; first < entries.length; first++) {
    const seq = entries[first]?.sourceSeq;
    if (seq !== undefined && seq > through) break;
  }
  const cutCalls = new Set<string>();
  for (let index = 0; index < first; index++)
    for (const part of entries[index]?.message.parts ?? [])
      if (part.type === 'tool-call') cutCalls.add(part.callId);
  if (cutCalls.size > 0)
    for (let index = first; index < entries.length; index++)
      for (const part of entries[index]?.message.parts ?? [])
        if (part.type === 'tool-result' && cutCalls.has(part.callId)) return undefined;

  const covers = coverage ?? new Map<number, CoverageReason>(view.coverage);
  const covered: CoverageReason = { by: 'edit', editId: edit.id, type: edit.type };
  for (const message of log) {
    if (message.seq > through) break;
    covers.set(message.seq, covered);
  }
  const summarized = edit.type === 'summarize';
  return {
    view: {
      entries: entries.slice(first),
      summary: summarized ? edit.summary : view.summary,
      placement: summarized ? edit.placement : view.placement,
      reminder: edit.type === 'drop' ? edit.reminder : undefined,
      cut: edit,
      coverage: covers,
      pairing: view.pairing.clone(),
    },
    dropped: first,
  };
}
