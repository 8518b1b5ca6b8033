import type { Edit } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import { isAgentVisible, type Message, type MessageInput } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import { projectMessage } from '../core/view/project-view.ts';
import { forEachInSlices, mapInSlices, WorkSlices } from '../core/work-slices.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import { hiddenResultOf } from './hidden-result.ts';
import { normalizeAppendedResult } from './normalize-appended-result.ts';
import type { SessionRuntime } from './session-runtime.ts';

/** What appending needs: the session in memory, where it is stored, and how to forget it when that fails. */
export interface AppendContext {
  runtime: SessionRuntime;
  store: SessionStore;
  blobs: BlobStore;
  policy: Policy;
  clock: () => number;
  newId: () => string;
  /** Drops the session's in-memory copy, so the next call re-reads the store. */
  forget: () => void;
}

export interface AppendOptions {
  /** Where the events of the append go. */
  events: ContextEvent[];
  /** The caller's content ids of the messages (sync); else continued from the session's branch. */
  contentIds?: readonly string[];
  /** A branch edit (sync found the caller's history diverged) stored in the same write. */
  branch?: { edit: Edit; kept: number };
}

/**
 * Appends messages to a session: each tool result normalized as it arrives, messages and the edits that
 * normalize them stored in one write (with a sync's branch edit), then the view continued. All or nothing:
 * when the store write fails, the in-memory session is forgotten and nothing of the call is kept.
 */
export async function appendMessages(
  context: AppendContext,
  inputs: readonly MessageInput[],
  options: AppendOptions,
): Promise<Message[]> {
  const { runtime } = context;
  const { events, contentIds, branch } = options;
  if (inputs.length === 0 && branch === undefined) return [];
  const at = context.clock();
  // Every loop here runs in slices: a client may send a history of a million messages, and other
  // sessions' calls go on meanwhile. This session's own calls wait for the lock this runs under.
  const slices = new WorkSlices();
  const ids = contentIds ?? runtime.branch.continueContentIds(inputs.map(withoutId));
  const messages: Message[] = await mapInSlices(
    inputs,
    (input, offset) => {
      const seq = runtime.nextSeq + offset;
      let id = input.id ?? ids[offset] ?? `m_${seq}`;
      if (runtime.hasId(id)) id = `${id}#${seq}`;
      return {
        id,
        seq,
        role: input.role,
        parts: input.parts,
        meta: { ...input.meta },
        ...(input.usage ? { usage: input.usage } : {}),
      };
    },
    slices,
  );
  const normalized: { message: Message; edits: Edit[] }[] = [];
  for (const message of messages) {
    const edits = await normalizeAppendedResult({
      runtime,
      message,
      policy: context.policy,
      blobs: context.blobs,
      at,
      newId: context.newId,
      events,
    });
    normalized.push({ message, edits });
    if (slices.due()) await slices.next();
  }
  const edits = [...(branch ? [branch.edit] : []), ...normalized.flatMap((entry) => entry.edits)];
  // The caller's history continues with these ids; the store keeps them for a resume.
  const branchIds = messages.map((message, offset) => ids[offset] ?? message.id);
  // Exact counts of messages the view will show as logged go with them, so a resume reuses them.
  const countKey = runtime.tokenCache.countKey(runtime.counter);
  const tokens = await mapInSlices(
    normalized,
    ({ message, edits: own }) =>
      countKey !== undefined && own.length === 0 && isAgentVisible(message)
        ? { key: countKey, breakdown: { ...runtime.tokenCache.estimate(message, runtime.counter) } }
        : null,
    slices,
  );
  try {
    // Messages and the edits that normalize them land together or not at all.
    await context.store.append(
      runtime.id,
      {
        messages,
        contentIds: branchIds,
        tokens,
        edits,
        expectedSeq: runtime.nextSeq,
        expectedEditCount: runtime.editCount,
      },
      at,
    );
  } catch (error) {
    // Another writer got there first, or the store failed after writing (a timeout): either way what is
    // stored is not known here. Forget our copy so the next call re-reads the store; a retried append
    // then finds what this one stored (see `recognizeRetries`), and sync its diff.
    context.forget();
    throw error;
  }
  if (branch) {
    runtime.addEdits([branch.edit]);
    runtime.branch.truncate(branch.kept);
    await runtime.rebuild(slices);
  }
  await forEachInSlices(
    normalized,
    ({ message, edits: own }, offset) => {
      runtime.addEdits(own);
      const projected = own.length > 0 ? projectMessage(message, own) : message;
      runtime.appendToView(message, projected);
      if (runtime.view.coverage.get(message.seq)?.by === 'orphan-result') {
        const hidden = hiddenResultOf(runtime.heldLog, message);
        if (hidden)
          events.push({ type: 'tool-result-hidden', sessionId: runtime.id, at, seq: message.seq, ...hidden });
      }
      runtime.recordBranch(message, branchIds[offset] ?? message.id);
      recordActivity(runtime, message, events, at);
    },
    slices,
  );
  return messages;
}

/** Counts for the triggers, and reported usage for the estimates and the overflow record. */
function recordActivity(runtime: SessionRuntime, message: Message, events: ContextEvent[], at: number): void {
  runtime.progress.triggers.noteMessage(message);
  if (message.role === 'assistant' && message.usage) {
    runtime.recordUsage(message.usage);
    runtime.progress.overflow.noteUsage();
    events.push({
      type: 'model-usage',
      sessionId: runtime.id,
      at,
      usage: message.usage,
      ...(message.meta.model ? { model: message.meta.model } : {}),
    });
  }
}

export function withoutId(message: MessageInput): Omit<MessageInput, 'id'> {
  const { id: _id, ...rest } = message;
  return rest;
}
