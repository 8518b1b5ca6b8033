import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { Edit } from '../core/edit.ts';
import { isPrefixEdit, lowestSeqTouched } from '../core/edit.ts';
import { ContextBudgetError, ModelCallError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message, MessageInput, Part } from '../core/message.ts';
import { estimateToolDefinitionTokens } from '../core/tokens/estimate-tool-definition-tokens.ts';
import { createExactCounter } from '../core/tokens/exact-counter.ts';
import { createHeuristicCounter } from '../core/tokens/heuristic-counter.ts';
import { MessageTokenCache } from '../core/tokens/message-token-cache.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import { projectView, type View } from '../core/view/project-view.ts';
import { findPairingViolations } from '../core/view/tool-pairing-repair.ts';
import { assembleRequest, reminderPlacementFor } from '../engine/assemble-request.ts';
import type { PrepareRequest } from '../engine/call-context.ts';
import { DEFAULT_SUMMARY_MAX_TOKENS } from '../engine/compactor.ts';
import { createContextManager } from '../engine/context-manager.ts';
import type { PrepareResult } from '../engine/prepare-call.ts';
import { safeMessageBoundaries } from '../layers/safe-cut.ts';
import type { SessionSpec } from './session-arbitraries.ts';
import { materializeSession, type ResolvedRequest, type SessionScript } from './session-script.ts';

/**
 * Drives one generated session through a ContextManager and checks, after every operation, what the
 * engine promises (see guarantees.property.test.ts). Throws on the first broken promise, saying which
 * operation broke it.
 */

/** Layer applications (compaction-finished events) one prepare may run; the snip loop halves ≤ 10 times. */
export const MAX_COMPACTIONS_PER_PREPARE = 24;
/** What one snipped message may keep of its text: the final snip limit (< 128) and its marker. */
const SNIPPED_TEXT_TOKENS = 160;
/** The continuation note assembly adds when the history starts with the assistant, and rounding. */
const ASSEMBLY_SLACK_TOKENS = 40;
/** The summary region is estimated per piece (prefix, summary, framing): never under, at most this over. */
const SUMMARY_ESTIMATE_SLACK = 12;

export interface SessionReport {
  prepares: number;
  fitted: number;
  /** Prepares refused because the fixed regions alone exceed the window, and for the history. */
  fixedErrors: number;
  budgetErrors: number;
  compactions: number;
  summaries: number;
  /** The most layer runs (compaction-finished events) one prepare needed, and the most edits. */
  maxLayerRuns: number;
  maxEdits: number;
  /** The largest summary, as a share of its cap. */
  maxSummaryShare: number;
}

interface Expected {
  input: MessageInput;
  snapshot: MessageInput;
}

/** `trace` receives a line per operation (for reproducing a failure by hand). */
export async function runGuaranteeSession(
  spec: SessionSpec,
  trace?: (line: string) => void,
): Promise<SessionReport> {
  const script = materializeSession(spec);
  return new GuaranteeSession(script, trace).run();
}

class GuaranteeSession {
  readonly script: SessionScript;
  readonly counter: TokenCounter;
  readonly cache: MessageTokenCache;
  readonly manager;
  readonly sessionId = 's';
  readonly report: SessionReport = {
    prepares: 0,
    fitted: 0,
    fixedErrors: 0,
    budgetErrors: 0,
    compactions: 0,
    summaries: 0,
    maxLayerRuns: 0,
    maxEdits: 0,
    maxSummaryShare: 0,
  };
  expected: Expected[] = [];
  /** The caller's own history (what sync sends). */
  branch: MessageInput[] = [];
  events: ContextEvent[] = [];
  edits: Edit[] = [];
  /** The request in force (prepare merges it; afterTurn, recover and compact use it). */
  request: ResolvedRequest;
  /** The window in force when a background summary was last scheduled. */
  asyncWindow = 0;
  /**
   * A reported overflow makes the engine inflate its history estimate (by how much is its own policy)
   * until usage is reported again: meanwhile a recount may be lower than the stats, and "a fitting view
   * exists" cannot be decided from outside.
   */
  inflated = false;
  /** Edits count at which reported usage may anchor the estimate (see SessionRuntime.recordUsage). */
  anchorEdits: number | undefined;
  /** The reply the usage came with: later edits of newer messages leave the anchor standing. */
  anchorThroughSeq = -1;
  lastPrepare: PrepareResult | undefined;
  /** Input tokens of the last prepared request, which reported usage refers to. */
  lastUsageBase: number | undefined;
  /** Reported usage for the next assistant message, as a factor of `lastUsageBase`. */
  pendingUsage: number | undefined;
  waits: Promise<void>[] = [];
  /** The log as last checked, and whether this is the final check (everything compared again). */
  logSeen: Message[] = [];
  final = false;
  step = '';

  readonly trace: ((line: string) => void) | undefined;

  constructor(script: SessionScript, trace?: (line: string) => void) {
    this.script = script;
    this.trace = trace;
    const { policy } = script;
    this.counter =
      script.spec.counter === 'exact'
        ? createExactCounter('o200k')
        : createHeuristicCounter(policy.tokens.charsPerToken);
    this.cache = new MessageTokenCache({
      messageOverheadTokens: policy.tokens.messageOverhead,
      mediaTokens: policy.tokens.mediaTokens,
      countToolCallType: policy.tokens.countToolCallType,
    });
    let now = 1_700_000_000_000;
    this.manager = createContextManager({ policy, counter: this.counter, clock: () => (now += 1_000) });
    this.manager.on((event) => this.events.push(event));
    const first = script.calls[0];
    if (!first) throw new Error('a script has at least one call');
    this.request = first.effective;
  }

  async run(): Promise<SessionReport> {
    for (const [index, call] of this.script.calls.entries()) {
      this.step = `call ${index} (${call.spec.delivery})`;
      await this.deliver(this.script.messages.slice(call.from, call.to), call.spec.delivery);
      await this.check();
      this.step = `call ${index} prepare`;
      this.request = call.effective;
      await this.prepare(call.request);
      for (const [offset, after] of call.spec.after.entries()) {
        this.step = `call ${index} ${after.op}`;
        switch (after.op) {
          case 'afterTurn': {
            this.asyncWindow = Math.max(this.asyncWindow, this.request.contextWindow);
            const turn = await this.manager.afterTurn(this.sessionId);
            if (after.wait) await turn.done;
            else this.waits.push(turn.done);
            break;
          }
          case 'recover':
            // The error answers the request just prepared: only meaningful right after it.
            if (offset > 0 || !this.lastPrepare) continue;
            await this.recover(this.lastPrepare, after.figures, after.factor);
            break;
          case 'compact':
            await this.manager.compact(this.sessionId, after.strategy ? { strategy: after.strategy } : {});
            break;
          case 'clear':
            await this.manager.clear(this.sessionId);
            break;
          case 'usage':
            if (this.lastPrepare) this.pendingUsage = after.factor;
            continue;
        }
        await this.check();
      }
      this.lastPrepare = undefined;
    }
    await Promise.all(this.waits);
    this.step = 'end';
    this.final = true;
    await this.check();
    for (const { input, snapshot } of this.expected) {
      same(input, snapshot, 'a message passed in was mutated');
    }
    return this.report;
  }

  async deliver(chunk: MessageInput[], delivery: 'append' | 'sync' | 'sync-edit'): Promise<void> {
    const first = chunk[0];
    if (this.pendingUsage !== undefined && first?.role === 'assistant' && this.lastUsageBase !== undefined) {
      const usage = {
        inputTokens: Math.max(1, Math.round(this.lastUsageBase * this.pendingUsage)),
        outputTokens: 24,
      };
      chunk = [{ ...first, usage }, ...chunk.slice(1)];
      this.inflated = false;
      if (this.script.policy.tokens.anchorOnUsage) {
        this.anchorEdits = Number.POSITIVE_INFINITY;
        this.anchorThroughSeq = (await this.manager.history(this.sessionId)).log.length;
      }
    }
    this.pendingUsage = undefined;
    const last = this.branch.at(-1);
    if (delivery === 'sync-edit' && last) {
      const edited = editMessage(last);
      const history = [...this.branch.slice(0, -1), edited, ...chunk];
      const result = await this.manager.sync(this.sessionId, history);
      ensure(result.diverged, `${this.step}: an edited last message is a divergence`);
      this.record([edited, ...chunk]);
      this.branch = history;
    } else if (delivery === 'sync' || delivery === 'sync-edit') {
      const result = await this.manager.sync(this.sessionId, [...this.branch, ...chunk]);
      ensure(!result.diverged, `${this.step}: the same history plus new messages is no divergence`);
      same(result.messages.length, chunk.length, `${this.step}: messages a sync appends`);
      this.record(chunk);
      this.branch.push(...chunk);
    } else if (chunk.length > 0) {
      await this.manager.append(this.sessionId, chunk);
      this.record(chunk);
      this.branch.push(...chunk);
    }
    if (this.anchorEdits === Number.POSITIVE_INFINITY) {
      this.anchorEdits = (await this.manager.history(this.sessionId)).edits.length;
    }
  }

  record(messages: MessageInput[]): void {
    for (const input of messages) this.expected.push({ input, snapshot: structuredClone(input) });
  }

  /**
   * Whether the engine's estimate may be anchored on reported usage (then our recount may differ): no edit
   * since the anchor reached into the request the usage was reported for (SessionRuntime.addEdits).
   */
  anchored(edits: readonly Edit[]): boolean {
    const from = this.anchorEdits;
    if (from === undefined) return false;
    return edits.slice(from).every((edit) => lowestSeqTouched(edit) > this.anchorThroughSeq);
  }

  async prepare(request: PrepareRequest): Promise<void> {
    this.report.prepares++;
    const before = this.events.length;
    let result: PrepareResult | undefined;
    let failure: unknown;
    try {
      result = await this.manager.prepare(this.sessionId, request);
    } catch (error) {
      failure = error;
    }
    const { log, edits } = await this.manager.history(this.sessionId);
    if (this.trace && !result) this.traceState(log, edits);
    const pure = projectView(log, edits);
    const fixed = this.fixedTokens();
    const window = this.request.contextWindow;
    if (result) {
      this.lastPrepare = result;
      this.lastUsageBase = result.stats.tokens.input;
      this.report.fitted++;
      this.checkPrepared(result, log, edits, pure, this.events.slice(before));
      // `/context` says what prepare said, while nothing changed.
      const stats = await this.manager.stats(this.sessionId);
      same(stats.tokens, result.stats.tokens, `${this.step}: stats() after prepare`);
    } else {
      this.lastPrepare = undefined;
      if (!ContextBudgetError.isInstance(failure)) throw failure;
      if (fixed.total > window) this.report.fixedErrors++;
      else this.report.budgetErrors++;
      same(failure.code, 'context_budget_exceeded', `${this.step}: error code`);
      if (fixed.total > window) {
        ensure(
          failure.region !== 'history',
          `${this.step}: the fixed regions do not fit: one of them is named`,
        );
      } else if (!this.inflated) {
        const room = window - fixed.total;
        const minimal = this.minimalHistoryTokens(pure);
        if (room >= minimal) {
          throw new Error(
            `${this.step}: a fitting view existed (room ${room} ≥ minimal history ${minimal}; window ${window}, ` +
              `fixed ${JSON.stringify(fixed)}) but prepare threw: ${failure.message} ${JSON.stringify(failure.details)}`,
          );
        }
      }
    }
    if (result && fixed.total > window)
      throw new Error(`${this.step}: prepare succeeded although the fixed regions exceed the window`);
    await this.check();
  }

  #fixed:
    | { request: ResolvedRequest; figures: { system: number; tools: number; reserve: number; total: number } }
    | undefined;

  fixedTokens(): { system: number; tools: number; reserve: number; total: number } {
    if (this.#fixed?.request === this.request) return this.#fixed.figures;
    const { system, tools, maxOutputTokens } = this.request;
    const systemTokens = system ? this.counter.count(system) + this.script.policy.tokens.messageOverhead : 0;
    const toolTokens = estimateToolDefinitionTokens(tools, this.counter);
    const figures = {
      system: systemTokens,
      tools: toolTokens,
      reserve: maxOutputTokens,
      total: systemTokens + toolTokens + maxOutputTokens,
    };
    this.#fixed = { request: this.request, figures };
    return figures;
  }

  tokensOf(message: Message): number {
    return this.cache.estimate(message, this.counter).total;
  }

  /**
   * The smallest history the engine can always reach: the newest unit no cut may split (the last
   * message, or an assistant message with its calls' results), every text in it snipped, plus the
   * continuation note. What cannot be snipped (media, tool-call arguments, reasoning, framing) stays.
   */
  minimalHistoryTokens(view: View): number {
    const messages = view.entries.map((entry) => entry.message);
    if (messages.length === 0) return 0;
    const points = safeMessageBoundaries(messages).filter(
      (point) => view.entries[point]?.sourceSeq !== undefined,
    );
    const start = points.at(-1) ?? 0;
    let tokens = ASSEMBLY_SLACK_TOKENS;
    for (const message of messages.slice(start)) {
      const irreducible = this.tokensOf({
        ...message,
        id: `${message.id}#bare`,
        parts: message.parts.flatMap(bare),
      });
      tokens += Math.min(this.tokensOf(message), irreducible + SNIPPED_TEXT_TOKENS);
    }
    return tokens;
  }

  checkPrepared(
    result: PrepareResult,
    log: Message[],
    edits: Edit[],
    pure: View,
    events: ContextEvent[],
  ): void {
    const { stats } = result;
    const at = this.step;
    // 1. No view separates a call from its result.
    const violations = findPairingViolations(result.messages);
    same(violations, [], `${at}: tool pairing`);
    // 2. It fits, and the figures are the call's.
    same(stats.contextWindow, this.request.contextWindow, `${at}: window`);
    same(stats.maxOutputTokens, this.request.maxOutputTokens, `${at}: output reserve`);
    if (stats.tokens.input + stats.maxOutputTokens > stats.contextWindow) {
      throw new Error(
        `${at}: over the window: input ${stats.tokens.input} + output ${stats.maxOutputTokens} > ${stats.contextWindow}`,
      );
    }
    same(stats.messages, result.messages.length, `${at}: messages`);
    // ... and the stats do not lie: recount what is sent.
    const fixed = this.fixedTokens();
    same(stats.tokens.system, fixed.system, `${at}: system tokens`);
    same(stats.tokens.tools, fixed.tools, `${at}: tool tokens`);
    if (!this.anchored(edits)) {
      const overhead = this.script.policy.tokens.messageOverhead;
      let sent = (result.system ? this.counter.count(result.system) + overhead : 0) + fixed.tools;
      for (const message of result.messages) sent += this.tokensOf(message);
      const claimed = stats.tokens.input;
      if (sent > claimed || (!this.inflated && claimed - sent > SUMMARY_ESTIMATE_SLACK)) {
        throw new Error(
          `${at}: the stats say ${claimed} input tokens${this.inflated ? ' (inflated after an overflow)' : ''} but the request ` +
            `counts ${sent} (system ${stats.tokens.system}, tools ${stats.tokens.tools}, summary ${stats.tokens.summary}, ` +
            `history ${stats.tokens.history}, ${result.messages.length} messages)`,
        );
      }
    }
    // 4. Compaction is bounded, every committed edit is reported, and prefix layers never grow history.
    const finished = events.filter((event) => event.type === 'compaction-finished');
    this.report.maxLayerRuns = Math.max(this.report.maxLayerRuns, finished.length);
    this.report.maxEdits = Math.max(this.report.maxEdits, stats.edits);
    ensure(
      finished.length <= MAX_COMPACTIONS_PER_PREPARE,
      `${at}: ${finished.length} layer runs in one prepare`,
    );
    const reported = finished.reduce((sum, event) => sum + event.editIds.length, 0);
    same(stats.edits, reported, `${at}: edits committed vs reported`);
    // Per-message layers (truncate, snip, caps) edit each message about once per run.
    ensure(
      stats.edits <= MAX_COMPACTIONS_PER_PREPARE + log.length,
      `${at}: ${stats.edits} edits in one prepare`,
    );
    // The incremental view is the pure projection, assembled.
    const assembled = this.assemble(pure, this.request.system);
    same(result.messages, assembled.messages, `${at}: incremental view vs projectView(log, edits)`);
    same(result.system, assembled.system, `${at}: system prompt`);
  }

  /** The request the pure projection makes under the script's policy, as prepare() assembles it. */
  assemble(pure: View, system: string): ReturnType<typeof assembleRequest> {
    const { summarize } = this.script.policy;
    return assembleRequest({
      system,
      history: pure.entries.map((entry) => entry.message),
      summary: pure.summary,
      placement: summarize.placement,
      prefix: summarize.prefix,
      reminder: pure.reminder,
      reminderPlacement: reminderPlacementFor(summarize.placement),
    });
  }

  async recover(prepared: PrepareResult, figures: 'openai' | 'none', factor: number): Promise<void> {
    const { contextWindow, maxOutputTokens } = prepared.stats;
    const estimate = prepared.stats.tokens.input;
    const counted = Math.ceil(estimate * factor);
    const error =
      figures === 'openai'
        ? new ModelCallError(
            `This model's maximum context length is ${contextWindow} tokens. However, you requested ${counted + maxOutputTokens} tokens (${counted} in the messages, ${maxOutputTokens} in the completion). Please reduce the length of the messages.`,
            { status: 400, providerCode: 'context_length_exceeded', providerType: 'invalid_request_error' },
          )
        : new ModelCallError('prompt is too long for the context window', {
            status: 400,
            providerType: 'invalid_request_error',
          });
    this.inflated = true;
    const result = await this.manager.recover(this.sessionId, error);
    ensure(
      result.events.some((event) => event.type === 'context-overflowed'),
      `${this.step}: overflow recorded`,
    );
  }

  /** The checks that hold after every operation. */
  async check(): Promise<void> {
    const at = this.step;
    const { log, edits } = await this.manager.history(this.sessionId);
    if (this.trace) this.traceState(log, edits);
    // 3. The log is exactly what was appended, never mutated: new messages are compared in full, known
    // ones must be the same objects (and are compared in full again at the end).
    same(log.length, this.expected.length, `${at}: log length`);
    log.forEach((message, seq) => {
      if (seq < this.logSeen.length && this.logSeen[seq] === message && !this.final) return;
      const { id: _id, seq: actualSeq, ...rest } = message;
      same(
        { seq: actualSeq, ...rest },
        { seq, ...this.expected[seq]?.snapshot },
        `${at}: log message ${seq}`,
      );
    });
    this.logSeen = log;
    // Edits are append-only too.
    for (const [index, edit] of this.edits.entries()) {
      if (edits[index] !== edit)
        throw new Error(`${at}: edit ${index} (${edit.type}) was replaced or removed`);
    }
    const ids = new Set(edits.map((edit) => edit.id));
    same(ids.size, edits.length, `${at}: edit ids are unique`);
    const fresh = edits.slice(this.edits.length);
    this.edits = edits;
    // Every message of the log is in the view as logged, or covered by an edit that says why.
    const pure = projectView(log, edits);
    const shown = new Map<number, Message>();
    for (const entry of pure.entries)
      if (entry.sourceSeq !== undefined) shown.set(entry.sourceSeq, entry.message);
    for (const message of log) {
      const coverage = pure.coverage.get(message.seq);
      if (coverage?.by === 'edit' && !ids.has(coverage.editId))
        throw new Error(`${at}: coverage names a missing edit`);
      if (shown.get(message.seq) !== message && !coverage) {
        throw new Error(
          `${at}: log message ${message.seq} (${message.role}) is neither shown as logged nor covered`,
        );
      }
    }
    same(findPairingViolations(pure.entries.map((entry) => entry.message)), [], `${at}: pure view pairing`);
    // 5. Summaries stay under their cap.
    for (const edit of fresh) {
      if (edit.type !== 'summarize') continue;
      this.report.summaries++;
      const cap = this.summaryCap();
      const tokens = this.counter.count(edit.summary.text);
      same(edit.summary.tokens, tokens, `${at}: a summary's stated tokens`);
      if (tokens > cap) throw new Error(`${at}: summary of ${tokens} tokens over its cap ${cap}`);
      this.report.maxSummaryShare = Math.max(this.report.maxSummaryShare, tokens / cap);
    }
    // 4. Prefix layers never grow the history.
    const byId = new Map(edits.map((edit) => [edit.id, edit]));
    for (const event of this.events) {
      if (event.type !== 'compaction-finished') continue;
      this.report.compactions++;
      const prefix = event.editIds.some((id) => {
        const edit = byId.get(id);
        return edit !== undefined && isPrefixEdit(edit);
      });
      if (prefix && event.tokensAfter > event.tokensBefore) {
        throw new Error(
          `${at}: ${event.layer} (${event.reason}) grew the history: ${event.tokensBefore} → ${event.tokensAfter}`,
        );
      }
    }
    this.events = [];
    // The incremental view equals the pure projection: what stats() reads from it.
    const open = projectView(log, edits, { leaveCallsOpen: true });
    const stats = await this.manager.stats(this.sessionId);
    const roles = { user: 0, assistant: 0, tool: 0 };
    let chars = 0;
    let tokens = 0;
    let turns = 0;
    for (const { message } of open.entries) {
      roles[message.role]++;
      tokens += this.tokensOf(message);
      if (startsTurn(message)) turns++;
      for (const part of message.parts) {
        if (part.type === 'text' || part.type === 'reasoning') chars += part.text.length;
        else if (part.type === 'tool-call') chars += part.args.length;
        else if (part.type === 'tool-result') chars += part.content.length;
      }
    }
    for (const standIn of open.pairing.pending()) tokens += this.tokensOf(standIn);
    const assembled = this.assemble(pure, '');
    for (const note of assembled.injected)
      if (note.id.startsWith('continuation-')) tokens += this.tokensOf(note);
    same(
      {
        view: stats.messages.view,
        log: stats.messages.log,
        roles: stats.roles,
        chars: stats.chars,
        turns: stats.turns,
        edits: stats.edits,
      },
      { view: open.entries.length, log: log.length, roles, chars, turns, edits: edits.length },
      `${at}: the incremental view vs projectView(log, edits)`,
    );
    if (!this.anchored(edits) && !this.inflated) same(stats.tokens.history, tokens, `${at}: history tokens`);
    same(stats.summary?.throughSeq, open.summary?.throughSeq, `${at}: the summary in view`);
  }

  traceState(log: Message[], edits: Edit[]): void {
    const trace = this.trace;
    if (!trace) return;
    trace(
      `${this.step}: log ${log.length}, edits ${edits.length}, request ${JSON.stringify({ ...this.request, system: this.request.system.length, tools: this.request.tools.length })}`,
    );
    for (const edit of edits.slice(this.edits.length)) trace(`  + ${JSON.stringify(edit).slice(0, 240)}`);
    for (const event of this.events) trace(`  event ${JSON.stringify(event).slice(0, 240)}`);
    for (const entry of projectView(log, edits).entries) {
      trace(
        `  view ${entry.message.role} seq ${entry.sourceSeq ?? '-'} ${this.tokensOf(entry.message)} ${JSON.stringify(entry.message.parts).slice(0, 120)}`,
      );
    }
  }

  summaryCap(): number {
    const { maxSummaryTokens } = this.script.policy.summarize;
    const policyCap = maxSummaryTokens > 0 ? maxSummaryTokens : DEFAULT_SUMMARY_MAX_TOKENS;
    const window = Math.max(this.request.contextWindow, this.asyncWindow);
    return Math.min(policyCap, Math.max(64, Math.floor(window / 4)));
  }
}

/** A message's parts without what a snip can clip (text, result content). */
function bare(part: Part): Part[] {
  if (part.type === 'text') return [];
  if (part.type === 'tool-result') return [{ ...part, content: '' }];
  return [part];
}

/** The caller edits the last message of its history (a retry with a changed prompt, a corrected result). */
function editMessage(message: MessageInput): MessageInput {
  let edited = false;
  const parts = message.parts.map((part): Part => {
    if (edited) return part;
    if (part.type === 'text') {
      edited = true;
      return { ...part, text: `${part.text} (edited)` };
    }
    if (part.type === 'tool-result') {
      edited = true;
      return { ...part, content: `${part.content} (edited)` };
    }
    return part;
  });
  if (!edited) {
    const index = parts.findIndex((part) => part.type === 'tool-call');
    const call = parts[index];
    if (call?.type === 'tool-call') parts[index] = { ...call, args: '{"edited":true}' };
    else parts.push({ type: 'text', text: '(edited)' });
  }
  return { ...message, parts };
}

function ensure(condition: boolean, what: string): void {
  if (!condition) throw new Error(what);
}

/** Deep equality, cheap when it holds; vitest's diff when it does not. */
function same(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, what).toEqual(expected);
}
