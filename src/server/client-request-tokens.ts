/**
 * What the client's own request would have cost, for the `x-ctxkit-tokens-saved` header: each message
 * counted once (by content id) and remembered, so a resent history costs only its new messages.
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

export class ClientRequestTokens {
  readonly #counter = createExactCounter('o200k');
  readonly #counts = new BoundedMap<string, number>(MAX_COUNTED_MESSAGES);

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
    for (let index = 0; index < history.length; index++) {
      total += this.#message(history[index] as MessageInput, ids[index]);
      if (slices.due()) await slices.next();
    }
    await idPositionsInSlices(ids, slices);
    return total;
  }

  /**
   * The same count of what was sent: the prepared view, whose messages ctxkit left as they were count
   * as the client's (by its content id), the rest by their own content.
   */
  countSent(
    system: string,
    tools: readonly ToolDefinition[],
    view: readonly Message[],
    client: { history: readonly MessageInput[]; ids: readonly string[] },
  ): number {
    const indexOfId = idPositions(client.ids);
    const ids = view.map((message) => {
      const index = indexOfId.get(message.id);
      const original = index === undefined ? undefined : client.history[index];
      return original && deepEqual(original.parts, message.parts) ? message.id : contentId(message);
    });
    return this.count(system, tools, view, ids);
  }

  /** The system prompt's and the tools' tokens. */
  #fixed(system: string, tools: readonly ToolDefinition[]): number {
    const toolText = JSON.stringify(tools);
    return (
      this.#remembered(`system:${sha256OfText(system)}`, () => this.#counter.count(system)) +
      this.#remembered(`tools:${sha256OfText(toolText)}`, () =>
        estimateToolDefinitionTokens(tools, this.#counter),
      )
    );
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
