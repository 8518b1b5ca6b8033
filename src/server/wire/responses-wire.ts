/**
 * OpenAI's Responses API, as the proxy reads and writes it (`POST /v1/responses`).
 *
 * `instructions` and the leading system/developer items are the system prompt; the rest of `input` is
 * history, read by `adapters/openai-responses.ts` (a reasoning item stays in one message with the calls
 * it belongs to). The upstream body is the client's own with `input` rendered from the prepared view:
 * the client's items wherever ctxkit left a message unchanged.
 *
 * Streams: events pass through as they arrive. The items of ctxkit's read-back calls are taken out (the
 * client's items renumbered so `output_index` stays 0, 1, …), `response.completed` / `response.incomplete`
 * is held to the end, a further round continues the same response (its `response.created` dropped, its
 * items numbered after the ones the client has), and every event the client reads is numbered in order
 * (`sequence_number`). An overflow arrives as an error status, or as `response.failed` / `error` before
 * any item.
 */
import { z } from 'zod';
import { recoverToolNames } from '../../adapters/finish-transcript.ts';
import {
  assistantMessageOfOutput,
  ResponsesInputReader,
  toResponsesTool,
  usageFromResponses,
} from '../../adapters/openai-responses.ts';
import { ResponsesItemIndex, toResponsesItems } from '../../adapters/openai-responses-write.ts';
import { readOffloadedTool } from '../../agent/read-offloaded-tool.ts';
import { InvalidInputError } from '../../core/errors/index.ts';
import { isRecord } from '../../core/is-record.ts';
import type { Message, MessageInput } from '../../core/message.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { WorkSlices } from '../../core/work-slices.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import { idPositions } from '../id-positions.ts';
import type { SseEvent } from '../sse.ts';
import { sseJson } from '../sse.ts';
import { openAIErrorType, openAIWire } from './openai-wire.ts';
import { clientMembers } from './raw-json.ts';
import { renderView } from './render-view.ts';
import {
  asWireRequestError,
  historyWithIdsInSlices,
  parseBody,
  positiveIntegerField,
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
  // Required here: a request without it (a stored `prompt` alone) is passed through, see `unmanagedField`.
  input: z.union([z.string(), z.array(z.unknown()).min(1, 'must hold at least one item')]),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
});

/**
 * Request fields ctxkit cannot manage a request with, so it passes it through: the conversation kept on
 * the upstream (`previous_response_id`, `conversation`: ctxkit sees only its newest part), or an answer
 * given later, elsewhere (`background`: the upstream answers at once with a queued response).
 */
export const UNMANAGED_FIELDS = ['previous_response_id', 'conversation', 'background'] as const;

/** Why a Responses request goes through unmanaged (the field that says so), or undefined. */
export function unmanagedField(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const field = UNMANAGED_FIELDS.find(
    (name) => body[name] !== undefined && body[name] !== null && body[name] !== false,
  );
  if (field !== undefined) return field;
  // A stored prompt without input: the conversation is the prompt's, which ctxkit does not see.
  if (body.input === undefined && body.prompt !== undefined && body.prompt !== null) return 'prompt';
  return undefined;
}

/** Events a response opens with: they say nothing the client must see before content begins. */
const OPENING_EVENTS = new Set(['response.created', 'response.in_progress', 'response.queued']);
/** Events that end a whole response. */
const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete']);

/** The raw output items of an answer, by the message read from it: a read-back round echoes them. */
const outputItemsOfReply = new WeakMap<MessageInput, readonly unknown[]>();

export const responsesWire: WireFormat = {
  name: 'responses',
  credentials: 'openai',
  provider: 'openai-compatible',

  listMember: 'input',

  async parseRequest(body) {
    const request = parseBody(requestSchema, body);
    const reader = new ResponsesInputReader();
    const slices = new WorkSlices();
    try {
      if (typeof request.input === 'string') reader.read({ role: 'user', content: request.input }, 0);
      else
        for (let index = 0; index < request.input.length; index++) {
          reader.read(request.input[index], index);
          if (slices.due()) await slices.next();
        }
    } catch (error) {
      throw asWireRequestError(error);
    }
    const read = reader.result();
    const drafts = read.groups.map((group) => group.draft);
    recoverToolNames(drafts);
    const tools = (request.tools ?? []).map(toolDefinitionOf);
    const maxOutputTokens = positiveIntegerField(request, 'max_output_tokens');
    const clientToolNames = new Set(tools.map((tool) => tool.name));
    const instructions = request.instructions ?? '';
    return {
      body: request,
      model: request.model,
      stream: request.stream === true,
      system: [instructions, ...read.system].filter((text) => text !== '').join('\n\n'),
      tools,
      ...(await historyWithIdsInSlices(drafts, slices)),
      origin: read.groups.map((_, index) => index),
      wire: read.groups.map((group) => group.items),
      leadingWire: read.systemItems,
      ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      clientToolNames,
      ownTool: clientToolNames.has(READ_OFFLOADED_TOOL) ? undefined : READ_OFFLOADED_TOOL,
    };
  },

  upstreamBody(request, prepared, additions) {
    const groups = request.wire as unknown[][];
    const index = new ResponsesItemIndex().add(groups.flat());
    const positions = idPositions(request.ids);
    const ownItems = (message: Message) => {
      const at = positions.get(message.id);
      return at === undefined ? undefined : groups[request.origin[at] ?? -1];
    };
    const history = renderView<unknown[]>(prepared.messages, request, (run: Message[]) => [
      toResponsesItems(run, index, ownItems),
    ]).flat();
    const body: Record<string, unknown> = clientMembers(request);
    let lead: readonly unknown[] = request.leadingWire;
    if (prepared.system !== request.system) {
      lead = [];
      if (prepared.system === '') delete body.instructions;
      else body.instructions = prepared.system;
    }
    body.input = [...lead, ...history, ...roundItems(request, additions)];
    if (additions.readTool && request.ownTool !== undefined) {
      const tools = Array.isArray(request.body.tools) ? request.body.tools : [];
      body.tools = [...tools, toResponsesTool(readOffloadedTool)];
    }
    return body;
  },

  streamEnd: 'response.completed',

  incompleteAnswer(json) {
    if (json === undefined) return 'its body is not complete JSON';
    if (!isRecord(json) || !Array.isArray(json.output)) return 'its body is not a response';
    // A whole response says it ended (`completed`, or `incomplete` with the reason it stopped early), or,
    // from a server that leaves the status out, says nothing of one still under way.
    if (json.status !== undefined && json.status !== 'completed' && json.status !== 'incomplete')
      return `the response's status is ${JSON.stringify(json.status)}`;
    return undefined;
  },

  readAnswer(json, ownTool) {
    if (!isRecord(json) || !Array.isArray(json.output))
      throw new InvalidInputError('an answer must be a response with output items', { field: 'output' });
    return splitReadCalls(replyOf(json.output, json.usage, json.model), ownTool);
  },

  clientAnswer(json, ownTool) {
    if (ownTool === undefined || !isRecord(json) || !Array.isArray(json.output)) return json;
    const output = json.output.filter((item) => !isCallOf(item, ownTool));
    return output.length === json.output.length ? json : { ...json, output };
  },

  createRelay(options) {
    return new ResponsesRelay(options);
  },

  continuation(relay, previous) {
    const responses = relay as ResponsesRelay;
    return {
      messageId: previous?.messageId ?? responses.responseId,
      blocks: responses.clientItems.length,
      toolCalls: 0,
      events: responses.eventsSent,
      output: responses.clientItems,
    };
  },

  errorBody: openAIWire.errorBody,

  errorEvent(status, message) {
    // The event the SDKs raise as an error mid-stream. Without a `sequence_number`: ctxkit's own error is
    // not one of the upstream's numbered events.
    return {
      event: 'error',
      data: JSON.stringify({ type: 'error', code: openAIErrorType(status), message, param: null }),
    };
  },
};

function toolDefinitionOf(tool: Record<string, unknown>, index: number): ToolDefinition {
  if (tool.type === 'function') {
    if (typeof tool.name !== 'string' || tool.name === '')
      throw new WireRequestError('a function tool needs a name', `tools[${index}].name`);
    return {
      name: tool.name,
      ...(typeof tool.description === 'string' && { description: tool.description }),
      ...(isRecord(tool.parameters) && { parameters: tool.parameters }),
    };
  }
  // A custom tool (a grammar), or a hosted one (`web_search`, `local_shell`…): counted as written.
  const name = typeof tool.name === 'string' && tool.name !== '' ? tool.name : String(tool.type);
  if (name === '') throw new WireRequestError('a tool needs a type', `tools[${index}].type`);
  return { name, description: JSON.stringify(tool) };
}

function replyOf(output: readonly unknown[], usage: unknown, model: unknown): MessageInput {
  const read = usageFromResponses(usage);
  const reply: MessageInput = {
    ...assistantMessageOfOutput(output),
    ...(read && { usage: read }),
    ...(typeof model === 'string' && { meta: { model } }),
  };
  outputItemsOfReply.set(reply, output);
  return reply;
}

function isCallOf(item: unknown, tool: string | undefined): boolean {
  return tool !== undefined && isRecord(item) && item.type === 'function_call' && item.name === tool;
}

/**
 * The read-back rounds as input items: the model's output as it came (its reasoning beside its calls),
 * then ctxkit's results. Without `store`, item ids name nothing the upstream kept, so they are left out.
 */
function roundItems(request: WireRequest, additions: UpstreamAdditions): unknown[] {
  const stored = request.body.store !== false;
  return additions.rounds.flatMap((round) => {
    // Every answer this format reads is registered there (`replyOf`).
    const output = outputItemsOfReply.get(round.reply) ?? [];
    return [
      ...output.flatMap((item) => {
        if (stored || !isRecord(item)) return [item];
        // Unstored reasoning the upstream gave no encrypted content for names nothing it can read back.
        if (item.type === 'reasoning' && typeof item.encrypted_content !== 'string') return [];
        return [withoutId(item)];
      }),
      ...round.results.map((result) => ({
        type: 'function_call_output',
        call_id: result.callId,
        output: result.content,
      })),
    ];
  });
}

function withoutId(item: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, ...rest } = item;
  return rest;
}

/** One upstream stream, relayed. */
class ResponsesRelay implements StreamRelay {
  readonly #options: StreamRelayOptions;
  /** Upstream `output_index` → the client's, or 'read' for ctxkit's own calls. */
  readonly #indexes = new Map<number, number | 'read'>();
  /** Every output item the upstream finished, by its upstream index: the model's whole answer. */
  readonly #items = new Map<number, unknown>();
  /** The output items the client has read, over every round, in its numbering. */
  readonly clientItems: unknown[];
  #held: SseEvent[] = [];
  #final: Record<string, unknown> | undefined;
  #started = false;
  #ended = false;
  #sent: number;
  error: { event: SseEvent; json: unknown } | undefined;
  responseId: string | undefined;

  constructor(options: StreamRelayOptions) {
    this.#options = options;
    this.clientItems = [...(options.continuing?.output ?? [])];
    this.#sent = options.continuing?.events ?? 0;
    this.responseId = options.continuing?.messageId;
  }

  get started(): boolean {
    return this.#started;
  }

  get ended(): boolean {
    return this.#ended;
  }

  get complete(): boolean {
    return this.#final !== undefined;
  }

  get eventsSent(): number {
    return this.#sent;
  }

  push(event: SseEvent): SseEvent[] {
    if (this.#ended) return [];
    // Some compatible servers end a Responses stream with `[DONE]` as Chat Completions does.
    if (event.data === '[DONE]') return [];
    const json = sseJson(event);
    const type = isRecord(json) && typeof json.type === 'string' ? json.type : event.event;
    if (type === 'error') {
      this.error = { event, json: { error: json } };
      return [];
    }
    if (type === 'response.failed') {
      this.#ended = true;
      const response = isRecord(json) && isRecord(json.response) ? json.response : {};
      this.error = { event, json: { error: response.error ?? response } };
      return [];
    }
    if (!isRecord(json)) return [event];
    if (type !== undefined && OPENING_EVENTS.has(type)) {
      const response = isRecord(json.response) ? json.response : {};
      if (this.responseId === undefined && typeof response.id === 'string') this.responseId = response.id;
      return this.#options.continuing ? [] : [this.#numbered(event, json)];
    }
    if (type !== undefined && FINAL_EVENTS.has(type)) {
      this.#ended = true;
      this.#final = isRecord(json.response) ? json.response : {};
      this.#held.push(event);
      return [];
    }
    if (typeof json.output_index !== 'number') return [this.#numbered(event, json)];
    let target = this.#indexes.get(json.output_index);
    if (target === undefined) {
      target = isCallOf(json.item, this.#options.ownTool) ? 'read' : this.clientItems.length;
      if (target !== 'read') this.clientItems.push(json.item ?? null);
      this.#indexes.set(json.output_index, target);
    }
    if (type === 'response.output_item.done') {
      this.#items.set(json.output_index, json.item);
      if (target !== 'read') this.clientItems[target] = json.item;
    }
    if (target === 'read') return [];
    this.#started = true;
    return [this.#numbered(event, { ...json, output_index: target })];
  }

  finish(): SseEvent[] {
    const out = this.#held.map((event) => {
      const json = sseJson(event);
      if (!isRecord(json) || !isRecord(json.response)) return this.#numbered(event, json);
      // The client's response under the id it read first (its SDK refuses a response whose id changes),
      // with every item it read: the earlier rounds', then this one's as the upstream listed them.
      const own = json.response.output;
      const output = Array.isArray(own)
        ? [
            ...(this.#options.continuing?.output ?? []),
            ...own.filter((item) => !isCallOf(item, this.#options.ownTool)),
          ]
        : this.clientItems;
      const id = this.responseId !== undefined && { id: this.responseId };
      return this.#numbered(event, { ...json, response: { ...json.response, ...id, output } });
    });
    this.#held = [];
    this.#started = true;
    return out;
  }

  reply(): ReadReply {
    const output = [...this.#items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const final = this.#final ?? {};
    const full = replyOf(output, final.usage, final.model);
    const split = splitReadCalls(full, this.#options.ownTool);
    const visible = assistantMessageOfOutput(this.clientItems);
    return {
      ...split,
      visible: {
        ...visible,
        ...(full.usage && { usage: full.usage }),
        ...(full.meta && { meta: full.meta }),
      },
    };
  }

  /** The event as the client reads it: numbered after every event it read before. */
  #numbered(event: SseEvent, json: unknown): SseEvent {
    if (!isRecord(json)) return event;
    const numbered = 'sequence_number' in json ? { ...json, sequence_number: this.#sent } : json;
    this.#sent += 1;
    const data = JSON.stringify(numbered);
    return data === event.data ? event : { ...event, data };
  }
}
