/**
 * OpenAI Chat Completions, as the proxy reads and writes it (`POST /v1/chat/completions`).
 *
 * The client's leading `system`/`developer` messages are the system prompt; every other message is
 * history. Streams: chunks pass through as they arrive. ctxkit's read-back calls are taken out of
 * `delta.tool_calls` (the client's own calls renumbered so their indexes stay 0, 1, …), the finish chunk,
 * the usage chunk ctxkit asked for and `[DONE]` are held to the end, and a further round's chunks continue
 * the same message (its id kept).
 */
import { z } from 'zod';
import type { MessageDraft } from '../../adapters/finish-transcript.ts';
import { recoverToolNames } from '../../adapters/finish-transcript.ts';
import {
  DEFAULT_TO_OPENAI_CHAT_OPTIONS,
  fromOpenAIChatCompletion,
  OpenAIChatReader,
  openAIChatMessageOf,
  toOpenAIChat,
} from '../../adapters/openai-chat.ts';
import { toOpenAITool } from '../../adapters/tool-definitions.ts';
import { readOffloadedTool } from '../../agent/read-offloaded-tool.ts';
import { isRecord } from '../../core/is-record.ts';
import type { Message, MessageInput } from '../../core/message.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { WorkSlices } from '../../core/work-slices.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import {
  completionOfStream,
  createOpenAIStreamState,
  readOpenAIChunk,
} from '../../providers/openai-stream.ts';
import type { SseEvent } from '../sse.ts';
import { sseJson } from '../sse.ts';
import { clientListItem, clientMembers } from './raw-json.ts';
import { rememberedRuns, renderView } from './render-view.ts';
import {
  asWireRequestError,
  continueHistoryInSlices,
  firstOriginFrom,
  historyWithIdsInSlices,
  parseBody,
  positiveIntegerField,
  recoverToolNamesFrom,
  splitReadCalls,
} from './wire-common.ts';
import {
  type ReadReply,
  type StreamContinuation,
  type StreamRelay,
  type StreamRelayOptions,
  type UpstreamAdditions,
  type WireFormat,
  type WireRequest,
  WireRequestError,
} from './wire-format.ts';

const requestSchema = z.looseObject({
  model: z.string().min(1, 'must name a model'),
  messages: z.array(z.unknown()).min(1, 'must hold at least one message'),
  stream: z.boolean().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
});

const SYSTEM_ROLES = new Set(['system', 'developer']);

export const openAIWire: WireFormat = {
  name: 'openai',
  credentials: 'openai',
  provider: 'openai-compatible',

  listMember: 'messages',

  parseRequest(body) {
    return readRequest(body, undefined) as Promise<WireRequest>;
  },

  parseRequestAfter(body, previous, kept) {
    return readRequest(body, { previous, kept });
  },

  upstreamBody(request, prepared, additions) {
    const lead = request.leadingWire.length;
    const system =
      prepared.system === request.system
        ? request.leadingWire.map((message, index) => clientListItem(request, index, message))
        : prepared.system === ''
          ? []
          : [{ role: 'system', content: prepared.system }];
    const history = renderView<unknown>(prepared.messages, request, convertedRuns, (wireIndex) =>
      clientListItem(request, lead + wireIndex, request.wire[wireIndex]),
    );
    const body: Record<string, unknown> = {
      ...clientMembers(request),
      messages: [...system, ...history, ...roundMessages(additions)],
    };
    if (additions.readTool && request.ownTool !== undefined) {
      const tools = Array.isArray(request.body.tools) ? request.body.tools : [];
      body.tools = [...tools, toOpenAITool(readOffloadedTool)];
    }
    if (request.stream && additions.includeUsage) {
      const options = isRecord(request.body.stream_options) ? request.body.stream_options : {};
      body.stream_options = { ...options, include_usage: true };
    }
    return body;
  },

  streamEnd: 'a finish_reason and [DONE]',

  incompleteAnswer(json) {
    if (json === undefined) return 'its body is not complete JSON';
    if (!isRecord(json) || !Array.isArray(json.choices) || json.choices.length === 0)
      return 'its body holds no choices';
    // A finished choice says why it finished; a body without one is not a whole answer.
    if (!json.choices.every((choice) => isRecord(choice) && typeof choice.finish_reason === 'string'))
      return 'a choice has no finish_reason';
    return undefined;
  },

  readAnswer(json, ownTool) {
    return splitReadCalls(fromOpenAIChatCompletion(json), ownTool);
  },

  clientAnswer(json, ownTool) {
    if (ownTool === undefined || !isRecord(json) || !Array.isArray(json.choices)) return json;
    return {
      ...json,
      choices: json.choices.map((choice) => (isRecord(choice) ? withoutReadCalls(choice, ownTool) : choice)),
    };
  },

  createRelay(options) {
    return new OpenAIRelay(options);
  },

  continuation(relay, previous) {
    const openai = relay as OpenAIRelay;
    return {
      messageId: previous?.messageId ?? openai.messageId,
      blocks: 0,
      toolCalls: openai.clientToolCalls,
    };
  },

  errorBody(status, message, field) {
    return { error: { message, type: openAIErrorType(status), param: field ?? null, code: null } };
  },

  errorEvent(status, message) {
    return { data: JSON.stringify(openAIWire.errorBody(status, message)) };
  },
};

/** Runs of changed view messages as Chat Completions messages, remembered (see `rememberedRuns`). */
const convertedRuns = rememberedRuns(
  new WeakMap(),
  (run: Message[]) => toOpenAIChat({ system: [], messages: run }) as unknown[],
);

/** Requests whose messages hold a legacy function call or result: read again whole (see `readRequest`). */
const withLegacyCalls = new WeakSet<WireRequest>();

/**
 * The request read from its body; with `prior`, only the messages after the first `kept` (which are
 * `previous`'s, byte for byte) are read, and the result is the same. Undefined when `prior` cannot be
 * used: the kept part does not reach past the system prompt, or it holds legacy function calls (whose
 * ids the reader pairs by what came before).
 */
async function readRequest(
  body: unknown,
  prior: { previous: WireRequest; kept: number } | undefined,
): Promise<WireRequest | undefined> {
  const slices = new WorkSlices();
  const request = parseBody(requestSchema, body);
  const all = request.messages;
  let lead = 0;
  const system: string[] = [];
  if (prior) {
    lead = prior.previous.leadingWire.length;
    if (prior.kept <= lead || prior.kept > all.length || withLegacyCalls.has(prior.previous))
      return undefined;
  } else
    while (
      lead < all.length &&
      isRecord(all[lead]) &&
      SYSTEM_ROLES.has(String((all[lead] as { role?: unknown }).role))
    ) {
      system.push(systemText(all[lead], `messages[${lead}]`));
      lead += 1;
    }
  const reader = new OpenAIChatReader(undefined);
  const origin: number[] = [];
  // The drafts of the kept messages: the previous request's history, as it was read.
  const keptWire = prior ? prior.kept - lead : 0;
  const keptDrafts = prior ? firstOriginFrom(prior.previous.origin, keptWire) : 0;
  const keptHistory = prior ? prior.previous.history.slice(0, keptDrafts) : [];
  for (let index = 0; index < keptDrafts; index++) {
    reader.drafts.push(keptHistory[index] as MessageDraft);
    origin.push(prior?.previous.origin[index] as number);
  }
  let legacy = false;
  try {
    for (let index = lead + keptWire; index < all.length; index++) {
      const before = reader.drafts.length;
      const value = all[index];
      if (isRecord(value) && (value.role === 'function' || value.function_call != null)) legacy = true;
      reader.read({ value, field: `messages[${index}]` });
      for (let added = before; added < reader.drafts.length; added++) origin.push(index - lead);
      if (slices.due()) await slices.next();
    }
  } catch (error) {
    throw asWireRequestError(error);
  }
  const drafts: MessageDraft[] = reader.drafts;
  // The kept drafts' names are as they were recovered; a new result's call may be among them.
  if (prior) recoverToolNamesFrom(drafts, keptDrafts);
  else recoverToolNames(drafts);
  const tools = (request.tools ?? []).map(toolDefinitionOf);
  const maxOutputTokens =
    positiveIntegerField(request, 'max_completion_tokens') ?? positiveIntegerField(request, 'max_tokens');
  const clientToolNames = new Set(tools.map((tool) => tool.name));
  const read = prior
    ? await continueHistoryInSlices(prior.previous, keptDrafts, drafts.slice(keptDrafts), slices)
    : await historyWithIdsInSlices(drafts, slices);
  const out: WireRequest = {
    body: request,
    model: request.model,
    stream: request.stream === true,
    system: prior ? prior.previous.system : system.join('\n\n'),
    tools,
    ...read,
    origin,
    wire: all.slice(lead),
    ...(maxOutputTokens !== undefined && { maxOutputTokens }),
    clientToolNames,
    // Legacy `functions` cannot go beside `tools`: such a request gets no tool of ctxkit's.
    ownTool:
      clientToolNames.has(READ_OFFLOADED_TOOL) || request.functions !== undefined
        ? undefined
        : READ_OFFLOADED_TOOL,
    leadingWire: all.slice(0, lead),
  };
  if (legacy) withLegacyCalls.add(out);
  return out;
}

/** OpenAI's error `type` for a status (Chat Completions and the Responses API alike). */
export function openAIErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function systemText(message: unknown, field: string): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part, index) => {
        if (isRecord(part) && typeof part.text === 'string') return part.text;
        throw new WireRequestError('a system message part must be text', `${field}.content[${index}]`);
      })
      .join('\n');
  throw new WireRequestError('must be a string or an array of text parts', `${field}.content`);
}

function toolDefinitionOf(tool: Record<string, unknown>, index: number): ToolDefinition {
  const fn = tool.function;
  if (tool.type === 'function') {
    if (!isRecord(fn) || typeof fn.name !== 'string' || fn.name === '')
      throw new WireRequestError('a function tool needs function.name', `tools[${index}].function.name`);
    return {
      name: fn.name,
      ...(typeof fn.description === 'string' && { description: fn.description }),
      ...(isRecord(fn.parameters) && { parameters: fn.parameters }),
    };
  }
  // Another kind of tool (a custom or hosted one): counted by its definition as written.
  const name = typeof tool.name === 'string' && tool.name !== '' ? tool.name : String(tool.type);
  if (name === '') throw new WireRequestError('a tool needs a type', `tools[${index}].type`);
  return { name, description: JSON.stringify(tool) };
}

function roundMessages(additions: UpstreamAdditions): unknown[] {
  return additions.rounds.flatMap((round) => [
    openAIChatMessageOf(round.reply as Message, DEFAULT_TO_OPENAI_CHAT_OPTIONS),
    ...round.results.map((result) => ({
      role: 'tool',
      tool_call_id: result.callId,
      content: result.content,
    })),
  ]);
}

function withoutReadCalls(choice: Record<string, unknown>, ownTool: string): Record<string, unknown> {
  const message = choice.message;
  if (!isRecord(message) || !Array.isArray(message.tool_calls)) return choice;
  const calls = message.tool_calls.filter(
    (call) => !(isRecord(call) && isRecord(call.function) && call.function.name === ownTool),
  );
  if (calls.length === message.tool_calls.length) return choice;
  const { tool_calls: _calls, ...rest } = message;
  const stripped =
    calls.length > 0 ? { ...rest, tool_calls: calls } : { ...rest, content: rest.content ?? '' };
  return {
    ...choice,
    message: stripped,
    ...(calls.length === 0 && choice.finish_reason === 'tool_calls' && { finish_reason: 'stop' }),
  };
}

/** One upstream stream, relayed. */
class OpenAIRelay implements StreamRelay {
  readonly #options: StreamRelayOptions;
  /** Everything the upstream sent, folded: the model's whole answer. */
  readonly #full = createOpenAIStreamState();
  /** What the client was sent, folded: the answer it sees. */
  readonly #visible = createOpenAIStreamState();
  /** Upstream tool-call index → the client's index, or 'read' for ctxkit's own. */
  readonly #calls = new Map<number, number | 'read'>();
  #clientCalls: number;
  #held: SseEvent[] = [];
  #started = false;
  #finished = false;
  #done = false;
  error: { event: SseEvent; json: unknown } | undefined;
  messageId: string | undefined;

  constructor(options: StreamRelayOptions) {
    this.#options = options;
    this.#clientCalls = options.continuing?.toolCalls ?? 0;
    this.messageId = options.continuing?.messageId;
  }

  get started(): boolean {
    return this.#started;
  }

  get clientToolCalls(): number {
    return this.#clientCalls;
  }

  get ended(): boolean {
    return this.#done;
  }

  get complete(): boolean {
    return this.#done && this.#finished;
  }

  push(event: SseEvent): SseEvent[] {
    if (this.#done) return [];
    if (event.data === '[DONE]') {
      this.#done = true;
      this.#held.push(event);
      return [];
    }
    const chunk = sseJson(event);
    // OpenAI-compatible servers send an error as a chunk with `error` (OpenRouter adds a choice that
    // finishes with "error"), or as an `error` event.
    if (event.event === 'error' || (isRecord(chunk) && chunk.error != null)) {
      this.error = { event, json: chunk };
      return [];
    }
    if (!isRecord(chunk)) return [event];
    readOpenAIChunk(this.#full, chunk);
    if (this.messageId === undefined && typeof chunk.id === 'string') this.messageId = chunk.id;
    const rewritten = this.#rewrite(chunk);
    if (rewritten === undefined) return [];
    const choices = Array.isArray(rewritten.choices) ? rewritten.choices : [];
    const finishing = choices.some((choice) => isRecord(choice) && choice.finish_reason != null);
    const usageOnly = choices.length === 0 && rewritten.usage != null;
    if (usageOnly) {
      // The usage chunk ctxkit asked for reaches only a client that asked for it too, at the end.
      if (this.#options.clientWantsUsage) this.#held.push({ ...event, data: JSON.stringify(rewritten) });
      return [];
    }
    if (finishing) {
      this.#finished = true;
      // The finish is held to the end (another round may follow); what the chunk says beside it goes now.
      this.#held.push({ ...event, data: JSON.stringify(finishPart(rewritten)) });
      const said = contentPart(rewritten);
      if (said === undefined) return [];
      readOpenAIChunk(this.#visible, said);
      this.#started = true;
      return [{ ...event, data: JSON.stringify(said) }];
    }
    readOpenAIChunk(this.#visible, rewritten);
    if (hasContent(choices)) this.#started = true;
    return [{ ...event, data: JSON.stringify(rewritten) }];
  }

  finish(): SseEvent[] {
    const held = this.#held.map((event) => {
      const chunk = sseJson(event);
      if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return event;
      readOpenAIChunk(this.#visible, chunk);
      const choices = chunk.choices.map((choice) =>
        isRecord(choice) && choice.finish_reason === 'tool_calls' && this.#clientCalls === 0
          ? { ...choice, finish_reason: 'stop' }
          : choice,
      );
      return { ...event, data: JSON.stringify({ ...chunk, choices }) };
    });
    this.#held = [];
    this.#started = true;
    return held;
  }

  reply(): ReadReply {
    const full = completionOfStream(this.#full);
    const visible = completionOfStream(this.#visible);
    const split = splitReadCalls(fromOpenAIChatCompletion(full), this.#options.ownTool);
    const seen: MessageInput = fromOpenAIChatCompletion({ ...visible, usage: full.usage });
    return { ...split, visible: seen };
  }

  #rewrite(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
    const id = this.#options.continuing?.messageId;
    const out: Record<string, unknown> = id !== undefined ? { ...chunk, id } : { ...chunk };
    // `include_usage`, which ctxkit asked for, puts `"usage": null` on every chunk: not for a client that
    // did not ask.
    if (out.usage === null && !this.#options.clientWantsUsage) delete out.usage;
    if (!Array.isArray(chunk.choices)) return out;
    let dropped = false;
    out.choices = chunk.choices.map((choice) => {
      if (!isRecord(choice) || !isRecord(choice.delta) || !Array.isArray(choice.delta.tool_calls))
        return choice;
      const calls: unknown[] = [];
      for (const call of choice.delta.tool_calls) {
        if (!isRecord(call)) continue;
        const index = typeof call.index === 'number' ? call.index : 0;
        let target = this.#calls.get(index);
        if (target === undefined) {
          const name = isRecord(call.function) ? call.function.name : undefined;
          target =
            this.#options.ownTool !== undefined && name === this.#options.ownTool
              ? 'read'
              : this.#clientCalls++;
          this.#calls.set(index, target);
        }
        if (target === 'read') continue;
        calls.push({ ...call, index: target });
      }
      dropped = dropped || calls.length < choice.delta.tool_calls.length;
      const { tool_calls: _calls, ...delta } = choice.delta;
      return { ...choice, delta: calls.length > 0 ? { ...delta, tool_calls: calls } : delta };
    });
    // A chunk that only carried ctxkit's call says nothing to the client.
    if (dropped && (out.choices as unknown[]).every((choice) => isRecord(choice) && isEmptyDelta(choice)))
      return undefined;
    return out;
  }
}

function isEmptyDelta(choice: Record<string, unknown>): boolean {
  const delta = isRecord(choice.delta) ? choice.delta : {};
  return (
    choice.finish_reason == null &&
    Object.entries(delta).every(
      ([key, value]) => key === 'role' || value === null || value === undefined || value === '',
    )
  );
}

/** A finishing chunk without its finish: its deltas, when it has any. */
function contentPart(chunk: Record<string, unknown>): Record<string, unknown> | undefined {
  const choices = (chunk.choices as unknown[]).map((choice) =>
    isRecord(choice) ? { ...choice, finish_reason: null } : choice,
  );
  if (!hasContent(choices)) return undefined;
  const { usage: _usage, ...rest } = chunk;
  return { ...rest, choices };
}

/** A finishing chunk with its deltas emptied: the finish reason (and usage, when it rides along). */
function finishPart(chunk: Record<string, unknown>): Record<string, unknown> {
  return {
    ...chunk,
    choices: (chunk.choices as unknown[]).map((choice) =>
      isRecord(choice) && hasContent([choice]) ? { ...choice, delta: {} } : choice,
    ),
  };
}

function hasContent(choices: readonly unknown[]): boolean {
  return choices.some((choice) => {
    if (!isRecord(choice)) return false;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    return (
      (typeof delta.content === 'string' && delta.content !== '') ||
      (typeof delta.refusal === 'string' && delta.refusal !== '') ||
      (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') ||
      (typeof delta.reasoning === 'string' && delta.reasoning !== '') ||
      Array.isArray(delta.tool_calls) ||
      isRecord(delta.function_call)
    );
  });
}

export type { StreamContinuation };
