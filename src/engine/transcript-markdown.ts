import type { Message } from '../core/message.ts';

/** A readable transcript of log messages, for `conversation_history/<session>.md` (seed 002). */
export function transcriptMarkdown(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    lines.push(`## ${message.role} (seq ${message.seq})`);
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
  return lines.join('\n');
}

/**
 * The transcript of `before`'s messages followed by `added`: equal to rendering them all at once, so a
 * transcript that grows with each summary renders only what is new.
 */
export function extendTranscript(before: string, added: readonly Message[]): string {
  const more = transcriptMarkdown(added);
  return before && more ? `${before}\n${more}` : before || more;
}
