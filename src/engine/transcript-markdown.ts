import type { Message } from '../core/message.ts';
import { WorkSlices } from '../core/work-slices.ts';

/** Kinds every message of a conversation has; only the others are worth a word in a heading. */
const PLAIN_KINDS: ReadonlySet<string> = new Set(['message', 'tool_result']);

/**
 * What a heading says beyond role and seq: a notable kind (`tool_result_archived`, `tool_summary`) and
 * who the message is hidden from, so an archived result reads as archived here as everywhere else.
 */
function headingNotes(message: Message): string {
  const notes: string[] = [];
  const { kind, agentVisible, userVisible } = message.meta;
  if (kind !== undefined && !PLAIN_KINDS.has(kind)) notes.push(kind);
  if (agentVisible === false) notes.push('hidden from the model');
  if (userVisible === false) notes.push('hidden from the user');
  return notes.map((note) => `, ${note}`).join('');
}

/**
 * A readable transcript, for `conversation_history/<session>.md` (deepagents). Pass the history as shown
 * (`historyAsShown`) for archived results to read as archived; raw log messages render as logged.
 */
export function transcriptMarkdown(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) writeMessage(message, lines);
  return lines.join('\n');
}

/**
 * `transcriptMarkdown` in slices: the transcript of a history of hundreds of thousands of messages. Each
 * slice's lines are joined as it ends (one join of millions of lines held the thread 0.14 s).
 */
export async function transcriptMarkdownInSlices(
  messages: readonly Message[],
  slices: WorkSlices = new WorkSlices(),
): Promise<string> {
  const joined: string[] = [];
  let lines: string[] = [];
  for (const message of messages) {
    writeMessage(message, lines);
    if (slices.due()) {
      joined.push(lines.join('\n'));
      lines = [];
      await slices.next();
    }
  }
  if (lines.length > 0 || joined.length === 0) joined.push(lines.join('\n'));
  return joined.join('\n');
}

function writeMessage(message: Message, lines: string[]): void {
  lines.push(`## ${message.role} (seq ${message.seq}${headingNotes(message)})`);
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
        lines.push(part.text);
        break;
      case 'reasoning':
        lines.push(`> (reasoning) ${part.text.replaceAll('\n', '\n> ')}`);
        break;
      case 'media':
        lines.push(`[media ${part.mediaType}: ${part.ref}]`);
        break;
      case 'tool-call':
        lines.push(`→ tool call ${part.name} (${part.callId}): ${part.args}`);
        break;
      case 'tool-result':
        lines.push(
          `← result of ${part.name || part.callId}${part.isError ? ' (error)' : ''}:`,
          '```',
          part.content,
          '```',
        );
        for (const media of part.media ?? []) lines.push(`[media ${media.mediaType}: ${media.ref}]`);
        break;
    }
  }
  lines.push('');
}

/**
 * The transcript of `before`'s messages followed by `added`: equal to rendering them all at once, so a
 * transcript that grows with each summary renders only what is new.
 */
export function extendTranscript(before: string, added: readonly Message[]): string {
  const more = transcriptMarkdown(added);
  return before && more ? `${before}\n${more}` : before || more;
}

/** `extendTranscript` in slices. */
export async function extendTranscriptInSlices(
  before: string,
  added: readonly Message[],
  slices: WorkSlices = new WorkSlices(),
): Promise<string> {
  const more = await transcriptMarkdownInSlices(added, slices);
  return before && more ? `${before}\n${more}` : before || more;
}
