/**
 * A message as the dashboard shows it: its parts as plain text, one after another, clipped to a length
 * without building the whole text first (a tool result can be megabytes; the page asks for the rest).
 */
import type { Message, Part } from '../../core/message.ts';
import { safeCutIndex } from '../../core/utf16-boundary.ts';

/** A part's reference (a media URL, possibly a long data URL) is shown up to this many characters. */
const MAX_REF_CHARS = 200;

export interface ClippedText {
  /** The text, at most `max` characters of it. */
  text: string;
  /** The whole text's length: larger than `text.length` when it was clipped. */
  chars: number;
}

function partTexts(part: Part): string[] {
  switch (part.type) {
    case 'text':
      return [part.text];
    case 'reasoning':
      return [
        part.redactedData !== undefined && part.text === ''
          ? '[reasoning, redacted]'
          : `[reasoning] ${part.text}`,
      ];
    case 'media':
      return [mediaText(part)];
    case 'tool-call':
      return [`→ ${part.name}(${part.args})`];
    case 'tool-result':
      return [part.isError ? `[error] ${part.content}` : part.content, ...(part.media ?? []).map(mediaText)];
  }
}

function mediaText(part: Extract<Part, { type: 'media' }>): string {
  const ref = clipText(part.ref, MAX_REF_CHARS);
  const shown = ref.chars > ref.text.length ? `${ref.text}…` : ref.text;
  return `[${part.mediaType}${part.name ? ` ${part.name}` : ''}: ${shown}]`;
}

/** The message's parts as text, joined by newlines, clipped to `max` characters. */
export function messageText(message: Pick<Message, 'parts'>, max: number): ClippedText {
  let text = '';
  let chars = 0;
  for (const part of message.parts) {
    for (const piece of partTexts(part)) {
      const joined = chars === 0 ? piece : `\n${piece}`;
      if (text.length < max) text += joined.slice(0, safeCutIndex(joined, max - text.length));
      chars += joined.length;
    }
  }
  return { text, chars };
}

/** `text` clipped to `max` characters, with its whole length. */
export function clipText(text: string, max: number): ClippedText {
  return { text: text.length > max ? text.slice(0, safeCutIndex(text, max)) : text, chars: text.length };
}

/**
 * A clipped text as a `text/plain` answer: the text, and when it was clipped a last line saying how much
 * was left out (the answer stays bounded whatever a blob or a message holds).
 */
export function plainTextBody(clipped: ClippedText): string {
  if (clipped.chars <= clipped.text.length) return clipped.text;
  const left = clipped.chars - clipped.text.length;
  return `${clipped.text}\n\n[… ${left.toLocaleString('en-US')} more characters not shown: ${clipped.chars.toLocaleString('en-US')} in all]\n`;
}
