/**
 * `GET /api/events`: a server-sent event stream of the caller's own calls (`event: call`, data
 * `{session, call}`), from the proxy's call history. A comment every few seconds keeps idle connections
 * open through proxies; the subscription ends when the client goes.
 */
import { formatSseEvent } from '../sse.ts';
import type { CallEvent, CallHistory } from './call-history.ts';

/** Streams open at once; past it, a new one is refused (503). */
export const MAX_EVENT_STREAMS = 64;
const KEEPALIVE_MS = 15_000;

export function callEventStream(
  history: CallHistory,
  ownerPrefix: string,
  signal: AbortSignal,
): Response | undefined {
  if (history.listeners >= MAX_EVENT_STREAMS) return undefined;
  const encoder = new TextEncoder();
  let stop = (): void => {};
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string): void => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop();
        }
      };
      const unsubscribe = history.subscribe((event: CallEvent) => {
        if (!event.sessionId.startsWith(ownerPrefix)) return;
        send(
          formatSseEvent({
            event: 'call',
            data: JSON.stringify({ session: event.publicId, call: event.call }),
          }),
        );
      });
      const timer = setInterval(() => send(': keepalive\n\n'), KEEPALIVE_MS);
      timer.unref?.();
      stop = () => {
        unsubscribe();
        clearInterval(timer);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        stop();
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      };
      signal.addEventListener('abort', onAbort);
      // A first comment, so the client sees the stream open at once.
      send(': connected\n\n');
    },
    cancel() {
      stop();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-store',
      'x-accel-buffering': 'no',
    },
  });
}
