/**
 * Anthropic Messages, as the proxy reads and writes it (`POST /v1/messages`).
 *
 * Content blocks ctxkit does not model (server tool use and results, search results, containers…) are
 * read as text holding their JSON, so they are counted and kept; the client's message is sent as written
 * whenever ctxkit leaves it unchanged. Streams: events pass through as they arrive; the blocks of
 * ctxkit's read-back calls are taken out (the client's blocks renumbered so their indexes stay 0, 1, …),
 * `message_delta` and `message_stop` are held to the end, and a further round continues the same message
 * (its `message_start` dropped, its blocks numbered after the ones the client has).
 */
import { z } from 'zod';
import {
  contentBlocks,
  fromAnthropicResponse,
  readAnthropicMessage,
  toAnthropicMessages,
  toolResultBlocks,
} from '../../adapters/anthropic-messages.ts';
import { anthropicMessageSchema } from '../../adapters/anthropic-messages-schema.ts';
import type { MessageDraft } from '../../adapters/finish-transcript.ts';
import { recoverToolNames } from '../../adapters/finish-transcript.ts';
import { validateItem } from '../../adapters/source-item.ts';
import { toAnthropicTool } from '../../adapters/tool-definitions.ts';
import { readOffloadedTool } from '../../agent/read-offloaded-tool.ts';
import { isRecord } from '../../core/is-record.ts';
import type { Message } from '../../core/message.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { WorkSlices } from '../../core/work-slices.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import {
  createAnthropicStreamState,
  messageOfStream,
  readAnthropicEvent,
} from '../../providers/anthropic-stream.ts';
import type { SseEvent } from '../sse.ts';
import { sseJson } from '../sse.ts';
import { clientListItem, clientMembers, RawJson } from './raw-json.ts';
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
  system: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]).nullish(),
  stream: z.boolean().nullish(),
  tools: z.array(z.looseObject({})).nullish(),
});

/** Block types ctxkit reads; any other is carried as text holding its JSON. */
const USER_BLOCKS = new Set(['text', 'image', 'document', 'tool_result']);
const ASSISTANT_BLOCKS = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);
const TOOL_RESULT_BLOCKS = new Set(['text', 'image', 'document']);

type AnthropicWireMessage = { role: 'user' | 'assistant'; content: string | unknown[] };

export const anthropicWire: WireFormat = {
  name: 'anthropic',
  credentials: 'anthropic',
  provider: 'anthropic',

  listMember: 'messages',

  parseRequest(body) {
    return readRequest(body, undefined);
  },

  parseRequestAfter(body, previous, kept) {
    return readRequest(body, { previous, kept });
  },

  upstreamBody(request, prepared, additions) {
    const history = renderView<unknown>(prepared.messages, request, convertedRuns, (wireIndex) =>
      clientListItem(request, wireIndex, request.wire[wireIndex]),
    );
    const messages = joinSameRole([...history, ...roundMessages(additions)]);
    const body: Record<string, unknown> = { ...clientMembers(request), messages };
    if (prepared.system !== request.system) {
      if (prepared.system === '') delete body.system;
      else body.system = prepared.system;
    }
    if (additions.readTool && request.ownTool !== undefined) {
      const tools = Array.isArray(request.body.tools) ? request.body.tools : [];
      body.tools = [...tools, toAnthropicTool(readOffloadedTool)];
    }
    // The Anthropic upstream body is final here, for every call and round (`send` serializes it). Its
    // members and messages may be the client's bytes (`RawJson`): a step that changes a few messages (a
    // mark on some blocks) reads them with `parsedValue` and replaces only those with changed copies, so
    // the others stay bytes; nothing in a `RawJson` is changed in place.
    return body;
  },

  streamEnd: 'message_stop',

  incompleteAnswer(json) {
    if (json === undefined) return 'its body is not complete JSON';
    if (!isRecord(json) || json.type !== 'message' || !Array.isArray(json.content))
      return 'its body is not a message';
    // A non-streamed message always says why it stopped; one without it is not a whole answer.
    if (typeof json.stop_reason !== 'string') return 'the message has no stop_reason';
    return undefined;
  },

  readAnswer(json, ownTool) {
    const content = isRecord(json) && Array.isArray(json.content) ? json.content.map(assistantBlock) : [];
    return splitReadCalls(fromAnthropicResponse(isRecord(json) ? { ...json, content } : json), ownTool);
  },

  clientAnswer(json, ownTool) {
    if (ownTool === undefined || !isRecord(json) || !Array.isArray(json.content)) return json;
    const content = json.content.filter((block) => !isCallOf(block, ownTool));
    if (content.length === json.content.length) return json;
    const stillCalls = content.some((block) => isRecord(block) && block.type === 'tool_use');
    return {
      ...json,
      content,
      ...(!stillCalls && json.stop_reason === 'tool_use' && { stop_reason: 'end_turn' }),
    };
  },

  createRelay(options) {
    return new AnthropicRelay(options);
  },

  continuation(relay, previous) {
    const anthropic = relay as AnthropicRelay;
    return {
      messageId: previous?.messageId ?? anthropic.messageId,
      blocks: anthropic.clientBlocks,
      toolCalls: 0,
    };
  },

  errorBody(status, message) {
    return { type: 'error', error: { type: errorType(status), message } };
  },

  errorEvent(status, message) {
    return { event: 'error', data: JSON.stringify(anthropicWire.errorBody(status, message)) };
  },
};

/** Runs of changed view messages as Anthropic messages, remembered (see `rememberedRuns`). */
const convertedRuns = rememberedRuns(
  new WeakMap(),
  (run: Message[]) => toAnthropicMessages({ system: [], messages: run }).messages as unknown[],
);

/**
 * The request read from its body; with `prior`, only the messages after the first `kept` (which are
 * `previous`'s, byte for byte) are read, and the result is the same (each message is read on its own).
 */
async function readRequest(
  body: unknown,
  prior: { previous: WireRequest; kept: number } | undefined,
): Promise<WireRequest> {
  const slices = new WorkSlices();
  const request = parseBody(requestSchema, body);
  const drafts: MessageDraft[] = [];
  const origin: number[] = [];
  const keptWire = prior ? Math.min(prior.kept, request.messages.length) : 0;
  const keptDrafts = prior ? firstOriginFrom(prior.previous.origin, keptWire) : 0;
  for (let index = 0; index < keptDrafts; index++) {
    drafts.push(prior?.previous.history[index] as MessageDraft);
    origin.push(prior?.previous.origin[index] as number);
  }
  try {
    for (let index = keptWire; index < request.messages.length; index++) {
      const item = { value: readable(request.messages[index]), field: `messages[${index}]` };
      const read = readAnthropicMessage(validateItem(anthropicMessageSchema, item));
      for (const draft of read) {
        drafts.push(draft);
        origin.push(index);
      }
      if (slices.due()) await slices.next();
    }
  } catch (error) {
    throw asWireRequestError(error);
  }
  // The kept drafts' names are as they were recovered; a new result's call may be among them.
  if (prior) recoverToolNamesFrom(drafts, keptDrafts);
  else recoverToolNames(drafts);
  const tools = (request.tools ?? []).map(toolDefinitionOf);
  const maxOutputTokens = positiveIntegerField(request, 'max_tokens');
  const clientToolNames = new Set(tools.map((tool) => tool.name));
  const read = prior
    ? await continueHistoryInSlices(prior.previous, keptDrafts, drafts.slice(keptDrafts), slices)
    : await historyWithIdsInSlices(drafts, slices);
  return {
    body: request,
    model: request.model,
    stream: request.stream === true,
    system: systemText(request.system),
    tools,
    ...read,
    origin,
    wire: request.messages,
    leadingWire: [],
    ...(maxOutputTokens !== undefined && { maxOutputTokens }),
    clientToolNames,
    ownTool: clientToolNames.has(READ_OFFLOADED_TOOL) ? undefined : READ_OFFLOADED_TOOL,
  };
}

function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

function systemText(system: string | ReadonlyArray<Record<string, unknown>> | null | undefined): string {
  if (system === undefined || system === null) return '';
  if (typeof system === 'string') return system;
  return system
    .map((block, index) => {
      if (typeof block.text === 'string') return block.text;
      throw new WireRequestError('a system block must be text', `system[${index}].text`);
    })
    .join('\n\n');
}

function toolDefinitionOf(tool: Record<string, unknown>, index: number): ToolDefinition {
  if (typeof tool.name !== 'string' || tool.name === '')
    throw new WireRequestError('a tool needs a name', `tools[${index}].name`);
  // A client tool has an input schema; a server tool (`web_search_…`) is counted by its definition.
  if (isRecord(tool.input_schema))
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      parameters: tool.input_schema,
    };
  return { name: tool.name, description: JSON.stringify(tool) };
}

/** A message with the blocks ctxkit does not model turned into text holding their JSON. */
function readable(value: unknown): unknown {
  if (!isRecord(value) || !Array.isArray(value.content)) return value;
  const known = value.role === 'assistant' ? ASSISTANT_BLOCKS : USER_BLOCKS;
  return {
    ...value,
    content: value.content.map((block) => {
      if (!isRecord(block) || typeof block.type !== 'string') return block;
      if (!known.has(block.type)) return { type: 'text', text: JSON.stringify(block) };
      if (block.type === 'tool_result' && Array.isArray(block.content))
        return {
          ...block,
          content: block.content.map((inner) =>
            isRecord(inner) && typeof inner.type === 'string' && !TOOL_RESULT_BLOCKS.has(inner.type)
              ? { type: 'text', text: JSON.stringify(inner) }
              : inner,
          ),
        };
      return block;
    }),
  };
}

function assistantBlock(block: unknown): unknown {
  return isRecord(block) && typeof block.type === 'string' && !ASSISTANT_BLOCKS.has(block.type)
    ? { type: 'text', text: JSON.stringify(block) }
    : block;
}

function isCallOf(block: unknown, tool: string | undefined): boolean {
  return tool !== undefined && isRecord(block) && block.type === 'tool_use' && block.name === tool;
}

function roundMessages(additions: UpstreamAdditions): AnthropicWireMessage[] {
  return additions.rounds.flatMap((round): AnthropicWireMessage[] => [
    { role: 'assistant', content: contentBlocks(round.reply.parts) },
    {
      role: 'user',
      content: round.results.flatMap((result) => toolResultBlocks(result)),
    },
  ]);
}

/**
 * Consecutive messages of one role made one (the API joins them too, but a converted run next to a
 * client's message would otherwise break the alternation some gateways check).
 */
function joinSameRole(messages: readonly unknown[]): unknown[] {
  const out: unknown[] = [];
  const parsed = (message: unknown) =>
    (message instanceof RawJson ? message.value : message) as AnthropicWireMessage;
  for (const message of messages) {
    const last = out.length > 0 ? parsed(out.at(-1)) : undefined;
    const next = parsed(message);
    if (last && last.role === next.role) {
      out[out.length - 1] = {
        role: last.role,
        content: [...blocksOf(last.content), ...blocksOf(next.content)],
      };
    } else out.push(message);
  }
  return out;
}

function blocksOf(content: string | unknown[]): unknown[] {
  return typeof content === 'string' ? (content === '' ? [] : [{ type: 'text', text: content }]) : content;
}

/** One upstream stream, relayed. */
class AnthropicRelay implements StreamRelay {
  readonly #options: StreamRelayOptions;
  readonly #full = createAnthropicStreamState();
  readonly #visible = createAnthropicStreamState();
  /** Upstream block index → the client's index, or 'read' for ctxkit's own calls. */
  readonly #blocks = new Map<number, number | 'read'>();
  #clientBlocks: number;
  #held: SseEvent[] = [];
  #started = false;
  #stopped = false;
  error: { event: SseEvent; json: unknown } | undefined;
  messageId: string | undefined;

  constructor(options: StreamRelayOptions) {
    this.#options = options;
    this.#clientBlocks = options.continuing?.blocks ?? 0;
    this.messageId = options.continuing?.messageId;
  }

  get started(): boolean {
    return this.#started;
  }

  get clientBlocks(): number {
    return this.#clientBlocks;
  }

  get ended(): boolean {
    return this.#stopped;
  }

  get complete(): boolean {
    return this.#stopped;
  }

  push(event: SseEvent): SseEvent[] {
    if (this.#stopped) return [];
    const json = sseJson(event);
    const type = isRecord(json) ? json.type : event.event;
    if (type === 'error' || event.event === 'error') {
      this.error = { event, json };
      return [];
    }
    if (!isRecord(json)) return [event];
    readAnthropicEvent(this.#full, json);
    switch (type) {
      case 'message_start': {
        const message = isRecord(json.message) ? json.message : {};
        if (this.messageId === undefined && typeof message.id === 'string') this.messageId = message.id;
        if (this.#options.continuing) return [];
        return this.#forward(event, json);
      }
      case 'content_block_start':
      case 'content_block_delta':
      case 'content_block_stop': {
        const index = typeof json.index === 'number' ? json.index : 0;
        let target = this.#blocks.get(index);
        if (target === undefined) {
          target =
            type === 'content_block_start' && isCallOf(json.content_block, this.#options.ownTool)
              ? 'read'
              : this.#clientBlocks++;
          this.#blocks.set(index, target);
        }
        if (target === 'read') return [];
        if (type !== 'content_block_start') this.#started = true;
        return this.#forward(event, { ...json, index: target });
      }
      case 'message_stop':
        this.#stopped = true;
        this.#held.push(event);
        return [];
      case 'message_delta':
        this.#held.push(event);
        return [];
      default:
        return this.#forward(event, json);
    }
  }

  finish(): SseEvent[] {
    const clientCalls = [...this.#visible.blocks.values()].some((draft) => draft.block.type === 'tool_use');
    const out = this.#held.map((event) => {
      const json = sseJson(event);
      if (!isRecord(json)) return event;
      let rewritten = json;
      if (
        json.type === 'message_delta' &&
        isRecord(json.delta) &&
        json.delta.stop_reason === 'tool_use' &&
        !clientCalls
      )
        rewritten = { ...json, delta: { ...json.delta, stop_reason: 'end_turn' } };
      readAnthropicEvent(this.#visible, rewritten);
      return rewritten === json ? event : { ...event, data: JSON.stringify(rewritten) };
    });
    this.#held = [];
    this.#started = true;
    return out;
  }

  reply(): ReadReply {
    const full = messageOfStream(this.#full);
    const visible = messageOfStream(this.#visible);
    const split = anthropicWire.readAnswer(full, this.#options.ownTool);
    const seen = anthropicWire.readAnswer({ ...visible, usage: full.usage }, this.#options.ownTool).visible;
    return { ...split, visible: seen };
  }

  #forward(event: SseEvent, json: Record<string, unknown>): SseEvent[] {
    readAnthropicEvent(this.#visible, json);
    const data = JSON.stringify(json);
    return [data === event.data ? event : { ...event, data }];
  }
}
