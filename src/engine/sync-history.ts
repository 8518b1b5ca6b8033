import type { Edit } from '../core/edit.ts';
import { InvalidInputError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { assignStableIdsInSlices } from '../core/stable-id.ts';
import { mapInSlices, type WorkSlices } from '../core/work-slices.ts';
import { appendMessages, withoutId } from './append-messages.ts';
import type { CallSetup } from './call-setup.ts';
import type { SyncOptions } from './context-manager-options.ts';
import { diffHistory } from './diff-history.ts';
import type { SessionRuntime } from './session-runtime.ts';
import { validateMessageInputsInSlices } from './validate-message-input.ts';

/** `sync`'s input checked, in slices (a client's history may hold a million messages). */
export async function validateSyncInput(
  history: readonly MessageInput[],
  options: SyncOptions,
  slices: WorkSlices,
): Promise<void> {
  await validateMessageInputsInSlices(history, 'history', slices);
  if (options.contentIds !== undefined && options.contentIds.length !== history.length)
    throw new InvalidInputError(`has ${options.contentIds.length} ids for ${history.length} messages`, {
      field: 'options.contentIds',
    });
}

/**
 * `sync`'s path: appends only what the caller's whole history adds to the session's, recognizing
 * messages by content; when the caller dropped or edited messages, hides the log's version of them (a
 * `branch` edit, in the same write as the messages that continue the caller's history).
 */
export async function syncHistory(
  setup: CallSetup,
  runtime: SessionRuntime,
  history: readonly MessageInput[],
  options: SyncOptions,
  context: { events: ContextEvent[]; slices: WorkSlices; clock: () => number; newId: () => string },
): Promise<{ messages: Message[]; diverged: boolean }> {
  const { events, slices, clock } = context;
  const callerIds =
    options.contentIds ??
    (await assignStableIdsInSlices(await mapInSlices(history, withoutId, slices), slices)).map(
      (message) => message.id,
    );
  const diff = diffHistory(runtime.branch.ids, callerIds);
  // A retried sync is idempotent by construction: what the first one stored is part of the diff.
  let branch: { edit: Edit; kept: number } | undefined;
  if (diff.diverged) {
    const hiddenSeqs = runtime.branch.seqs.slice(diff.kept);
    const edit: Edit = {
      id: context.newId(),
      at: clock(),
      type: 'branch',
      layer: 'sync',
      reason: 'history_diverged',
      hiddenSeqs,
      tokensBefore: runtime.historyTokens,
      tokensAfter: runtime.historyTokens,
    };
    branch = { edit, kept: diff.kept };
    events.push({
      type: 'history-diverged',
      sessionId: runtime.id,
      at: clock(),
      keptThroughSeq: runtime.branch.seqs[diff.kept - 1] ?? -1,
      hidden: hiddenSeqs.length,
      added: history.length - diff.addedFrom,
    });
  }
  const fresh = await mapInSlices(
    history.slice(diff.addedFrom),
    (message, offset) => ({ ...message, id: message.id ?? callerIds[diff.addedFrom + offset] }),
    slices,
  );
  // The branch edit lands in the same write as the messages that continue the caller's history.
  const appended = await appendMessages(setup.appendContext(runtime), fresh, {
    events,
    contentIds: callerIds.slice(diff.addedFrom),
    ...(branch ? { branch } : {}),
  });
  return { messages: appended, diverged: diff.diverged };
}
