/**
 * `GET /api/events`: a server-sent event stream of the caller's own calls (`event: call`, data
 * `{session, call}`), from the proxy's call history. A comment every few seconds keeps idle connections
 * open through proxies; the subscription ends when the client goes.
 */
import { formatSseEvent } from '../sse.ts';
import type { CallEvent, CallHistory } from './call-history.ts';

/** Streams open at once; past it, a new one is refused (503). */
export const MAX_EVENT_STREAMS = 64;
/** Streams one owner may hold open, so one client cannot take every stream from the others. */
export const MAX_EVENT_STREAMS_PER_OWNER = 8;
const KEEPALIVE_MS = 15_000;

/** Per history, the streams each owner holds open. */
const openByOwner = new WeakMap<CallHistory, Map<string, number>>();

export function callEventStream(
  history: CallHistory,
  ownerPrefix: string,
  signal: AbortSignal,
): Response | undefined {
  let owners = openByOwner.get(history);
  if (!owners) {
    owners = new Map();
    openByOwner.set(history, owners);
  }
  const held = owners.get(ownerPrefix) ?? 0;
  if (history.listeners >= MAX_EVENT_STREAMS || held >= MAX_EVENT_STREAMS_PER_OWNER) return undefined;
  const counts = owners;
  counts.set(ownerPrefix, held + 1);
  let counted = true;
  const uncount = (): void => {
    if (!counted) return;
    counted = false;
    const left = (counts.get(ownerPrefix) ?? 1) - 1;
    if (left <= 0) counts.delete(ownerPrefix);
    else counts.set(ownerPrefix, left);
  };
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
        uncount();
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
