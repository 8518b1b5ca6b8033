import { manualCompaction } from '../core/compaction/decide-compaction.ts';
import type { Edit, LayerName, Summary } from '../core/edit.ts';
import { ContextBudgetError, MemoryUnavailableError } from '../core/errors/index.ts';
import type { ContextEvent, ContextEventListener } from '../core/events.ts';
import type { MemorySink } from '../core/memory-sink.ts';
import type { Message, MessageInput } from '../core/message.ts';
import { validatePolicy } from '../core/policy/merge-policy.ts';
import type { Policy, PolicyOverride } from '../core/policy/policy-schema.ts';
import { assertValidSessionId } from '../core/session-id.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import { historyAsShown } from '../core/view/history-as-shown.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { isContextOverflow } from '../providers/is-context-overflow.ts';
import { reserveDoesNotFitWindow } from '../providers/reserve-does-not-fit.ts';
import type { WindowPolicy } from '../providers/resolve-context-window.ts';
import type { BlobStore } from '../store/blob-store.ts';
import { createMemoryBlobStore } from '../store/memory-blob-store.ts';
import { createMemoryMemorySink } from '../store/memory-memory-sink.ts';
import { createMemorySessionStore } from '../store/memory-session-store.ts';
import {
  type RetentionSchedule,
  type RetentionScheduleOptions,
  startRetention,
} from '../store/retention-schedule.ts';
import type { SessionStore } from '../store/session-store.ts';
import { createTraceRecorder, type TraceRecorder, type TraceStore } from '../store/trace-store.ts';
import { createExtractiveSummarizer } from '../summarize/extractive-summarizer.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import { runAfterTurn } from './after-turn.ts';
import { appendToSession } from './append-to-session.ts';
import { withBudgetOptions } from './budget-options.ts';
import { type CallContext, CounterChooser, type PrepareRequest } from './call-context.ts';
import { CallSetup } from './call-setup.ts';
import { chooseSummarizer } from './choose-summarizer.ts';
import type {
  AfterTurnOptions,
  AfterTurnResult,
  AppendResult,
  CompactOptions,
  ContextManagerOptions,
  OverflowRetry,
  RecoverResult,
  RetryRequestFor,
  SyncOptions,
  SyncResult,
} from './context-manager-options.ts';
import { emergencyCompact } from './emergency-compact.ts';
import { keepLastRequest } from './last-request-record.ts';
import { PolicyOverrides, storedSessionPolicy } from './policy-overrides.ts';
import { type PrepareResult, prepareCall } from './prepare-call.ts';
import { noteOverflow, recoverFromOverflow } from './recover-from-overflow.ts';
import type { SessionPolicy } from './session-policy.ts';
import { SessionResidency } from './session-residency.ts';
import type { SessionRuntime } from './session-runtime.ts';
import { type SessionStats, sessionStats } from './session-stats.ts';
import { syncHistory, validateSyncInput } from './sync-history.ts';
import { validateMessageInputs } from './validate-message-input.ts';
import { validatePrepareRequest } from './validate-prepare-request.ts';

/**
 * The ContextManager: decides what the model sees. One per process, any number of sessions.
 *
 * `policy` is the manager's; a session may have an override of its own (`setPolicyOverride`), kept in the
 * session store, and then every call on it runs under `mergePolicy(policy, override)` (see `policyOf`).
 */
export class ContextManager {
  readonly policy: Policy;
  readonly store: SessionStore;
  readonly blobs: BlobStore;
  readonly memory: MemorySink;
  readonly skills: SkillSource | undefined;
  readonly summarizer: Summarizer;
  readonly clock: () => number;
  readonly #listeners = new Set<ContextEventListener>();
  #ids = 0;
  readonly #trace: TraceRecorder | undefined;
  readonly #traceStore: TraceStore | undefined;
  /** The sessions held in memory, and the lock each call on one takes. */
  readonly #residency: SessionResidency;
  /** Sessions' policy overrides. */
  readonly #overrides: PolicyOverrides;
  /** What each path needs for a call on a loaded session. */
  readonly #setup: CallSetup;

  constructor(options: ContextManagerOptions) {
    this.policy = withBudgetOptions(validatePolicy(options?.policy), options);
    this.store = options.store ?? createMemorySessionStore();
    this.blobs = options.blobs ?? createMemoryBlobStore();
    this.memory = options.memory ?? createMemoryMemorySink();
    this.skills = options.skills;
    this.summarizer =
      options.summarizer ??
      chooseSummarizer(this.policy, {
        ...(options.model ? { client: options.model.client, model: options.model.name } : {}),
        ...(this.policy.budget.contextWindow > 0 && { contextWindow: this.policy.budget.contextWindow }),
        ...(this.policy.budget.maxOutputTokens > 0 && {
          maxOutputTokens: this.policy.budget.maxOutputTokens,
        }),
        ...(options.env ? { env: options.env } : {}),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
    this.clock = options.clock ?? Date.now;
    const sharedStore = options.sharedStore === true;
    const counters = new CounterChooser(this.policy, options.counter);
    this.#traceStore = options.trace;
    if (options.trace) {
      this.#trace = createTraceRecorder(options.trace);
      this.#listeners.add(this.#trace.listener);
    }
    const newId = () => this.#newId();
    this.#residency = new SessionResidency({
      store: this.store,
      counters,
      tokenCache: {
        messageOverheadTokens: this.policy.tokens.messageOverhead,
        mediaTokens: this.policy.tokens.mediaTokens,
        countToolCallType: this.policy.tokens.countToolCallType,
      },
      storedPolicy: (sessionId, override) => storedSessionPolicy(this.policy, sessionId, override),
      clock: this.clock,
      newId,
      emit: (events) => this.#emit(events),
      sharedStore,
      startedAt: this.clock(),
    });
    this.#overrides = new PolicyOverrides({
      policy: this.policy,
      store: this.store,
      residency: this.#residency,
      clock: this.clock,
    });
    this.#setup = new CallSetup({
      store: this.store,
      blobs: this.blobs,
      memory: this.memory,
      skills: this.skills,
      summarizer: this.summarizer,
      counters,
      residency: this.#residency,
      clock: this.clock,
      newId,
      sharedStore,
    });
  }

  /** Subscribes to every event of every session; returns the unsubscribe function. */
  on(listener: ContextEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Appends messages to the session log. Tool results are normalized as they arrive. All or nothing: when
   * any part fails (a blob write, the store), nothing of the call is stored and the session is as it was.
   *
   * A retried append is stored once. Messages already in the log are recognized and returned as stored,
   * not appended again (see `recognizeRetries`): by id when the caller gives one (the same id with other
   * content is a `MessageIdConflictError`). Without ids, only what can never be a new message is
   * recognized: a tool result its call already has, and an assistant message repeating tool calls that are
   * still waiting for their results. Give ids to make any retry safe: without them, a message that
   * repeats the one before it may be a retry or may be meant (a user sending `/undo` twice, an agent
   * polling with the same call), and it is stored. Malformed input is an `InvalidMessageError` naming the
   * field; an unusable session id an `InvalidSessionIdError`.
   *
   * A tool result that answers no open call (no call with its id, a call already answered, or one whose
   * block a later message closed) is stored but not shown to the model, which providers would refuse:
   * each is a `tool-result-hidden` event with its seq, call id and why.
   */
  append(sessionId: string, messages: readonly MessageInput[]): Promise<AppendResult> {
    try {
      validateMessageInputs(messages);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const events: ContextEvent[] = [];
      const result = await appendToSession(this.#setup, this.#residency, runtime, messages, events);
      return { messages: result, events: this.#emit(events) };
    });
  }

  /**
   * For callers that send the whole history on every call: appends only what is new, recognizing
   * messages by content; when the caller dropped or edited messages, hides the log's version of them
   * (a `branch` edit) and carries on from the caller's, never duplicating or losing a message.
   */
  sync(sessionId: string, history: readonly MessageInput[], options: SyncOptions = {}): Promise<SyncResult> {
    // Checked once the session's turn comes, in slices (a client's history may hold a million messages,
    // and other sessions' calls go on meanwhile); refused before the session is read or written.
    return this.#residency.serialized(sessionId, async () => {
      const slices = new WorkSlices();
      await validateSyncInput(history, options, slices);
      const runtime = await this.#residency.load(sessionId);
      const events: ContextEvent[] = [];
      const synced = await syncHistory(this.#setup, runtime, history, options, {
        events,
        slices,
        clock: this.clock,
        newId: () => this.#newId(),
      });
      return { messages: synced.messages, events: this.#emit(events), diverged: synced.diverged };
    });
  }

  /**
   * What to send the model now: runs the cheap layers, the hooks, and the proactive budget check with
   * the full formula. Never returns a request that cannot fit; throws `ContextBudgetError` when even the
   * fixed regions (system + tools + output reserve) cannot.
   */
  prepare(sessionId: string, request: PrepareRequest = {}): Promise<PrepareResult> {
    try {
      // Checked before the session remembers any of it (and a tool's injection mode here, not first at the
      // compaction whose snapshot records it).
      validatePrepareRequest(request);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#residency.exclusive(sessionId, (runtime) => this.#prepareLoaded(runtime, request));
  }

  /** `prepare` on a session already held (under its lock). */
  async #prepareLoaded(runtime: SessionRuntime, request: PrepareRequest): Promise<PrepareResult> {
    const call = await this.#setup.callContext(runtime, request);
    // The session's last request is part of its stored state: every process measures its next call
    // alike. Kept by prepare only: what `stats` is asked about is not a request the session made.
    await keepLastRequest(this.store, runtime.id, runtime.lastRequest, runtime.memo.request);
    const result = await prepareCall(this.#setup.compactor(runtime, call), request);
    this.#emit(result.events);
    return result;
  }

  /**
   * The async path, after each model call once its reply and tool results are in: the cheap layers run,
   * and when the turn has ended (a reply that called no tool), a background summarization starts when
   * due; the next prepare uses it.
   */
  afterTurn(sessionId: string, options: AfterTurnOptions = {}): Promise<AfterTurnResult> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const compactor = await this.#setup.compactorFor(runtime, {});
      const { turnEnded, scheduled } = await runAfterTurn(compactor, options);
      const events = this.#emit(compactor.events);
      return { turnEnded, scheduled: scheduled !== undefined, done: scheduled ?? Promise.resolve(), events };
    });
  }

  /**
   * The reactive path: the provider reported an overflow anyway. Does what the policy says at this
   * overflow in a row (`planOverflowRecovery`): adopt the window the error names, compact, reset, or let
   * the error stand. Call it on every overflow of a call: when it answers `retry`, the next `prepare`,
   * the retry, comes out smaller than the request that overflowed, or throws `ContextBudgetError`: the
   * same request is never sent again. `retryAfterOverflow` does this and the `prepare` in one call.
   */
  recover(sessionId: string, error: unknown): Promise<RecoverResult> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const compactor = await this.#setup.compactorFor(runtime, {});
      const outcome = await recoverFromOverflow(compactor, error);
      return {
        retry: outcome.retry,
        cleared: outcome.cleared,
        ...(outcome.adoptedWindow !== undefined && { adoptedWindow: outcome.adoptedWindow }),
        events: this.#emit(compactor.events),
      };
    });
  }

  /**
   * A model call failed with `error`: when it is a context overflow, recover as the policy says and
   * prepare the call again. Every door sends what this returns and calls it again if that overflows
   * too, until it returns no retry; then the provider's error stands (with `cleared`, the policy's last
   * resort emptied the context first). `request` is the one the failed call was prepared with, or a
   * function that gives the retry's request once the window is known (a caller that derives the reply
   * reserve from the window), undefined when the caller cannot send one.
   */
  async retryAfterOverflow(
    sessionId: string,
    error: unknown,
    request: PrepareRequest | RetryRequestFor = {},
  ): Promise<OverflowRetry> {
    if (!isContextOverflow(error)) return { overflow: false, retry: undefined, cleared: false, events: [] };
    // Recovery and the retry's prepare under one hold of the session: nothing appended, prepared or
    // unloaded between them can take the overflow's record away from the retry.
    return this.#residency.exclusive(sessionId, async (runtime) => {
      // The call that overflowed, as it was prepared.
      const compactor = await this.#setup.compactorFor(runtime, typeof request === 'function' ? {} : request);
      const outcome = await recoverFromOverflow(compactor, error);
      const events = this.#emit(compactor.events);
      const answer = {
        overflow: true,
        cleared: outcome.cleared,
        ...(outcome.adoptedWindow !== undefined && { adoptedWindow: outcome.adoptedWindow }),
      };
      if (!outcome.retry) return { ...answer, retry: undefined, events };
      const retryRequest =
        typeof request === 'function'
          ? await request({ adoptedWindow: outcome.adoptedWindow, policy: runtime.policy })
          : request;
      if (retryRequest === undefined) return { ...answer, retry: undefined, events };
      try {
        validatePrepareRequest(retryRequest);
        const prepared = await this.#prepareLoaded(runtime, retryRequest);
        return { ...answer, retry: prepared, events: [...events, ...prepared.events] };
      } catch (prepareError) {
        // ctxkit cannot make the retry smaller than the call that overflowed, or the caller's own reply
        // reserve does not fit the window the error named: the provider's error stands.
        if (ContextBudgetError.isInstance(prepareError) || reserveDoesNotFitWindow(prepareError))
          return { ...answer, retry: undefined, events };
        throw prepareError;
      }
    });
  }

  /**
   * The provider reported an overflow, and the caller prepares the retry itself (for the window the error
   * named, say) without the reactive path's compaction: what the error says is kept (by how much our
   * count fell short, when it gives the provider's count), and the next `prepare`, the retry, must come
   * out smaller than the request that overflowed, or it throws `ContextBudgetError` (as after `recover`).
   */
  noteOverflow(sessionId: string, error: unknown): Promise<void> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      noteOverflow(await this.#setup.compactorFor(runtime, {}), error);
    });
  }

  /** Manual `/compact`: summarizes (or drops) the older part now, keeping the recent window. */
  compact(
    sessionId: string,
    options: CompactOptions = {},
  ): Promise<{ compacted: boolean; events: ContextEvent[] }> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const compactor = await this.#setup.compactorFor(runtime, {});
      // Asked for explicitly: when everything fits the usual recent window, keep just the current turn.
      const compacted = await compactor.carryOut(
        manualCompaction(runtime.policy, compactor.budget.window(), options),
      );
      return { compacted, events: this.#emit(compactor.events) };
    });
  }

  /**
   * Emergency compaction on demand (digitorn's session-compact endpoint, a "Free up context" button): the
   * policy's emergency sequence now, as after an overflow, with no model call (digitorn: keep_recent
   * halved, minimum 4, the rest dropped with a reminder). Steps that summarize (cowagent's memory note, tiancai's
   * compact) summarize extractively; when the policy's steps free nothing, or it has none, keep_recent is
   * halved as digitorn does. Edits are layer `emergency`, reason `manual`; ends with an
   * `emergency-compacted` event. The overflow count and the retry state are left as they were.
   */
  emergencyCompact(sessionId: string): Promise<{ compacted: boolean; events: ContextEvent[] }> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const call = await this.#setup.callContext(runtime, {});
      const offline = this.summarizer.usesModel ? createExtractiveSummarizer() : this.summarizer;
      const compactor = this.#setup.compactor(runtime, call, offline);
      const compacted = await emergencyCompact(compactor);
      return { compacted, events: this.#emit(compactor.events) };
    });
  }

  /** `/context clear`: the agent forgets the conversation; what it was is kept in the log and in memory. */
  clear(sessionId: string): Promise<{ events: ContextEvent[] }> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const compactor = await this.#setup.compactorFor(runtime, {});
      await compactor.clearContext();
      return { events: this.#emit(compactor.events) };
    });
  }

  /** Context statistics: messages, roles, characters, tokens by category, pressure and thresholds. */
  stats(sessionId: string, request: PrepareRequest = {}): Promise<SessionStats> {
    try {
      validatePrepareRequest(request);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const call = await this.#setup.callContext(runtime, request);
      const compactor = this.#setup.compactor(runtime, call);
      return sessionStats(runtime, call, runtime.policy, {
        ...compactor.budget.countedRegions(),
        memory: compactor.budget.memoryTokens(),
      });
    });
  }

  /**
   * The policy the session runs under, and its override (`{}` when it has none): what every call on it
   * uses. Read from the store when this manager loaded the session; an override another process set since
   * shows once the session is reloaded (`unload`). A stored override that no longer fits the manager's
   * policy (the manager's changed under it) is an `InvalidPolicyError` naming the key, here and on every
   * call, until the override is changed.
   */
  policyOf(sessionId: string): Promise<SessionPolicy> {
    return this.#residency.exclusive(sessionId, async (runtime) =>
      structuredClone({ override: runtime.policyOverride, policy: runtime.policy }),
    );
  }

  /** The budget settings the session runs under (its override's, else the manager's): `policyOf`'s, cheaper. */
  budgetOf(sessionId: string): Promise<Policy['budget']> {
    return this.#residency.exclusive(sessionId, async (runtime) => structuredClone(runtime.policy.budget));
  }

  /**
   * What the window rule (`chooseContextWindow`) reads of the session's policy: `policyOf`'s, without
   * copying the rest of it (a proxy asks on every request).
   */
  windowPolicyOf(sessionId: string): Promise<WindowPolicy> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const { budget, summarize } = runtime.policy;
      return {
        budget: {
          contextWindow: budget.contextWindow,
          maxOutputTokens: budget.maxOutputTokens,
          detectWindow: budget.detectWindow,
          maxContextTokens: budget.maxContextTokens,
          maxContextTokensWhen: budget.maxContextTokensWhen,
        },
        summarize: { maxMessages: summarize.maxMessages, maxMessagesWhen: summarize.maxMessagesWhen },
      };
    });
  }

  /**
   * Gives the session a policy override of its own (`null` removes it), replacing the one it had: every
   * later call on it runs under the manager's policy with this override applied field by field. Kept in
   * the session store (a session with no messages yet is created by it), so it holds after a restart and
   * for every process sharing the store. Returns the override as kept and the session's policy.
   *
   * Checked first, storing nothing when refused: an `InvalidPolicyError` lists every problem with its key
   * path (`details.issues`): unknown keys, bad values, rules that tie fields together once merged, and keys
   * a session cannot change because the manager sets them up once for all its sessions (the token
   * counters, the summarizer, retention, the display: `MANAGER_WIDE_POLICY_KEYS`; `details.scope` is
   * `'manager'` when those are the only problem). Such a key set to the manager's own value is accepted
   * and dropped, as it changes nothing.
   */
  setPolicyOverride(sessionId: string, override: PolicyOverride | null): Promise<SessionPolicy> {
    return this.#overrides.set(sessionId, override);
  }

  /**
   * Changes the session's override by a JSON merge patch (RFC 7396: objects merge, `null` removes a key,
   * arrays and values replace) applied to the override as stored now, then as `setPolicyOverride`.
   * Calls on one session are serialized in this manager; two processes patching one session at once
   * each apply their patch to what they read, and the later write wins.
   */
  patchPolicyOverride(sessionId: string, patch: Readonly<Record<string, unknown>>): Promise<SessionPolicy> {
    return this.#overrides.patch(sessionId, patch);
  }

  /**
   * The session's log and edits, as stored (for replay and audit): the log exactly as appended, never
   * rewritten. For the history as people read it, with what the edits made of it, see `transcript`.
   */
  history(sessionId: string): Promise<{ log: Message[]; edits: Edit[] }> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const whole = await this.#residency.whole(runtime);
      return { log: [...whole.log], edits: [...whole.edits] };
    });
  }

  /**
   * The history as people read it (export, transcripts, the dashboard): every log message, archived
   * tool results marked `agentVisible: false`, `kind: 'tool_result_archived'` (their `userVisible`
   * kept), and each archive's `tool_summary` digest in its place (tiancai). See `historyAsShown`.
   */
  transcript(sessionId: string): Promise<Message[]> {
    return this.#residency.exclusive(sessionId, async (runtime) => {
      const whole = await this.#residency.whole(runtime);
      return historyAsShown(whole.log, whole.edits);
    });
  }

  /** Reads back content the manager offloaded (a spilled tool output, a summarized transcript). */
  readOffloaded(sessionId: string, ref: string): Promise<string> {
    try {
      assertValidSessionId(sessionId);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.blobs.get(sessionId, ref);
  }

  /**
   * Reads a memory file by the path the memory index gives it (`MEMORY.md`, `memory/YYYY-MM-DD.md`): what
   * the `read_memory` tool answers. Memory is the agent's, not a session's. Refuses any other path
   * (`InvalidMemoryPathError`); `MemoryUnavailableError` when the memory sink keeps no files.
   */
  readMemory(path: string): Promise<string> {
    const sink = this.memory;
    if (!sink.readNote) return Promise.reject(new MemoryUnavailableError());
    return sink.readNote(path);
  }

  /** Waits until every event so far is in the trace; rethrows a failed trace write. */
  async flushTrace(): Promise<void> {
    await this.#trace?.flush();
  }

  /**
   * cowagent's automatic clean-up, in one call for an agent or a service: sessions idle past the policy's
   * `retention.maxIdleDays` are removed from this manager's store, blobs and trace now and then once a day
   * (see `startRetention`), and their in-memory state with them, so a removed session starts afresh if it
   * is used again. `maxIdleDays: 0` keeps everything. `stop()` ends the schedule.
   */
  startRetention(
    options: Pick<RetentionScheduleOptions, 'everyMs' | 'timers' | 'onSweep' | 'keepTrace'> = {},
  ): RetentionSchedule {
    return startRetention({
      sessions: this.store,
      blobs: this.blobs,
      ...(this.#traceStore ? { trace: this.#traceStore } : {}),
      clock: this.clock,
      maxIdleDays: this.policy.retention.maxIdleDays,
      ...options,
      onSweep: (outcome) => {
        if (outcome.ok) for (const removed of outcome.report.removed) this.unload(removed.sessionId);
        options.onSweep?.(outcome);
      },
    });
  }

  /**
   * Reads the session again from the store when another process changed it there since this manager last
   * read or wrote it (its log or its edits grew, its policy override or its last request changed), and
   * keeps what this manager learned of it otherwise (usage anchors, the overflow scale, a summary in
   * progress). For processes sharing one store that each hold a session while they work on it (ctxkit
   * serve's session locks): call it once the session is held. True when the session will be read again.
   */
  refresh(sessionId: string): Promise<boolean> {
    return this.#residency.serialized(sessionId, () => this.#residency.forgetIfStale(sessionId));
  }

  /**
   * Resolves once the session's work in this manager is over: calls queued on it, and a summary a turn
   * scheduled in the background (applied or not). Before deleting a session: nothing of it is written
   * after.
   */
  settle(sessionId: string): Promise<void> {
    return this.#residency.settle(sessionId);
  }

  /** Drops the in-memory state of a session (it reloads from the store on next use). */
  unload(sessionId: string): void {
    this.#residency.unload(sessionId);
  }

  /**
   * How many messages the session holds in this manager's memory (their ids at least, bodies from its
   * newest cut on), 0 when it is not loaded: what keeping it loaded costs, for whoever bounds that.
   */
  loadedMessages(sessionId: string): number {
    return this.#residency.loaded(sessionId)?.nextSeq ?? 0;
  }

  #emit(events: ContextEvent[]): ContextEvent[] {
    for (const event of events) for (const listener of this.#listeners) listener(event);
    return events;
  }

  #newId(): string {
    this.#ids++;
    return `e${this.clock().toString(36)}${this.#ids.toString(36)}`;
  }
}

export function createContextManager(options: ContextManagerOptions): ContextManager {
  return new ContextManager(options);
}

export type {
  AfterTurnOptions,
  AfterTurnResult,
  AppendResult,
  CallContext,
  CompactOptions,
  ContextManagerOptions,
  LayerName,
  OverflowRetry,
  PrepareRequest,
  PrepareResult,
  RecoverResult,
  RetryRequestFor,
  SessionPolicy,
  SessionStats,
  Summary,
  SyncOptions,
  SyncResult,
};
