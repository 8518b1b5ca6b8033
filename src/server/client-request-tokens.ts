/**
 * What the client's own request would have cost, for the `x-ctxkit-tokens-saved` header: each message
 * counted once (by content id) and remembered, so a resent history costs only its new messages.
 *
 * A request's own counts are kept too, for as long as the request lives: a history longer than
 * `MAX_COUNTED_MESSAGES` pushes its first messages out of what is remembered as it is counted, and the
 * view sent (mostly the client's messages) was counted again, with the thread held (400,000 messages:
 * 0.8 s).
 */
import type { Message, MessageInput } from '../core/message.ts';
import { sha256OfText } from '../core/sha256-of-text.ts';
import { contentId } from '../core/stable-id.ts';
import { estimateMessageTokens } from '../core/tokens/estimate-message-tokens.ts';
import { estimateToolDefinitionTokens } from '../core/tokens/estimate-tool-definition-tokens.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { BoundedMap } from './bounded-map.ts';
import { idPositions, idPositionsInSlices } from './id-positions.ts';
import { deepEqual } from './wire/render-view.ts';

/** Messages whose counts are remembered; the oldest are forgotten first. */
export const MAX_COUNTED_MESSAGES = 200_000;
/** System prompts and tool lists remembered by their text (each held as long as it is remembered). */
const MAX_RECENT_FIXED = 64;

export class ClientRequestTokens {
  readonly #counter = createExactCounter('o200k');
  readonly #counts: BoundedMap<string, number>;
  /** Per request (the array of its history's ids), each message's count, as `countInSlices` made it. */
  readonly #requestCounts = new WeakMap<readonly string[], Float64Array>();
  /** The last system prompts' and tool lists' counts, by their text. */
  readonly #recentSystems = new BoundedMap<string, number>(MAX_RECENT_FIXED);
  readonly #recentTools = new BoundedMap<string, number>(MAX_RECENT_FIXED);
  /** The counts of view messages ctxkit changed, by the message (see `#changed`). */
  readonly #changedCounts = new WeakMap<Message, number>();

  /** `maxCounted`: messages whose counts are remembered across requests. */
  constructor(maxCounted = MAX_COUNTED_MESSAGES) {
    this.#counts = new BoundedMap(maxCounted);
  }

  /** `ids` are the history's content ids (the cache keys). */
  count(
    system: string,
    tools: readonly ToolDefinition[],
    history: readonly MessageInput[],
    ids: readonly string[],
  ): number {
    let total = this.#fixed(system, tools);
    history.forEach((message, index) => {
      total += this.#message(message, ids[index]);
    });
    return total;
  }

  /**
   * `count`, in slices (a history of a million messages is a million counts, and other requests go on
   * meanwhile), and where each of the history's ids is, for `countSent` and the view written back.
   */
  async countInSlices(
    system: string,
    tools: readonly ToolDefinition[],
    history: readonly MessageInput[],
    ids: readonly string[],
  ): Promise<number> {
    let total = this.#fixed(system, tools);
    const slices = new WorkSlices();
    const counts = new Float64Array(history.length);
    for (let index = 0; index < history.length; index++) {
      counts[index] = this.#message(history[index] as MessageInput, ids[index]);
      total += counts[index] as number;
      if (slices.due()) await slices.next();
    }
    this.#requestCounts.set(ids, counts);
    await idPositionsInSlices(ids, slices);
    return total;
  }

  /**
   * The same count of what was sent: the prepared view, whose messages ctxkit left as they were count
   * as the client's (as `countInSlices` counted them for this request, else by content id), the rest by
   * their own content. At once: `countSentInSlices` gives other requests turns meanwhile.
   */
  countSent(
    system: string,
    tools: readonly ToolDefinition[],
    view: readonly Message[],
    client: { history: readonly MessageInput[]; ids: readonly string[] },
  ): number {
    const steps = this.#sent(system, tools, view, client, idPositions(client.ids));
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /** `countSent`, in slices: a view of 400,000 messages holds the thread 0.15 s even with every count known. */
  async countSentInSlices(
    system: string,
    tools: readonly ToolDefinition[],
    view: readonly Message[],
    client: { history: readonly MessageInput[]; ids: readonly string[] },
    slices: WorkSlices = new WorkSlices(),
  ): Promise<number> {
    const steps = this.#sent(system, tools, view, client, await idPositionsInSlices(client.ids, slices));
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (slices.due()) await slices.next();
    }
  }

  /** `countSent`'s steps, one per message of the view: the caller decides when the event loop has a turn. */
  *#sent(
    system: string,
    tools: readonly ToolDefinition[],
    view: readonly Message[],
    client: { history: readonly MessageInput[]; ids: readonly string[] },
    indexOfId: ReadonlyMap<string, number>,
  ): Generator<void, number> {
    const counts = this.#requestCounts.get(client.ids);
    let total = this.#fixed(system, tools);
    for (const message of view) {
      const index = indexOfId.get(message.id);
      const original = index === undefined ? undefined : client.history[index];
      if (index !== undefined && original && deepEqual(original.parts, message.parts))
        total += counts?.[index] ?? this.#message(message, message.id);
      else total += this.#changed(message);
      yield;
    }
    return total;
  }

  /** The system prompt's and the tools' tokens. */
  #fixed(system: string, tools: readonly ToolDefinition[]): number {
    const toolText = JSON.stringify(tools);
    return (
      this.#fixedPart(this.#recentSystems, 'system', system, () => this.#counter.count(system)) +
      this.#fixedPart(this.#recentTools, 'tools', toolText, () =>
        estimateToolDefinitionTokens(tools, this.#counter),
      )
    );
  }

  /**
   * A system prompt's or tools' count, by the text itself among the last few (a client resends the same
   * string, whose hash the engine keeps: looked up without digesting it again), else by its digest.
   */
  #fixedPart(recent: BoundedMap<string, number>, kind: string, text: string, count: () => number): number {
    const known = recent.get(text);
    if (known !== undefined) return known;
    const tokens = this.#remembered(`${kind}:${sha256OfText(text)}`, count);
    recent.set(text, tokens);
    return tokens;
  }

  /**
   * A message ctxkit changed (a summary, a cleared result), by its content. The view keeps the same
   * message from call to call: its count is remembered by the message itself, not hashed again.
   */
  #changed(message: Message): number {
    const known = this.#changedCounts.get(message);
    if (known !== undefined) return known;
    const tokens = this.#message(message, contentId(message));
    this.#changedCounts.set(message, tokens);
    return tokens;
  }

  #message(message: MessageInput, id: string | undefined): number {
    return this.#remembered(
      id ?? contentId(message),
      () => estimateMessageTokens(message, this.#counter).total,
    );
  }

  #remembered(id: string, count: () => number): number {
    const known = this.#counts.get(id);
    if (known !== undefined) return known;
    const tokens = count();
    this.#counts.set(id, tokens);
    return tokens;
  }
}
