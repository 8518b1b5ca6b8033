/**
 * Anthropic answers of the fake provider server with their thinking signed by the server's own signer:
 * each `thinking` block's signature made for its text, each `redacted_thinking` block's data issued
 * afresh. A scripted answer may carry any signature (or none); what the client gets is always one the
 * server will accept back, and only unchanged.
 *
 * Plain message bodies have their blocks rewritten; streamed answers (`events`) have the signature of
 * each thinking block, sent in its `signature_delta`, made for the text its `thinking_delta`s carried, and
 * the data of each redacted block, sent whole in its `content_block_start`, replaced.
 */
import type { HttpReply, SseEvent } from './fake-provider-server-types.ts';
import type { ThinkingSigner } from './thinking-signer.ts';

export function signedAnthropicReply(reply: HttpReply, signer: ThinkingSigner): HttpReply {
  if ((reply.status ?? 200) >= 300) return reply;
  if (reply.events !== undefined) return { ...reply, events: signedEvents(reply.events, signer) };
  if (!isRecord(reply.body) || reply.body.type !== 'message' || !Array.isArray(reply.body.content))
    return reply;
  return {
    ...reply,
    body: { ...reply.body, content: reply.body.content.map((block) => signed(block, signer)) },
  };
}

function signed(block: unknown, signer: ThinkingSigner): unknown {
  if (!isRecord(block)) return block;
  if (block.type === 'thinking' && typeof block.thinking === 'string')
    return { ...block, signature: signer.sign(block.thinking) };
  if (block.type === 'redacted_thinking') return { ...block, data: signer.redactedData() };
  return block;
}

function signedEvents(events: readonly SseEvent[], signer: ThinkingSigner): SseEvent[] {
  const thinking = new Map<number, string>();
  return events.map((event) => {
    const json = parse(event.data);
    if (!isRecord(json) || typeof json.index !== 'number') return event;
    const index = json.index;
    if (json.type === 'content_block_start' && isRecord(json.content_block)) {
      if (json.content_block.type === 'thinking')
        thinking.set(
          index,
          typeof json.content_block.thinking === 'string' ? json.content_block.thinking : '',
        );
      if (json.content_block.type !== 'redacted_thinking') return event;
      return rewritten(event, { ...json, content_block: signed(json.content_block, signer) });
    }
    if (json.type !== 'content_block_delta' || !isRecord(json.delta)) return event;
    const text = thinking.get(index);
    if (text === undefined) return event;
    if (json.delta.type === 'thinking_delta' && typeof json.delta.thinking === 'string') {
      thinking.set(index, text + json.delta.thinking);
      return event;
    }
    if (json.delta.type === 'signature_delta')
      return rewritten(event, { ...json, delta: { ...json.delta, signature: signer.sign(text) } });
    return event;
  });
}

function rewritten(event: SseEvent, json: Record<string, unknown>): SseEvent {
  return { ...event, data: JSON.stringify(json) };
}

function parse(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
