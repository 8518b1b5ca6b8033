/**
 * Reads an Anthropic Messages stream (the raw events, as the SDK yields them) into ctxkit's stream events,
 * and puts the events back together into the Message body the same call would have answered without
 * streaming, so the final response is read by the very code `complete` uses.
 *
 * The stream: `message_start` (the message with empty content and the input usage, cache figures
 * included), per content block a `content_block_start`, its `content_block_delta`s (`text_delta`,
 * `thinking_delta` then one `signature_delta`, `input_json_delta` pieces of a tool's input) and a
 * `content_block_stop`; a `redacted_thinking` block arrives whole in its start. Then `message_delta`
 * (stop reason, cumulative usage: `output_tokens`, and the input figures when the API sends them again)
 * and `message_stop`. `ping` events come anywhere; an `error` event ends the stream (the SDK throws it).
 */

import { isRecord } from '../core/is-record.ts';
import type { ModelStreamEvent } from './model-client.ts';

interface BlockDraft {
  block: Record<string, unknown>;
  /** The tool input's JSON text, as `input_json_delta` pieces brought it. */
  json: string;
}

export interface AnthropicStreamState {
  /** The message from `message_start`. */
  message?: Record<string, unknown>;
  blocks: Map<number, BlockDraft>;
  stopReason?: unknown;
  stopSequence?: unknown;
  usage: Record<string, unknown>;
  /** `message_stop` arrived. */
  stopped: boolean;
}

/**
 * The HTTP status each Anthropic error type has when it is answered before a stream begins
 * (https://docs.claude.com/en/api/errors): an `overloaded_error` event "would normally correspond to an
 * HTTP 529 in a non-streaming context". An error event inside a stream gets this status, so it reads
 * (overflow or not, retryable or not) like the same error answered outright.
 */
export const ANTHROPIC_ERROR_STATUSES: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

export function createAnthropicStreamState(): AnthropicStreamState {
  return { blocks: new Map(), usage: {}, stopped: false };
}

/** Folds one event into the state; returns the events it carries. */
export function readAnthropicEvent(state: AnthropicStreamState, event: unknown): ModelStreamEvent[] {
  if (!isRecord(event)) return [];
  switch (event.type) {
    case 'message_start': {
      const message = isRecord(event.message) ? event.message : {};
      state.message = message;
      if (isRecord(message.usage)) state.usage = { ...message.usage };
      return [];
    }
    case 'content_block_start': {
      if (typeof event.index !== 'number' || !isRecord(event.content_block)) return [];
      const block = { ...event.content_block };
      state.blocks.set(event.index, { block, json: '' });
      if (block.type === 'text' && typeof block.text === 'string' && block.text !== '')
        return [{ type: 'text-delta', text: block.text }];
      if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking !== '')
        return [{ type: 'reasoning-delta', text: block.thinking }];
      if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string')
        return [{ type: 'tool-call-start', callId: block.id, name: block.name }];
      return [];
    }
    case 'content_block_delta':
      return readDelta(state, event);
    case 'content_block_stop': {
      const draft = typeof event.index === 'number' ? state.blocks.get(event.index) : undefined;
      if (draft && draft.json.trim() !== '') {
        try {
          draft.block.input = JSON.parse(draft.json) as unknown;
        } catch {
          // Input cut off (max_tokens inside a tool call): keep what the start said, as the API does.
        }
      }
      return [];
    }
    case 'message_delta': {
      const delta = isRecord(event.delta) ? event.delta : {};
      if ('stop_reason' in delta) state.stopReason = delta.stop_reason;
      if ('stop_sequence' in delta) state.stopSequence = delta.stop_sequence;
      // Cumulative whole-message figures, left out (or null) when they do not apply: overwrite, never add.
      if (isRecord(event.usage)) {
        for (const [key, value] of Object.entries(event.usage))
          if (value !== null && value !== undefined) state.usage[key] = value;
      }
      return [];
    }
    case 'message_stop':
      state.stopped = true;
      return [];
    default:
      return [];
  }
}

function readDelta(state: AnthropicStreamState, event: Record<string, unknown>): ModelStreamEvent[] {
  const draft = typeof event.index === 'number' ? state.blocks.get(event.index) : undefined;
  const delta = isRecord(event.delta) ? event.delta : undefined;
  if (!draft || !delta) return [];
  const { block } = draft;
  switch (delta.type) {
    case 'text_delta': {
      if (typeof delta.text !== 'string' || block.type !== 'text') return [];
      block.text = `${typeof block.text === 'string' ? block.text : ''}${delta.text}`;
      return delta.text === '' ? [] : [{ type: 'text-delta', text: delta.text }];
    }
    case 'thinking_delta': {
      if (typeof delta.thinking !== 'string' || block.type !== 'thinking') return [];
      block.thinking = `${typeof block.thinking === 'string' ? block.thinking : ''}${delta.thinking}`;
      return delta.thinking === '' ? [] : [{ type: 'reasoning-delta', text: delta.thinking }];
    }
    case 'signature_delta': {
      if (typeof delta.signature === 'string' && block.type === 'thinking') block.signature = delta.signature;
      return [];
    }
    case 'input_json_delta': {
      if (typeof delta.partial_json !== 'string') return [];
      draft.json += delta.partial_json;
      return block.type === 'tool_use' && typeof block.id === 'string' && delta.partial_json !== ''
        ? [{ type: 'tool-call-delta', callId: block.id, argsDelta: delta.partial_json }]
        : [];
    }
    default:
      return [];
  }
}

/** The Message body the stream adds up to. */
export function messageOfStream(state: AnthropicStreamState): Record<string, unknown> {
  const content = [...state.blocks.entries()].sort(([a], [b]) => a - b).map(([, draft]) => draft.block);
  return {
    ...state.message,
    content,
    stop_reason: state.stopReason ?? state.message?.stop_reason ?? null,
    stop_sequence: state.stopSequence ?? state.message?.stop_sequence ?? null,
    usage: state.usage,
  };
}
