/**
 * A streamed model call through the proxy: the upstream's events relayed as they arrive, held back until
 * content begins (so an overflow can still be recovered), read-back rounds continued in the same message.
 */

import type { Usage } from '../core/message.ts';
import type { PrepareResult } from '../engine/context-manager.ts';
import { isContextOverflow } from '../providers/is-context-overflow.ts';
import { modelCallErrorFrom } from '../providers/read-provider-error.ts';
import { incompleteBody, streamCutOff } from './answer-completeness.ts';
import {
  type CallState,
  type Exchange,
  parseJson,
  passThrough,
  readAnswer,
  readBacks,
  send,
  type UpstreamAnswer,
  withFirstUsage,
} from './proxy-exchange.ts';
import { formatSseEvent, readSseEvents, type SseEvent, SseEventTooLargeError } from './sse.ts';
import {
  readUpstreamText,
  responseHeaders,
  UpstreamAnswerCutOffError,
  UpstreamError,
} from './upstream-http.ts';
import type {
  ReadBackRound,
  StreamContinuation,
  StreamRelay,
  WireFormat,
  WireRequest,
} from './wire/wire-format.ts';

export async function streamExchange(call: CallState, prepared: PrepareResult): Promise<Exchange> {
  const { format } = call.input;
  const clientWantsUsage = clientAskedForUsage(call.request);
  const bodyOf = () =>
    format.upstreamBody(call.request, prepared, {
      readTool: prepared.pointers.length > 0,
      rounds: [],
      includeUsage: usageAsked(call),
    });
  let response = await send(call, bodyOf());
  let answer: UpstreamAnswer | undefined;
  if (!response.ok || !isEventStream(response)) {
    answer = await readAnswer(call, response);
    if (refusesStreamOptions(call, answer)) {
      // An OpenAI-compatible server that does not take `stream_options`: asked again without it, and
      // never again (the usage is then what its stream carries, if anything).
      call.deps.withoutStreamOptions.add(call.upstream.base);
      response = await send(call, bodyOf());
      answer = response.ok && isEventStream(response) ? undefined : await readAnswer(call, response);
    }
  }
  if (answer !== undefined) {
    if (!response.ok) {
      const error = modelCallErrorFrom(
        format.provider,
        response.status,
        answer.body,
        parseJson(answer.body),
        response.headers,
      );
      if (isContextOverflow(error)) return { overflow: error, answer };
    } else {
      // A 200 that is not a stream passes as it came only when it is a whole answer.
      const incomplete = incompleteBody(format, answer.body, parseJson(answer.body));
      if (incomplete !== undefined) throw new UpstreamAnswerCutOffError(incomplete);
    }
    return { response: passThrough(answer, call.headersOf(prepared)) };
  }
  const relay = format.createRelay({ clientWantsUsage, ownTool: call.request.ownTool });
  const events = readSseEvents(response.body as ReadableStream<Uint8Array>);
  const head: SseEvent[] = [];
  try {
    for (;;) {
      const next = await events.next();
      if (next.done) break;
      head.push(...relay.push(next.value));
      if (relay.error || relay.started || relay.ended) break;
    }
  } catch (error) {
    await events.return(undefined);
    if (call.input.signal.aborted) throw error;
    // Nothing has reached the client yet: it gets a 502 in its own format.
    throw new UpstreamError(upstreamBrokeOff(error), { cause: error });
  }
  if (!relay.error && !relay.started && !relay.complete) {
    // The stream ended before its end marker, nothing of it sent yet: a 502, not an empty answer.
    await events.return(undefined);
    throw new UpstreamAnswerCutOffError(streamCutOff(format));
  }
  if (relay.error) {
    const error = streamErrorOf(format, relay.error);
    if (isContextOverflow(error)) {
      await events.return(undefined);
      const answer: UpstreamAnswer = {
        status: response.status,
        headers: response.headers,
        body: [...head, relay.error.event].map(formatSseEvent).join(''),
      };
      return { overflow: error, answer };
    }
  }
  const rest = relayRest(call, prepared, { relay, events, head, clientWantsUsage });
  return {
    relaying: true,
    response: new Response(byteStream(rest), {
      status: 200,
      headers: {
        ...responseHeaders(response.headers),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        ...call.headersOf(prepared),
      },
    }),
  };
}

/** The rest of a committed stream: the first round's events, then any read-back rounds, then the end. */
export async function* relayRest(
  call: CallState,
  prepared: PrepareResult,
  first: {
    relay: StreamRelay;
    events: AsyncGenerator<SseEvent>;
    head: SseEvent[];
    clientWantsUsage: boolean;
  },
): AsyncGenerator<string> {
  const { format } = call.input;
  const { maxReadBackRounds } = call.deps;
  let finished = false;
  let { relay, events } = first;
  /** Ends the stream with an error event, the session freed first so the client's retry finds it free. */
  const failed = async (event: SseEvent): Promise<string> => {
    await events.return(undefined);
    await call.session.release();
    return formatSseEvent(event);
  };
  try {
    for (const event of first.head) yield formatSseEvent(event);
    const rounds: ReadBackRound[] = [];
    let continuation: StreamContinuation | undefined;
    let firstUsage: Usage | undefined;
    for (let round = 0; ; round++) {
      try {
        if (!relay.error && !relay.ended) {
          for await (const event of events) {
            for (const out of relay.push(event)) yield formatSseEvent(out);
            // Past the end marker nothing is read: an upstream that keeps the stream open is not waited on.
            if (relay.error || relay.ended) break;
          }
        }
      } catch (error) {
        if (call.input.signal.aborted) throw error;
        // The upstream broke off after content reached the client: the client reads an error event.
        yield await failed(format.errorEvent(502, upstreamBrokeOff(error)));
        return;
      }
      if (relay.error) {
        // After content has reached the client, an upstream error ends the stream as the upstream said.
        yield await failed(relay.error.event);
        return;
      }
      if (!relay.complete) {
        // The stream ended (its connection closed, or the upstream ended it) before its end marker: the
        // client reads an error and no clean end, so its SDK raises instead of keeping a partial answer,
        // and the session keeps no reply.
        yield await failed(
          format.errorEvent(502, new UpstreamAnswerCutOffError(streamCutOff(format)).message),
        );
        return;
      }
      const reply = relay.reply();
      firstUsage ??= reply.full.usage;
      if (reply.readCalls.length > 0 && reply.clientCalls === 0 && round < maxReadBackRounds) {
        rounds.push({ reply: reply.full, results: await readBacks(call, prepared, reply.readCalls) });
        call.rounds = rounds.length;
        call.deps.metrics?.readBackRound(format.name);
        continuation = format.continuation(relay, continuation);
        const body = format.upstreamBody(call.request, prepared, {
          readTool: true,
          rounds,
          includeUsage: usageAsked(call),
        });
        let response: Response;
        try {
          response = await send(call, body);
          if (!response.ok || !isEventStream(response)) {
            const text = await readUpstreamText(response, call.input.signal);
            const error = modelCallErrorFrom(
              format.provider,
              response.status,
              text,
              parseJson(text),
              response.headers,
            );
            yield await failed(format.errorEvent(response.ok ? 502 : response.status, error.message));
            return;
          }
        } catch (error) {
          if (call.input.signal.aborted) throw error;
          yield await failed(format.errorEvent(502, upstreamBrokeOff(error)));
          return;
        }
        relay = format.createRelay({
          continuing: continuation,
          clientWantsUsage: first.clientWantsUsage,
          ownTool: call.request.ownTool,
        });
        events = readSseEvents(response.body as ReadableStream<Uint8Array>);
        continue;
      }
      // The reply's usage is kept before the client reads the end, so its next request finds it.
      await call.finish(withFirstUsage(reply.visible, firstUsage));
      finished = true;
      for (const event of relay.finish()) yield formatSseEvent(event);
      return;
    }
  } finally {
    await events.return(undefined);
    if (!finished) await call.session.release();
  }
}

/** What the client reads when the upstream failed mid-answer (never the upstream's raw error text). */
export function upstreamBrokeOff(error: unknown): string {
  if (UpstreamError.isInstance(error))
    return error.message.startsWith('ctxkit proxy') ? error.message : `ctxkit proxy: ${error.message}`;
  if (SseEventTooLargeError.isInstance(error)) return `ctxkit proxy: ${error.message}`;
  const code = (error as { cause?: { code?: unknown } })?.cause?.code;
  return `ctxkit proxy: the upstream broke off its answer${typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code) ? ` (${code})` : ''}`;
}

export function byteStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}

export function streamErrorOf(format: WireFormat, error: { event: SseEvent; json: unknown }): unknown {
  return modelCallErrorFrom(format.provider, undefined, error.event.data, error.json);
}

/** Whether ctxkit asks this upstream for the usage of a stream (`stream_options.include_usage`). */
export function usageAsked(call: CallState): boolean {
  return !call.deps.withoutStreamOptions.has(call.upstream.base);
}

/** A 400 that names `stream_options`, to a request where ctxkit added it and the client did not. */
export function refusesStreamOptions(call: CallState, answer: UpstreamAnswer): boolean {
  return (
    call.input.format.name === 'openai' &&
    answer.status === 400 &&
    usageAsked(call) &&
    call.request.body.stream_options === undefined &&
    /stream_options/i.test(answer.body)
  );
}

export function clientAskedForUsage(request: WireRequest): boolean {
  const options = request.body.stream_options;
  return (
    typeof options === 'object' &&
    options !== null &&
    (options as { include_usage?: unknown }).include_usage === true
  );
}

export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream') && response.body !== null;
}
