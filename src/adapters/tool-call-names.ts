/**
 * Where a tool result's name comes from when a format does not carry it (OpenAI `tool` messages,
 * Anthropic `tool_result` blocks): the earlier call with the same id. Converting one message at a time,
 * the caller supplies those earlier calls, as a lookup or as a `ToolCallNames` that follows the stream.
 */
import type { Part } from '../core/message.ts';

/** The name of the call with this id, as a map or a function (undefined when unknown). */
export type ToolNameLookup = ReadonlyMap<string, string> | ((callId: string) => string | undefined);

/**
 * The tool calls seen so far in a stream of messages, by call id. Passed as `toolNames` to a
 * per-message converter, it also records the calls of each message converted, so a conversation read
 * one message at a time names every result as the whole-transcript converters do.
 */
export class ToolCallNames {
  readonly #names = new Map<string, string>();
  /** Legacy calls (ids `fc_<n>`) not yet answered, per function name, oldest first. */
  readonly #openLegacyCalls = new Map<string, string[]>();
  #legacyCallsGiven = 0;

  /** The calls of messages already converted (ctxkit messages, e.g. a session's history). */
  static from(messages: Iterable<{ parts: readonly Part[] }>): ToolCallNames {
    const names = new ToolCallNames();
    for (const message of messages) names.record(message);
    return names;
  }

  /**
   * Records the tool calls of a message, and the results that answer legacy calls (parts of other
   * types are ignored).
   */
  record(message: { parts: readonly Part[] }): void {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        this.#names.set(part.callId, part.name);
        if (LEGACY_CALL_ID.test(part.callId)) {
          const open = this.#openLegacyCalls.get(part.name) ?? [];
          open.push(part.callId);
          this.#openLegacyCalls.set(part.name, open);
        }
      } else if (part.type === 'tool-result' && LEGACY_CALL_ID.test(part.callId)) {
        for (const open of this.#openLegacyCalls.values()) {
          const at = open.lastIndexOf(part.callId);
          if (at >= 0) open.splice(at, 1);
        }
      }
    }
  }

  /**
   * A call id for a legacy OpenAI `function_call` (which has none): `fc_<n>`, counting the legacy calls
   * given out, never an id an earlier call of the stream has.
   */
  newLegacyCallId(): string {
    let id: string;
    do id = `fc_${this.#legacyCallsGiven++}`;
    while (this.#names.has(id));
    return id;
  }

  /**
   * The call a legacy `function` message (which names its function, not a call) answers: the newest
   * legacy call of that function not answered yet, as the whole-transcript reader pairs them.
   */
  openLegacyCallOf(name: string): string | undefined {
    return this.#openLegacyCalls.get(name)?.at(-1);
  }

  nameOf(callId: string): string | undefined {
    return this.#names.get(callId);
  }

  get size(): number {
    return this.#names.size;
  }
}

export type ToolNames = ToolNameLookup | ToolCallNames;

/** The synthetic call id a legacy OpenAI `function_call` gets (it carries none). */
const LEGACY_CALL_ID = /^fc_\d+$/;

function lookup(names: ToolNames | undefined, callId: string): string | undefined {
  if (names === undefined) return undefined;
  if (names instanceof ToolCallNames) return names.nameOf(callId);
  if (typeof names === 'function') return names(callId);
  return names.get(callId);
}

/**
 * Names the unnamed results of `messages` (converted from one source message, in order) from the
 * calls before them: calls among `messages` themselves first, then `names`. A `ToolCallNames` records
 * the messages' calls, for the messages that follow.
 */
export function nameToolResults(messages: readonly { parts: Part[] }[], names: ToolNames | undefined): void {
  const local = new Map<string, string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-result' && part.name === '') {
        part.name = local.get(part.callId) ?? lookup(names, part.callId) ?? '';
      } else if (part.type === 'tool-call') local.set(part.callId, part.name);
    }
    if (names instanceof ToolCallNames) names.record(message);
  }
}
