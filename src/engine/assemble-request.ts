import type { Summary, SummaryPlacement } from '../core/edit.ts';
import type { Message } from '../core/message.ts';

/** What the model is sent: the system prompt (maybe with the summary in it) and the history. */
export interface AssembledRequest {
  system: string;
  messages: Message[];
  /** The messages ctxkit added around the history (summary, reminder), for stats and tests. */
  injected: Message[];
}

export interface AssembleInput {
  system: string;
  history: Message[];
  summary: Summary | undefined;
  placement: SummaryPlacement;
  /** First line of the summary block (tiancai: "[Previous conversation summary]"). */
  prefix: string;
  reminder: string | undefined;
  /**
   * Where a reminder (or compression note) goes: digitorn injects "a single system message", picoclaw
   * keeps its note in the system prompt; otherwise its own message.
   */
  reminderPlacement: 'system-prompt' | 'system-message' | 'own-message';
}

/** A reminder (or compression note) goes where the summary goes (picoclaw: "in the next system prompt"). */
export function reminderPlacementFor(placement: SummaryPlacement): AssembleInput['reminderPlacement'] {
  if (placement === 'system-prompt' || placement === 'system-message') return placement;
  return 'own-message';
}

/** The synthetic first message when a cut leaves history starting with an assistant message. */
const CONTINUATION_TEXT = '[Earlier conversation was compacted; continue from here.]';

/**
 * The block each request carries until the next summary: one string per summary and prefix, so every
 * request holds the same string, and what reads it (counting, pointer scans) hashes and flattens it once
 * instead of once per call.
 */
const blocks = new WeakMap<Summary, { prefix: string; block: string }>();

export function summaryBlock(summary: Summary, prefix: string): string {
  if (!prefix) return summary.text;
  const known = blocks.get(summary);
  if (known?.prefix === prefix) return known.block;
  const block = `${prefix}\n${summary.text}`;
  blocks.set(summary, { prefix, block });
  return block;
}

/**
 * Places the summary where the policy says (docs/ARCHITECTURE.md: `default` keeps it out of the system prompt so
 * that stays byte-stable for prompt caches) and the drop reminder, and makes sure the history starts
 * with a user message (Anthropic rejects anything else; a cut inside a long agent turn can start it
 * with the assistant).
 */
export function assembleRequest(input: AssembleInput): AssembledRequest {
  const injected: Message[] = [];
  let system = input.system;
  let history = input.history;
  const before: Message[] = [];
  const firstSeq = history[0]?.seq ?? 0;

  if (input.reminder !== undefined && input.reminderPlacement === 'system-prompt') {
    system = system ? `${system}\n\n${input.reminder}` : input.reminder;
  } else if (input.reminder !== undefined) {
    const reminder = synthetic(
      `reminder-${firstSeq}`,
      firstSeq,
      input.reminder,
      input.reminderPlacement === 'system-message' ? 'system_note' : 'reminder',
    );
    before.push(reminder);
  }

  if (input.summary) {
    const block = summaryBlock(input.summary, input.prefix);
    switch (input.placement) {
      case 'system-prompt':
        system = system ? `${system}\n\n${block}` : block;
        break;
      case 'system-message':
        before.unshift(synthetic(`summary-${input.summary.throughSeq}`, firstSeq, block, 'system_note'));
        break;
      case 'first-user-message': {
        const index = history.findIndex((message) => message.role === 'user');
        const target = history[index];
        if (target) {
          history = [...history];
          history[index] = {
            ...target,
            id: `${target.id}~summary-${input.summary.throughSeq}`,
            parts: [{ type: 'text', text: block }, ...target.parts],
          };
        } else {
          before.unshift(synthetic(`summary-${input.summary.throughSeq}`, firstSeq, block, 'summary'));
        }
        break;
      }
      default:
        before.unshift(synthetic(`summary-${input.summary.throughSeq}`, firstSeq, block, 'summary'));
    }
  }

  const continuation = needsContinuation({
    ...input,
    first: history.find((message) => message.meta.kind !== 'system_note'),
    hasUserMessage: () => history.some((message) => message.role === 'user'),
  });
  if (continuation) before.push(continuationNote(firstSeq));
  injected.push(...before);
  return { system, messages: before.length > 0 ? [...before, ...history] : history, injected };
}

/** What decides whether assembly puts the continuation note first (see `needsContinuation`). */
export interface ContinuationInput
  extends Pick<AssembleInput, 'summary' | 'placement' | 'reminder' | 'reminderPlacement'> {
  /** The history's first message that is not a system note. */
  first: Pick<Message, 'role'> | undefined;
  /** Whether the history holds a user message (asked only for the `first-user-message` placement). */
  hasUserMessage: () => boolean;
}

/**
 * Whether assembly puts the continuation note first. System notes become system messages on the wire,
 * and the first conversational message must be the user's: a summary or reminder of its own is one; else
 * the history's first message must be. Cheap, so the budget can count the note before assembling.
 */
export function needsContinuation(input: ContinuationInput): boolean {
  if (input.reminder !== undefined && input.reminderPlacement === 'own-message') return false;
  if (input.summary) {
    const ownMessage =
      input.placement === 'first-user-message'
        ? !input.hasUserMessage()
        : input.placement !== 'system-prompt' && input.placement !== 'system-message';
    if (ownMessage) return false;
  }
  return input.first !== undefined && input.first.role !== 'user';
}

/** The note put first when a cut leaves the history starting with the assistant. */
export function continuationNote(seq: number): Message {
  return synthetic(`continuation-${seq}`, seq, CONTINUATION_TEXT, 'reminder');
}

function synthetic(id: string, seq: number, text: string, kind: string): Message {
  return {
    id,
    seq,
    role: 'user',
    parts: [{ type: 'text', text }],
    meta: { kind, userVisible: false },
  };
}
