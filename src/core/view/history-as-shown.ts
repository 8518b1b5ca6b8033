import type { ArchiveEdit, Edit } from '../edit.ts';
import type { Message } from '../message.ts';
import { archiveDigestMessage, archivedMessage } from './archived-messages.ts';

/**
 * The session's history as people read it (a transcript, an export, `inspect`, the dashboard): every
 * log message in order, each archived tool result marked as archived (`agentVisible: false`,
 * `kind: 'tool_result_archived'`, its own `userVisible` kept) and each archive's digest in its place,
 * as tiancai's session holds them. Pure; the log and edits are read, never changed.
 *
 * Unlike the view, nothing is left out: a message the model no longer sees still happened. What the
 * model sees is `projectView`; which messages a person sees is theirs to filter by `userVisible`.
 */
export function historyAsShown(log: readonly Message[], edits: readonly Edit[]): Message[] {
  const archived = new Set<number>();
  const digestsAfter = new Map<number, ArchiveEdit[]>();
  for (const edit of edits) {
    if (edit.type !== 'archive') continue;
    for (const target of edit.targets) archived.add(target);
    digestsAfter.set(edit.digestAfterSeq, [...(digestsAfter.get(edit.digestAfterSeq) ?? []), edit]);
  }
  if (archived.size === 0 && digestsAfter.size === 0) return [...log];
  const shown: Message[] = [];
  for (const message of log) {
    shown.push(archived.has(message.seq) ? archivedMessage(message) : message);
    for (const archive of digestsAfter.get(message.seq) ?? []) shown.push(archiveDigestMessage(archive));
  }
  return shown;
}
