import type { Message } from '../core/message.ts';
import { cutHead, cutHeadTail } from './cut-text.ts';

/**
 * One message as the summarizing model reads it: a `[#seq role]` line, then its content, a tool call as a
 * `→ call <name>` line with its arguments on the next. Tool results are cut to `toolResultMaxChars`
 * (tiancai: 1,800 runes), head and tail; every other text to `messageMaxChars`, so no single message can
 * take the whole input budget. Reasoning is left out: it is the model thinking aloud, long, and what it
 * concluded is in the text and the calls that follow.
 */

/** Longest text kept from one user or assistant message, in runes. */
export const DEFAULT_TRANSCRIPT_MESSAGE_MAX_CHARS = 6_000;
/** Longest tool-call arguments kept, in runes: a file write's whole content is not needed to summarize it. */
export const DEFAULT_TOOL_ARGS_MAX_CHARS = 600;

export interface TranscriptLimits {
  toolResultMaxChars: number;
  messageMaxChars?: number;
  toolArgsMaxChars?: number;
}

export function renderTranscriptMessage(message: Message, limits: TranscriptLimits): string {
  const messageMax = limits.messageMaxChars ?? DEFAULT_TRANSCRIPT_MESSAGE_MAX_CHARS;
  const argsMax = limits.toolArgsMaxChars ?? DEFAULT_TOOL_ARGS_MAX_CHARS;
  const kind = message.meta.kind;
  const label =
    kind === 'summary' || kind === 'tool_summary' || kind === 'reminder' || kind === 'system_note'
      ? `${message.role}, ${kind}`
      : message.role;
  const lines: string[] = [];
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
        if (part.text.trim()) lines.push(cutHeadTail(part.text.trim(), messageMax));
        break;
      case 'tool-call': {
        // The arguments on a line of their own, as the agent sent them: a tokenizer that counts by lines
        // finds them again, counted when the call was appended, instead of a new line to count.
        const args = cutHead(part.args.trim(), argsMax);
        lines.push(args ? `→ call ${part.name}\n${args}` : `→ call ${part.name}`);
        break;
      }
      case 'tool-result': {
        const status = part.isError ? ' (error)' : '';
        const content = part.content.trim()
          ? cutHeadTail(part.content.trim(), limits.toolResultMaxChars)
          : '(empty)';
        lines.push(`← result${part.name ? ` of ${part.name}` : ''}${status}:\n${content}`);
        for (const media of part.media ?? []) lines.push(mediaLine(media.mediaType, media.name));
        break;
      }
      case 'media':
        lines.push(mediaLine(part.mediaType, part.name));
        break;
      case 'reasoning':
        break;
    }
  }
  return `[#${message.seq} ${label}]\n${lines.join('\n')}`;
}

function mediaLine(mediaType: string, name: string | undefined): string {
  return `[${mediaType}${name ? ` ${name}` : ''}]`;
}
