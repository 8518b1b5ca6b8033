import { distinctiveTokens } from '../core/distinctive-tokens.ts';
import type { Message } from '../core/message.ts';
import { parseToolArgs } from '../summarize/tool-args.ts';

export { distinctiveTokens };

/**
 * Working-set coverage: of the earlier tool output the recorded agent went on to use at a call, how much
 * is still in the request itself. A pointer to it does not count; the text a pointer carries inline does.
 *
 * The rules, exactly:
 * - **What the agent used at a call**: the distinctive tokens of the assistant message that call produced
 *   (its text, reasoning and tool-call arguments): paths and file names, hex hashes of 7+ characters,
 *   identifiers with an underscore or inner capital (6+ characters), and `file:line` references.
 * - **Learned from a result**: the token's first occurrence in the session (the system prompt and every
 *   message, in order) is inside that tool result: the agent could not have had it from anywhere else.
 *   A path counts as occurring where any longer path ends with it (`src/a.py` occurs in `/repo/src/a.py`).
 * - **Excluded**: results of the latest batch (the results after the assistant message before this call),
 *   which every system keeps, and tokens the agent saw first in its own words or the user's.
 * - **Covered**: the token appears in what the request carries besides the session's own words: the system
 *   prompt, tool results (pointer lines included), summaries, reminders and notes. A user or assistant
 *   message sent as the session recorded it does not count: an agent that quoted a path once still needs
 *   the output it read it in.
 * Coverage is covered ÷ needed over (result, token) pairs; per call, per session, and over a run.
 */

/** One thing the agent used at a call, and the result it could only have learned it from. */
export interface WorkingSetNeed {
  token: string;
  /** Index in the session's messages of the tool result it came from. */
  resultIndex: number;
}

/** Every tail of a path (`a/b/c.py` → `b/c.py`, `c.py`): where a shorter quote of it occurs too. */
export function withPathTails(tokens: Set<string>): Set<string> {
  const out = new Set(tokens);
  for (const token of tokens) {
    let slash = token.indexOf('/');
    while (slash >= 0 && slash < token.length - 1) {
      const tail = token.slice(slash + 1);
      if (tail.length >= 4) out.add(tail);
      slash = token.indexOf('/', slash + 1);
    }
  }
  return out;
}

/** What a message says, as text: what its author wrote or the tool returned. */
export function messageText(message: Message): string {
  const pieces: string[] = [];
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') pieces.push(part.text);
    else if (part.type === 'tool-call') {
      pieces.push(part.args);
      const leaves: string[] = [];
      collectStrings(parseToolArgs(part.args), leaves);
      pieces.push(...leaves);
    } else if (part.type === 'tool-result') pieces.push(part.content);
  }
  return pieces.join('\n');
}

function collectStrings(value: unknown, out: string[]): void {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out);
  else if (value !== null && typeof value === 'object')
    for (const item of Object.values(value)) collectStrings(item, out);
}

/**
 * For every assistant message of a session (by index), what it used that it could only have learned from
 * an earlier tool result outside the latest batch. One pass over the session: each token's first
 * occurrence is indexed once.
 */
export function workingSetNeeds(system: string, messages: readonly Message[]): Map<number, WorkingSetNeed[]> {
  const firstSeen = new Map<string, number>();
  for (const token of withPathTails(distinctiveTokens(system))) firstSeen.set(token, -1);
  const needs = new Map<number, WorkingSetNeed[]>();
  let batchStart = 0;
  messages.forEach((message, index) => {
    const text = messageText(message);
    if (message.role === 'assistant') {
      const own: WorkingSetNeed[] = [];
      for (const token of distinctiveTokens(text)) {
        const first = firstSeen.get(token);
        if (first === undefined || first < 0 || first >= batchStart) continue;
        if (messages[first]?.role === 'tool') own.push({ token, resultIndex: first });
      }
      if (own.length > 0) needs.set(index, own);
      batchStart = index + 1;
    }
    for (const token of withPathTails(distinctiveTokens(text)))
      if (!firstSeen.has(token)) firstSeen.set(token, index);
  });
  return needs;
}

export interface CallCoverage {
  /** (result, token) pairs the agent used at this call. */
  needed: number;
  /** Of them, in the request's text. */
  seen: number;
  /** Results with a needed token missing from the request: each a read-back the agent would make. */
  readBacks: number[];
  /** The needs the request does not hold, in the order given (what the recovery bill prices). */
  missing: WorkingSetNeed[];
}

/**
 * The text a request carries besides the session's own words (see the rules above): `spoken` holds the
 * texts (`messageText`) of the session's user and assistant messages.
 */
export function carriedText(
  request: { system: string; messages: readonly Message[] },
  spoken: ReadonlySet<string>,
): string {
  const pieces = [request.system];
  for (const message of request.messages) {
    const text = messageText(message);
    if ((message.role === 'user' || message.role === 'assistant') && spoken.has(text)) continue;
    pieces.push(text);
  }
  return pieces.join('\n');
}

/** The texts of a session's user and assistant messages, for `carriedText`. */
export function spokenTexts(messages: readonly Message[]): Set<string> {
  const spoken = new Set<string>();
  for (const message of messages)
    if (message.role === 'user' || message.role === 'assistant') spoken.add(messageText(message));
  return spoken;
}

/** How much of a call's needs its request holds (`text`: its `carriedText`). */
export function callCoverage(needs: readonly WorkingSetNeed[] | undefined, text: string): CallCoverage {
  if (!needs || needs.length === 0) return { needed: 0, seen: 0, readBacks: [], missing: [] };
  let seen = 0;
  const results = new Set<number>();
  const missing: WorkingSetNeed[] = [];
  for (const need of needs) {
    if (text.includes(need.token)) seen++;
    else {
      results.add(need.resultIndex);
      missing.push(need);
    }
  }
  return { needed: needs.length, seen, readBacks: [...results].sort((a, b) => a - b), missing };
}

/**
 * One read-back round trip, in list-price input tokens: the request again (read from the cache), the
 * tool call and the content fresh (written to the cache), and a short reply priced as output.
 */
export interface ReadBackPricing {
  readMultiplier: number;
  writeMultiplier: number;
  /** Tokens of the read-back tool call and its framing. */
  callTokens: number;
  /** Tokens the model writes to ask for it. */
  outputTokens: number;
  /** Output price ÷ input price (Anthropic and OpenAI: 4–5). */
  outputMultiplier: number;
  /**
   * Most content tokens one read-back returns: the read tool answers a page at a time (read_offloaded:
   * 20,000 characters by default, about 5,000 tokens), so a large result costs a page, not its whole.
   */
  maxContentTokens: number;
  /**
   * A read-back that cannot bring in at least this many tokens beside its request is one that cannot be
   * made (the window is full): counted as too big. A read tool that sizes its answer to the room left
   * (read_offloaded with `maxChars`) makes every other read-back fit.
   */
  minUsefulTokens: number;
}

export const DEFAULT_READ_BACK_PRICING: ReadBackPricing = {
  readMultiplier: 0.1,
  writeMultiplier: 1.25,
  callTokens: 30,
  outputTokens: 30,
  outputMultiplier: 5,
  maxContentTokens: 5_000,
  minUsefulTokens: 500,
};

/**
 * Tokens one read-back brings into the request: the content, at most a page of it, at most the room the
 * window has left beside the request (`room`, default: no limit).
 */
export function readBackTokens(
  contentTokens: number,
  pricing: ReadBackPricing,
  room = Number.POSITIVE_INFINITY,
): number {
  return Math.max(0, Math.min(contentTokens, pricing.maxContentTokens, room));
}

export function readBackCost(
  requestTokens: number,
  contentTokens: number,
  pricing: ReadBackPricing,
  room = Number.POSITIVE_INFINITY,
): number {
  return roundTripCost(requestTokens, readBackTokens(contentTokens, pricing, room), pricing);
}

/**
 * One round trip that brings `answerTokens` into the request (a read tool's answer, a tool run again), as
 * the answer was sized by the caller: the request re-read from cache, the call and the answer written, a
 * short reply at output price.
 */
export function roundTripCost(requestTokens: number, answerTokens: number, pricing: ReadBackPricing): number {
  return (
    pricing.readMultiplier * requestTokens +
    pricing.writeMultiplier * (pricing.callTokens + Math.max(0, answerTokens)) +
    pricing.outputMultiplier * pricing.outputTokens
  );
}
