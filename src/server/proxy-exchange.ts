/**
 * The parts of a model call through the proxy that both ways of answering share: the call's state, the
 * upstream request, the read-back rounds answered from the session's store, and a non-streamed exchange.
 */

import { readBackRoom, readOffloadedResultPart } from '../agent/read-offloaded-tool.ts';
import type { ContextEvent } from '../core/events.ts';
import type { MessageInput, ToolCallPart, ToolResultPart, Usage } from '../core/message.ts';
import type { PrepareResult } from '../engine/context-manager.ts';
import { isContextOverflow } from '../providers/is-context-overflow.ts';
import { modelCallErrorFrom } from '../providers/read-provider-error.ts';
import { incompleteBody } from './answer-completeness.ts';
import type { ProxyCallDeps, ProxyCallInput } from './proxy-call-deps.ts';
import { textResponse } from './redact-relay.ts';
import type { ResolvedSession } from './resolve-session.ts';
import {
  readUpstreamText,
  responseHeaders,
  UpstreamAnswerCutOffError,
  UpstreamError,
  UpstreamUnreachableError,
} from './upstream-http.ts';
import type { WindowQuestion } from './upstream-window.ts';
import { type MarkedUpstreamBody, withAnthropicCacheMarks } from './wire/anthropic-cache-marks.ts';
import { bodyChunks } from './wire/raw-json.ts';
import type { ReadBackRound, ReadReply, WireRequest } from './wire/wire-format.ts';

export interface UpstreamAnswer {
  status: number;
  headers: Headers;
  body: string;
}

/** A response (`relaying`: a stream whose end releases the session), or an overflow to recover from. */
export type Exchange =
  | { response: Response; relaying?: boolean }
  | { overflow: unknown; answer: UpstreamAnswer };

export interface CallState {
  deps: ProxyCallDeps;
  input: ProxyCallInput;
  request: WireRequest;
  session: ResolvedSession;
  upstream: { base: string; url: string };
  upstreamHeaders: Headers;
  /** What the call's window is asked with (again after an overflow names the limit). */
  windowQuestion: WindowQuestion;
  started: number;
  rounds: number;
  /** Every event the manager emitted for this call (sync, prepare, recovery), in order. */
  events: ContextEvent[];
  headersOf(prepared: PrepareResult): Record<string, string>;
  /** Keeps the usage of the reply the client got (for its copy in the next request) and frees the session. */
  finish(reply: MessageInput | undefined): Promise<void>;
}

export async function send(call: CallState, rendered: Record<string, unknown>): Promise<Response> {
  const marked = withCacheMarks(call, rendered);
  // The client's bytes where ctxkit kept its values, streamed as they lie, with their length said (no
  // chunked encoding): a string body is checked, measured and encoded again by fetch, a buffer copied,
  // each costing more than the rest of the sending.
  const { chunks, length } = bodyChunks(marked?.body ?? rendered);
  call.upstreamHeaders.set('content-length', String(length));
  try {
    const response = await call.deps.fetch(`${call.upstream.url}${call.input.search}`, {
      method: 'POST',
      headers: call.upstreamHeaders,
      body: streamOf(chunks),
      duplex: 'half',
      signal: call.input.signal,
    } as RequestInit);
    // An entry exists once the upstream took the request: the next request reads where this one wrote.
    if (response.ok) marked?.sent();
    return response;
  } catch (error) {
    // An UpstreamError (the upstream went silent) is not one that could not be reached.
    if (call.input.signal.aborted || UpstreamError.isInstance(error)) throw error;
    throw new UpstreamUnreachableError(call.upstream.url, error);
  }
}

const CACHE_CONTROL_BYTES = Buffer.from('"cache_control"');

/**
 * ctxkit's prompt-cache breakpoints on an Anthropic body whose client marked none (`withAnthropicCacheMarks`).
 * Whether the client marked any is read from its bytes: a body that holds the key anywhere, even in a
 * message's text, is taken as marked and sent as rendered, without reading the whole body again.
 */
function withCacheMarks(call: CallState, rendered: Record<string, unknown>): MarkedUpstreamBody | undefined {
  const memory = call.deps.promptCacheMemory;
  if (memory === undefined || call.input.format.name !== 'anthropic') return undefined;
  const { bytes } = call.input.read;
  if (Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(CACHE_CONTROL_BYTES))
    return undefined;
  return withAnthropicCacheMarks(rendered, { clientBody: undefined, memory });
}

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

export async function jsonExchange(call: CallState, prepared: PrepareResult): Promise<Exchange> {
  const { format } = call.input;
  const { maxReadBackRounds } = call.deps;
  const rounds: ReadBackRound[] = [];
  let firstUsage: Usage | undefined;
  for (let round = 0; ; round++) {
    const body = format.upstreamBody(call.request, prepared, {
      readTool: prepared.pointers.length > 0 || rounds.length > 0,
      rounds,
      includeUsage: false,
    });
    const response = await send(call, body);
    const answer: UpstreamAnswer = {
      status: response.status,
      headers: response.headers,
      body: await readUpstreamText(response, call.input.signal),
    };
    const json = parseJson(answer.body);
    if (!response.ok) {
      const error = modelCallErrorFrom(format.provider, response.status, answer.body, json, response.headers);
      if (round === 0 && isContextOverflow(error)) return { overflow: error, answer };
      return { response: passThrough(answer, call.headersOf(prepared)) };
    }
    const incomplete = incompleteBody(format, answer.body, json);
    if (incomplete !== undefined) throw new UpstreamAnswerCutOffError(incomplete);
    let reply: ReadReply;
    try {
      reply = format.readAnswer(json, call.request.ownTool);
    } catch {
      // Not an answer ctxkit can read: the client gets it as it came, and nothing is logged.
      return { response: passThrough(answer, call.headersOf(prepared)) };
    }
    firstUsage ??= reply.full.usage;
    if (reply.readCalls.length > 0 && reply.clientCalls === 0 && round < maxReadBackRounds) {
      rounds.push({ reply: reply.full, results: await readBacks(call, prepared, reply.readCalls) });
      call.rounds = rounds.length;
      call.deps.metrics?.readBackRound(format.name);
      continue;
    }
    await call.finish(withFirstUsage(reply.visible, firstUsage));
    const out = format.clientAnswer(json, call.request.ownTool);
    return {
      response: textResponse(JSON.stringify(out), {
        status: response.status,
        headers: {
          ...responseHeaders(response.headers),
          'content-type': 'application/json',
          ...call.headersOf(prepared),
        },
      }),
    };
  }
}

/** The read-back calls answered from the session's own store, each sized to the room the context has. */
export async function readBacks(
  call: CallState,
  prepared: PrepareResult,
  calls: readonly ToolCallPart[],
): Promise<ToolResultPart[]> {
  const results: ToolResultPart[] = [];
  const maxChars = readBackRoom(prepared.stats);
  for (const readCall of calls) {
    const result = await readOffloadedResultPart(call.deps.manager, call.session.sessionId, readCall, {
      maxChars,
    });
    call.deps.logger?.info(
      {
        session: call.session.publicId,
        call: readCall.callId,
        chars: result.content.length,
        error: result.isError,
      },
      'read-back answered by the proxy',
    );
    results.push(result);
  }
  return results;
}

export async function readAnswer(call: CallState, response: Response): Promise<UpstreamAnswer> {
  return {
    status: response.status,
    headers: response.headers,
    body: await readUpstreamText(response, call.input.signal),
  };
}

/** The reply's usage: its input as the first round saw it (the request ctxkit prepared), its own output. */
export function withFirstUsage(reply: MessageInput, first: Usage | undefined): MessageInput {
  if (!first || !reply.usage || first === reply.usage) return reply;
  return { ...reply, usage: { ...first, outputTokens: reply.usage.outputTokens } };
}

export function passThrough(answer: UpstreamAnswer, headers: Record<string, string>): Response {
  return textResponse(answer.body, {
    status: answer.status,
    headers: { ...responseHeaders(answer.headers), ...headers },
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
