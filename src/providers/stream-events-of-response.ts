import type { ModelClient, ModelResponse, ModelStreamEvent } from './model-client.ts';

/**
 * The events a whole answer stands for, for a server that answered a streaming request with one JSON body
 * (servers that ignore `stream: true`): each reasoning and text part as one delta, each tool call as a
 * start and its arguments, then the response.
 */
export function streamEventsOfResponse(response: ModelResponse): ModelStreamEvent[] {
  const events: ModelStreamEvent[] = [];
  for (const part of response.message.parts) {
    if (part.type === 'reasoning' && part.text !== '')
      events.push({ type: 'reasoning-delta', text: part.text });
    else if (part.type === 'text' && part.text !== '') events.push({ type: 'text-delta', text: part.text });
    else if (part.type === 'tool-call') {
      events.push({ type: 'tool-call-start', callId: part.callId, name: part.name });
      if (part.args !== '')
        events.push({ type: 'tool-call-delta', callId: part.callId, argsDelta: part.args });
    }
  }
  events.push({ type: 'response', response });
  return events;
}

/**
 * A whole ModelClient from a `complete()` alone: `stream()` answers with the complete response as one
 * delta per part. For clients that cannot stream (an in-process model, a batch endpoint) and for tests.
 */
export function withStreamFromComplete(
  client: Pick<ModelClient, 'provider' | 'complete'> & Partial<ModelClient>,
): ModelClient {
  return {
    ...client,
    provider: client.provider,
    complete: (request) => client.complete(request),
    async *stream(request) {
      yield* streamEventsOfResponse(await client.complete(request));
    },
  };
}
