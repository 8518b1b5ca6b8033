/**
 * Opening a model's stream far enough to know whether it overflowed: the parts before any content (the
 * stream's start, its response metadata, raw chunks, keep-alive pings) are read ahead; an overflow thrown
 * by the call or sent as an error among them is handed back to be recovered, before the caller has seen
 * anything. Works on either specification's stream: only the parts' `type` and an error's `error` are read.
 */
import { isContextOverflow } from '../../providers/is-context-overflow.ts';
import type { AiSdkStreamPart } from './ai-sdk-spec.ts';

/** Stream parts that come before any content: an error after them is still "before the first chunk". */
const PREAMBLE: ReadonlySet<string> = new Set(['stream-start', 'response-metadata', 'raw', 'ping']);

/** A stream part as ctxkit reads it (the parts of both versions fit `AiSdkStreamPart`; see `ai-sdk-spec.test.ts`). */
export const streamPartOf = (part: unknown): AiSdkStreamPart => part as AiSdkStreamPart;

export type Opened<S> = { result: S } | { overflow: unknown };

/**
 * Starts a stream and reads it up to its first chunk of content: an overflow thrown by the call, or sent
 * as an error part before any content, is returned to be recovered; otherwise the stream as it came.
 */
export async function openStream<S extends { stream: ReadableStream<unknown> }>(
  start: () => PromiseLike<S>,
): Promise<Opened<S>> {
  let result: S;
  try {
    result = await start();
  } catch (error) {
    if (isContextOverflow(error)) return { overflow: error };
    throw error;
  }
  const reader = result.stream.getReader();
  const head: unknown[] = [];
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      const part = streamPartOf(next.value);
      if (part.type === 'error' && isContextOverflow(part.error)) {
        await reader.cancel().catch(() => undefined);
        return { overflow: part.error };
      }
      head.push(next.value);
      if (!PREAMBLE.has(part.type)) break;
    }
  } catch (error) {
    if (isContextOverflow(error)) return { overflow: error };
    throw error;
  }
  const stream = new ReadableStream<unknown>({
    start(controller) {
      for (const part of head) controller.enqueue(part);
      if (done) controller.close();
    },
    async pull(controller) {
      if (done) return;
      const next = await reader.read();
      if (next.done) {
        done = true;
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { result: { ...result, stream } };
}
