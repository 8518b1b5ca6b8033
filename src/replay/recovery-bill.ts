import { pageText } from '../agent/page-text.ts';
import {
  DEFAULT_READ_OFFLOADED_LIMIT,
  DEFAULT_SEARCH_CONTEXT,
  readBackRoom,
} from '../agent/read-offloaded-tool.ts';
import { searchLines } from '../agent/select-lines.ts';
import { distinctiveTokens } from '../core/distinctive-tokens.ts';
import type { Message } from '../core/message.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { READ_OFFLOADED_TOOL } from '../engine/offload-results.ts';
import {
  messageText,
  type ReadBackPricing,
  roundTripCost,
  type WorkingSetNeed,
  withPathTails,
} from './working-set.ts';

/**
 * The recovery bill: what an agent pays, at one call, to get back what it goes on to use and the request
 * no longer holds (the working set's missing needs, working-set.ts). Forgetting is not free:
 *
 * - **Read-back**: a blob the request points to (its ref named anywhere in the request, readable by the
 *   system's own read tool: ctxkit's offloaded results and transcript, deepagents' evicted results and
 *   history file) that holds missing tokens is read back, one round trip per blob, the blobs picked
 *   greedily (the one holding the most missing tokens first) so the fewest are read. The answer is the
 *   smallest one `read_offloaded` gives that brings back all the tokens assigned to that blob: a
 *   `search` for one of them (with the tool's default context), or the page that holds them all (the
 *   whole blob when it fits one); when no single answer holds them all, searches and pages picked
 *   greedily (the one bringing the most first), each one more round trip. Every answer is sized to the room the tool gives it (a page,
 *   at most what the window leaves: `readBackRoom`). It supposes the agent asks for exactly what it
 *   needs, so it is the least a read-back can cost.
 * - **Re-run**: a token no pointed blob holds was forgotten: the agent runs a tool again to see it. The
 *   fewest re-runs that bring back every such token (a set cover over the session's earlier results that
 *   hold them, greedy: the result holding the most, then the smaller, then the later), each re-sending
 *   its result, at most the page that holds the first token it brings back.
 *
 * Both are priced as one read-back round trip (`roundTripCost`): the request re-read from cache, the call
 * and the answer written, a short reply at output price. A pointer is what the request names, so a
 * placeholder such as LangChain's "cleared" saves nothing: what it hid is re-run.
 */

/** Content a system's own read tool can fetch by `ref` (at the end of the replay). */
export interface ReadableContent {
  ref: string;
  content: string;
}

/** What recovering one call's missing working set costs. */
export interface CallRecovery {
  /** Read-back round trips on pointed-to blobs. */
  readBacks: number;
  /** Tools run again for forgotten results. */
  reRuns: number;
  /** Tokens the read-backs' answers bring in. */
  readBackTokens: number;
  /** Tokens the re-runs' results bring in. */
  reRunTokens: number;
  /** All the round trips, in list-price input tokens. */
  cost: number;
}

export const NO_RECOVERY: Readonly<CallRecovery> = Object.freeze({
  readBacks: 0,
  reRuns: 0,
  readBackTokens: 0,
  reRunTokens: 0,
  cost: 0,
});

/** One call as the recovery bill sees it. */
export interface RecoveryCall {
  /** Index in the session of the assistant message the call produced: results before it can be re-run. */
  messageIndex: number;
  /** The request's whole text (where a pointer names its ref), asked for only when a blob is readable. */
  text: () => string;
  inputTokens: number;
  contextWindow: number;
  maxOutputTokens: number;
}

/** Characters a ref's name runs over after its folder (`r12`, `call_ab-1.txt`, `s1.md`). */
const REF_CHAR = /[A-Za-z0-9_.\-/]/;
/** A character that cannot come right before a ref (a ref starts at a word boundary). */
const WORD_CHAR = /[A-Za-z0-9_]/;

/** Prices the recovery of each call of one replayed session (per-session caches live here). */
export class RecoveryPricer {
  private readonly blobs = new Map<string, string>();
  /** Folders of the readable refs (`large_tool_results/`), where a scan for named refs starts. */
  private readonly folders: string[];
  private readonly found = new Map<string, number>();
  private readonly answers = new Map<string, { count: number; tokens: number }>();
  private readonly resultTokens = new Map<number, number>();
  private readonly pageTokens = new Map<string, number>();
  private tokenResults: Map<string, number[]> | undefined;

  constructor(
    private readonly session: readonly Message[],
    readable: readonly ReadableContent[],
    private readonly counter: TokenCounter,
    private readonly pricing: ReadBackPricing,
  ) {
    for (const blob of readable) this.blobs.set(blob.ref, blob.content);
    this.folders = [...new Set([...this.blobs.keys()].map((ref) => ref.slice(0, ref.lastIndexOf('/') + 1)))];
  }

  price(call: RecoveryCall, missing: readonly WorkingSetNeed[]): CallRecovery {
    if (missing.length === 0) return { ...NO_RECOVERY };
    const recovery = { ...NO_RECOVERY };
    const limit = Math.min(
      DEFAULT_READ_OFFLOADED_LIMIT,
      readBackRoom({
        contextWindow: call.contextWindow,
        maxOutputTokens: call.maxOutputTokens,
        tokens: { input: call.inputTokens },
      }),
    );
    const left = new Map<string, number>();
    for (const need of missing) left.set(need.token, need.resultIndex);
    const named = this.blobs.size > 0 ? this.namedRefs(call.text()) : [];
    for (const [ref, tokens] of greedyCover(named, [...left.keys()], (ref, token) => this.has(ref, token), {
      cheaper: (a, b) => (this.blobs.get(a)?.length ?? 0) - (this.blobs.get(b)?.length ?? 0),
    })) {
      const answer = this.readBack(ref, tokens, limit);
      recovery.readBacks += answer.count;
      recovery.readBackTokens += answer.tokens;
      // Each round trip carries its own share of the answer; the request is re-read every time.
      recovery.cost +=
        answer.count * roundTripCost(call.inputTokens, 0, this.pricing) +
        this.pricing.writeMultiplier * answer.tokens;
      for (const token of tokens) left.delete(token);
    }
    if (left.size === 0) return recovery;
    const index = this.indexResults();
    const candidates = new Set<number>();
    for (const [token, first] of left) {
      candidates.add(first);
      for (const at of index.get(token) ?? []) if (at < call.messageIndex) candidates.add(at);
    }
    const holds = (at: number, token: string): boolean =>
      left.get(token) === at || (index.get(token)?.includes(at) ?? false);
    const byPreference = [...candidates].sort((a, b) => b - a);
    for (const [at, tokens] of greedyCover(byPreference, [...left.keys()], holds, {
      cheaper: (a, b) => this.tokensOfResult(a) - this.tokensOfResult(b),
    })) {
      const sent = this.reRunTokens(at, tokens, limit);
      recovery.reRuns++;
      recovery.reRunTokens += sent;
      recovery.cost += roundTripCost(call.inputTokens, sent, this.pricing);
    }
    return recovery;
  }

  /** The readable refs the text names: each folder's occurrences, read on while a ref's characters last. */
  private namedRefs(text: string): string[] {
    const named = new Set<string>();
    for (const folder of this.folders) {
      if (folder === '') {
        for (const ref of this.blobs.keys()) if (!ref.includes('/') && namesRef(text, ref)) named.add(ref);
        continue;
      }
      for (let at = text.indexOf(folder); at >= 0; at = text.indexOf(folder, at + 1)) {
        if (at > 0 && WORD_CHAR.test(text[at - 1] ?? '')) continue;
        let end = at + folder.length;
        while (end < text.length && REF_CHAR.test(text[end] ?? '')) end++;
        // A sentence's full stop or a trailing slash is not part of the ref.
        let candidate = text.slice(at, end);
        while (candidate.length > folder.length && !this.blobs.has(candidate) && /[./-]$/.test(candidate))
          candidate = candidate.slice(0, -1);
        if (this.blobs.has(candidate)) named.add(candidate);
      }
    }
    return [...named];
  }

  /** Whether blob `ref` holds `token` (remembered: a blob is looked at once per token). */
  private has(ref: string, token: string): boolean {
    return this.where(ref, token) >= 0;
  }

  private where(ref: string, token: string): number {
    const key = `${ref}\n${token}`;
    let at = this.found.get(key);
    if (at === undefined) {
      at = this.blobs.get(ref)?.indexOf(token) ?? -1;
      this.found.set(key, at);
    }
    return at;
  }

  /** The fewest answers of `read_offloaded` on `ref` that hold all `tokens`, and their tokens. */
  private readBack(ref: string, tokens: readonly string[], limit: number): { count: number; tokens: number } {
    const key = `${ref}\n${limit}\n${[...tokens].sort().join('\n')}`;
    const known = this.answers.get(key);
    if (known) return known;
    const content = this.blobs.get(ref) ?? '';
    const answers = readBackAnswers(
      content,
      ref,
      tokens.map((token) => ({ token, at: this.where(ref, token) })),
      limit,
    );
    const priced = {
      count: answers.length,
      tokens: answers.reduce((total, answer) => total + this.counter.count(answer), 0),
    };
    this.answers.set(key, priced);
    return priced;
  }

  /** Tokens of result `at` re-sent: whole when it fits a page, else the page holding the first token. */
  private reRunTokens(at: number, tokens: readonly string[], limit: number): number {
    const message = this.session[at];
    const text = message ? messageText(message) : '';
    if (text.length <= limit) return this.tokensOfResult(at);
    const first = Math.min(...tokens.map((token) => text.indexOf(token)).filter((index) => index >= 0));
    const page = Number.isFinite(first) ? Math.floor(first / limit) : 0;
    const key = `${at}\n${limit}\n${page}`;
    let counted = this.pageTokens.get(key);
    if (counted === undefined) {
      counted = this.counter.count(text.slice(page * limit, (page + 1) * limit));
      this.pageTokens.set(key, counted);
    }
    return counted;
  }

  private tokensOfResult(at: number): number {
    let tokens = this.resultTokens.get(at);
    if (tokens === undefined) {
      const message = this.session[at];
      tokens = message ? this.counter.count(messageText(message)) : 0;
      this.resultTokens.set(at, tokens);
    }
    return tokens;
  }

  /** Every distinctive token (paths with their tails, as the working set counts them) → the results holding it. */
  private indexResults(): Map<string, number[]> {
    if (this.tokenResults) return this.tokenResults;
    const index = new Map<string, number[]>();
    this.session.forEach((message, at) => {
      if (message.role !== 'tool') return;
      for (const token of withPathTails(distinctiveTokens(messageText(message)))) {
        const list = index.get(token);
        if (list) list.push(at);
        else index.set(token, [at]);
      }
    });
    this.tokenResults = index;
    return index;
  }
}

/**
 * Greedy set cover: repeatedly the candidate holding the most tokens not yet covered (ties: the cheaper,
 * then the earlier in `candidates`), until no candidate holds one. Each pick comes with the tokens it is
 * the one to bring back.
 */
export function greedyCover<T>(
  candidates: readonly T[],
  tokens: readonly string[],
  holds: (candidate: T, token: string) => boolean,
  options: { cheaper?: (a: T, b: T) => number } = {},
): [T, string[]][] {
  const left = new Set(tokens);
  const held = new Map<T, string[]>();
  for (const candidate of candidates) {
    const own = tokens.filter((token) => holds(candidate, token));
    if (own.length > 0) held.set(candidate, own);
  }
  const picks: [T, string[]][] = [];
  while (left.size > 0) {
    let best: T | undefined;
    let bestTokens: string[] = [];
    for (const [candidate, own] of held) {
      const fresh = own.filter((token) => left.has(token));
      if (
        fresh.length > bestTokens.length ||
        (fresh.length === bestTokens.length &&
          fresh.length > 0 &&
          best !== undefined &&
          (options.cheaper?.(candidate, best) ?? 0) < 0)
      ) {
        best = candidate;
        bestTokens = fresh;
      }
    }
    if (best === undefined || bestTokens.length === 0) break;
    picks.push([best, bestTokens]);
    held.delete(best);
    for (const token of bestTokens) left.delete(token);
  }
  return picks;
}

/**
 * The answers of `read_offloaded` on `content` an agent asking for exactly `tokens` (each with where it
 * first occurs) would get, picked greedily: of the searches for one of them (with the tool's default
 * context) and the pages of the paged reading that hold one (the whole content when it fits a page), the
 * one bringing the most of what is still missing, the shorter on a tie, until nothing is. Line ranges are
 * left out: they need line numbers the agent no longer has.
 */
export function readBackAnswers(
  content: string,
  ref: string,
  tokens: readonly { token: string; at: number }[],
  limit: number,
): string[] {
  const searches = new Map<string, string>();
  const search = (token: string): string => {
    let answer = searches.get(token);
    if (answer === undefined) {
      answer = searchLines(content, token, DEFAULT_SEARCH_CONTEXT, ref, limit).content;
      searches.set(token, answer);
    }
    return answer;
  };
  // Without a search the tool pages: the whole blob when it fits, else part k from offset k × limit.
  const page = (index: number): string => {
    const part = pageText(content, {
      offset: index * limit,
      limit,
      label: ref,
      nextCall: (offset) => `${READ_OFFLOADED_TOOL}(${JSON.stringify({ ref, offset, limit })})`,
    });
    return typeof part === 'string' ? '' : part.content;
  };
  const pageOf = new Map(tokens.map(({ token, at }) => [token, at >= 0 ? Math.floor(at / limit) : -1]));
  const left = new Set(tokens.map(({ token }) => token));
  const answers: string[] = [];
  // The answer bringing the most of what is left, the shorter on a tie: one answer when one holds it all.
  while (left.size > 0) {
    const candidates = new Set<string>();
    for (const token of left) {
      candidates.add(search(token));
      const index = pageOf.get(token) ?? -1;
      if (index >= 0) candidates.add(page(index));
    }
    let pick: { answer: string; brings: string[] } | undefined;
    for (const answer of candidates) {
      const brings = [...left].filter((wanted) => answer.includes(wanted));
      if (
        !pick ||
        brings.length > pick.brings.length ||
        (brings.length === pick.brings.length && answer.length < pick.answer.length)
      )
        pick = { answer, brings };
    }
    if (!pick) break;
    // An answer that brings nothing (a token past what a search can show) still costs its trip.
    const brings = pick.brings.length > 0 ? pick.brings : [...left].slice(0, 1);
    answers.push(pick.answer);
    for (const token of brings) left.delete(token);
  }
  return answers;
}

/** Whether `text` names `ref` as a whole word (a ref without a folder). */
function namesRef(text: string, ref: string): boolean {
  for (let at = text.indexOf(ref); at >= 0; at = text.indexOf(ref, at + 1)) {
    const before = text[at - 1] ?? '';
    const after = text[at + ref.length] ?? '';
    if (!WORD_CHAR.test(before) && !REF_CHAR.test(after)) return true;
  }
  return false;
}
