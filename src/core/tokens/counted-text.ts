import type { MediaPart, Message } from '../message.ts';
import type { TextCategory } from './token-breakdown.ts';
import { TOOL_CALL_TYPE } from './token-estimate-options.ts';

/**
 * The one definition of what text of a message reaches the model, shared by every estimator so exact and
 * heuristic counts, rune and unit measures and calibration anchors all see the same characters (seed
 * picoclaw's list): text, reasoning, tool calls (id, name, arguments), tool results (content and the call id
 * they answer), and each call's `type` when `countToolCallType` says so (picoclaw counts it; see
 * TOOL_CALL_TYPE).
 * Not counted: reasoning signatures and redacted reasoning (opaque provider payloads, not text the model
 * reads), a tool result's `name` (OpenAI and Anthropic send only the call id), media (flat figures).
 */
export function forEachCountedText(
  message: Pick<Message, 'parts'>,
  visit: (category: TextCategory, text: string) => void,
  countToolCallType = false,
): void {
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
        visit('text', part.text);
        break;
      case 'reasoning':
        visit('reasoning', part.text);
        break;
      case 'tool-call':
        visit('toolCalls', part.callId);
        if (countToolCallType) visit('toolCalls', TOOL_CALL_TYPE);
        visit('toolCalls', part.name);
        visit('toolCalls', part.args);
        break;
      case 'tool-result':
        visit('toolResults', part.callId);
        visit('toolResults', part.content);
        break;
      case 'media':
        break;
    }
  }
}

/** Media items of a message, including those a tool returned inside its result. */
export function forEachMedia(message: Pick<Message, 'parts'>, visit: (media: MediaPart) => void): void {
  for (const part of message.parts) {
    if (part.type === 'media') visit(part);
    else if (part.type === 'tool-result' && part.media) for (const media of part.media) visit(media);
  }
}

/** A media item's own figure when it has a usable one, else the flat per-item default. */
export function mediaItemTokens(media: MediaPart, flatTokens: number): number {
  const own = media.tokens;
  return own !== undefined && Number.isFinite(own) && own >= 0 ? own : flatTokens;
}
