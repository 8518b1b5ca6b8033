import type { Message, MessageKind } from '../message.ts';

/**
 * User-role messages that ctxkit itself synthesizes (digests, reminders, summaries, relayed system
 * notes) do not start a turn: a turn is started by the person (or program) driving the agent.
 */
export const NON_TURN_KINDS: ReadonlySet<MessageKind> = new Set([
  'tool_summary',
  'summary',
  'reminder',
  'system_note',
]);

export function startsTurn(message: Pick<Message, 'role' | 'meta'>): boolean {
  return message.role === 'user' && !NON_TURN_KINDS.has(message.meta.kind ?? 'message');
}

/**
 * The index of the first message of every turn (picoclaw): a turn is one user message and everything up
 * to the next user message. History never holds the system prompt, and may start with a non-user
 * message (a resumed or trimmed session); such a prefix belongs to no turn.
 */
export function parseTurnBoundaries(history: readonly Pick<Message, 'role' | 'meta'>[]): number[] {
  const starts: number[] = [];
  for (let index = 0; index < history.length; index++) {
    const message = history[index];
    if (message && startsTurn(message)) starts.push(index);
  }
  return starts;
}

export interface TurnRange {
  /** Index of the turn's user message (or 0 for a leading prefix without one). */
  start: number;
  /** One past the turn's last message. */
  end: number;
}

/** Turns as half-open index ranges covering the whole history, a leading non-user prefix included. */
export function splitTurns(history: readonly Pick<Message, 'role' | 'meta'>[]): TurnRange[] {
  const starts = parseTurnBoundaries(history);
  if (history.length === 0) return [];
  if (starts[0] !== 0) starts.unshift(0);
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? history.length }));
}

/**
 * Whether a log ending with `last` stands between turns: a reply that calls no tool ended the turn (and
 * a user message after it starts the next one). A log ending with tool calls or their results is inside
 * a turn, in its tool loop.
 */
export function betweenTurns(last: Pick<Message, 'role' | 'parts'> | undefined): boolean {
  if (last === undefined) return true;
  if (last.role === 'tool') return false;
  return last.role !== 'assistant' || !last.parts.some((part) => part.type === 'tool-call');
}
