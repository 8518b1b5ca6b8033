import type { BudgetRegions } from '../core/budget/context-budget.ts';
import { type Edit, type EvictEdit, lowestSeqTouched, type Summary } from '../core/edit.ts';
import { CorruptSessionError } from '../core/errors/index.ts';
import type { Message, Usage } from '../core/message.ts';
import { isAgentVisible } from '../core/message.ts';
import type { Policy, PolicyOverride } from '../core/policy/policy-schema.ts';
import { assignStableIdsInSlices } from '../core/stable-id.ts';
import { CalibratedTokenCounter } from '../core/tokens/calibrated-counter.ts';
import { calibrationAnchor, measureRequest } from '../core/tokens/measure-request.ts';
import type { MessageTokenCache } from '../core/tokens/message-token-cache.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import { startsTurn } from '../core/turns/parse-turn-boundaries.ts';
import type { ReadonlyView, View, ViewEntry } from '../core/view/project-view.ts';
import { projectMessage, projectView, projectViewInSlices } from '../core/view/project-view.ts';
import { viewAfterCut } from '../core/view/view-after-cut.ts';
import { forEachInSlices, WorkSlices } from '../core/work-slices.ts';
import type { RecentSession } from '../store/session-store.ts';
import {
  type CallContext,
  type CounterChooser,
  type FixedRegionMemo,
  type PrepareRequest,
  resolveCallContext,
} from './call-context.ts';
import { CallerBranch } from './caller-branch.ts';
import type { IndexSources } from './context-indexes.ts';
import { EditsByTarget } from './edits-by-target.ts';
import { LastRequestRecord } from './last-request-record.ts';
import { LayerProgress } from './layer-progress.ts';
import type { SessionPolicy } from './session-policy.ts';
import { ShortTextCounts } from './short-text-counts.ts';

/**
 * Held messages a cut covers plus view entries it shifts, past which a new cut re-projects the view in
 * slices instead of taking its messages off the front at once (`cutInPlace`).
 */
export const CUT_IN_PLACE_MAX_ITEMS = 8_192;

/**
 * One session in memory: the append-only log, the append-only edits, and the view of them kept up to
 * date incrementally. Appending a message costs one projection step and one token count; an edit that
 * only replaces a message's content patches it in place; any other edit (a cut, hidden messages)
 * re-projects. `projectView(log, edits)` is the reference
 * this must always agree with (a test checks it).
 */
export class SessionRuntime {
  readonly id: string;
  /**
   * The log messages held in memory: from `logStart` on. That is all of them, unless the session was
   * resumed from its store, which reads only what the view can show; `loadOlder` fills in the rest.
   */
  #heldLog: Message[] = [];
  #logStart = 0;
  /**
   * The edits held in memory: all of them, unless the session was resumed, which reads only those the
   * view can depend on (see `RecentSession.edits`); `loadOlder` fills in the rest. `editCount` counts all.
   */
  #edits: Edit[] = [];
  #editsByTarget = new EditsByTarget();
  #editCount = 0;
  #view: View;
  /** Agent-visible tokens of each view entry, aligned with `view.entries`, under `counter`. */
  #entryTokens: number[] = [];
  #historyTokens = 0;
  /** Indices in `view.entries` of turn-starting user messages. */
  #turnStarts: number[] = [];
  /** Tool results visible to the agent in the view. */
  #visibleResults = 0;
  #counter: TokenCounter;
  readonly tokenCache: MessageTokenCache;
  /**
   * The policy every step of this session runs under: the manager's, with `policyOverride` applied. Read
   * from the store when the runtime is made (so a reload sees what another process set), and changed in
   * place when this manager sets a new override (what the session remembers of its calls is kept).
   */
  #policy: Policy;
  /** The session's own override (`{}` when it has none). */
  #policyOverride: PolicyOverride;

  /** What each engine step remembers between calls, one record per step (see LayerProgress). */
  readonly progress = new LayerProgress();
  /** Counts full re-projections: indexes into `view.entries` noted before a rebuild are stale after it. */
  #viewVersion = 0;
  /** The newest evict edit of each log seq held (a result spilled on arrival keeps its blob here). */
  readonly #evictions = new Map<number, EvictEdit>();
  #turnCount = 0;
  /**
   * Token counts of the system prompt and tools, and the last request's settings (`memo.request`: seeded
   * from the store when the runtime is made, kept there as it changes; see `lastRequest`). Written by
   * `resolveCall` only.
   */
  readonly #memo: FixedRegionMemo = {};
  /** What the session store holds of `memo.request`, as this manager last read or wrote it. */
  readonly lastRequest = new LastRequestRecord();
  /** The caller's logical history (log minus branch-hidden messages), as content ids and seqs, for sync(). */
  readonly branch = new CallerBranch();
  /** Counts of the short texts planners ask for again and again. */
  readonly shortCounts = new ShortTextCounts();
  /** A summary's short texts, apart from the planners' (the counter itself remembers longer ones). */
  readonly summaryCounts = new ShortTextCounts();
  readonly #logIds = new Set<string>();
  /** The last prepared request, kept so the usage reported for it can anchor estimates (tiancai). */
  #lastPrepared: { edits: number; fixedTokens: number; messages: Message[] } | undefined;
  /** Reported usage anchor: history tokens the provider counted, and our figure at that moment. */
  #anchor:
    | {
        edits: number;
        reportedHistory: number;
        historyTokensAt: number;
        counter: TokenCounter;
        /** The newest log message the reported request held: edits past it leave the anchor true. */
        throughSeq: number;
      }
    | undefined;

  constructor(id: string, counter: TokenCounter, tokenCache: MessageTokenCache, policy: SessionPolicy) {
    this.id = id;
    this.#counter = counter;
    this.tokenCache = tokenCache;
    this.#policy = policy.policy;
    this.#policyOverride = policy.override;
    this.#view = projectView([], [], { leaveCallsOpen: true });
  }

  /** The log messages held in memory, from `logStart` on. */
  get heldLog(): readonly Message[] {
    return this.#heldLog;
  }

  get logStart(): number {
    return this.#logStart;
  }

  /** The edits held in memory (see `editCount` for all of them). */
  get edits(): readonly Edit[] {
    return this.#edits;
  }

  get editCount(): number {
    return this.#editCount;
  }

  /** The view of the log and edits; changed by `appendToView`, `patchInPlace` and `rebuild` only. */
  get view(): ReadonlyView {
    return this.#view;
  }

  /** Agent-visible tokens of each view entry, aligned with `view.entries`, under `counter`. */
  get entryTokens(): readonly number[] {
    return this.#entryTokens;
  }

  get historyTokens(): number {
    return this.#historyTokens;
  }

  /** Indices in `view.entries` of turn-starting user messages. */
  get turnStarts(): readonly number[] {
    return this.#turnStarts;
  }

  /** Tool results visible to the agent in the view. */
  get visibleResults(): number {
    return this.#visibleResults;
  }

  get counter(): TokenCounter {
    return this.#counter;
  }

  /** The policy every step of this session runs under (see `usePolicy`). */
  get policy(): Policy {
    return this.#policy;
  }

  /** The session's own override (`{}` when it has none). */
  get policyOverride(): PolicyOverride {
    return this.#policyOverride;
  }

  /** Counts full re-projections: indexes into `view.entries` noted before a rebuild are stale after it. */
  get viewVersion(): number {
    return this.#viewVersion;
  }

  /** The newest evict edit of each log seq held (a result spilled on arrival keeps its blob here). */
  get evictions(): ReadonlyMap<number, EvictEdit> {
    return this.#evictions;
  }

  get turnCount(): number {
    return this.#turnCount;
  }

  /** Token counts of the system prompt and tools, and the last request's settings (see `resolveCall`). */
  get memo(): Readonly<FixedRegionMemo> {
    return this.#memo;
  }

  /**
   * The last request the store holds for the session, read as the runtime is made: its settings are what
   * the next call starts from (`memo.request`), its text what `lastRequest` compares with.
   */
  seedLastRequest(stored: { request?: PrepareRequest; stored: string | null }): void {
    if (stored.request) this.#memo.request = stored.request;
    this.lastRequest.noteStored(stored.stored);
  }

  /**
   * The call's context for `request`, under the session's policy: the window an overflow adopted applies,
   * and the fixed regions' counts are kept in `memo` for the next call.
   */
  resolveCall(request: PrepareRequest, counters: CounterChooser, indexes: IndexSources): CallContext {
    return resolveCallContext(
      this.#policy,
      request,
      this.#memo,
      counters,
      indexes,
      this.progress.overflow.adoptedWindow,
    );
  }

  get nextSeq(): number {
    return this.#logStart + this.#heldLog.length;
  }

  messageAt(seq: number): Message | undefined {
    return this.#heldLog[seq - this.#logStart];
  }

  hasId(id: string): boolean {
    return this.#logIds.has(id);
  }

  /** The held edits targeting log message `seq`, oldest first. */
  editsOf(seq: number): readonly Edit[] {
    return this.#editsByTarget.of(seq);
  }

  addEdits(edits: readonly Edit[]): void {
    for (const edit of edits) {
      this.#edits.push(edit);
      this.#editsByTarget.add(edit);
      if (edit.type === 'evict') this.#evictions.set(edit.target, edit);
    }
    const anchor = this.#anchor;
    const wasValid = anchor?.edits === this.#editCount;
    this.#editCount += edits.length;
    // Edits of messages the reported request did not hold (a result normalized as it arrives after the
    // reply) change only what our own count adds to the anchor: it stays true. One that reaches into the
    // reported request (a cut, a clear, a snip of an older result) ends it.
    if (anchor && wasValid && edits.every((edit) => lowestSeqTouched(edit) > anchor.throughSeq))
      anchor.edits = this.#editCount;
  }

  /** The whole log and every edit, when they are all in memory (see `loadOlder`). */
  whole(): { log: readonly Message[]; edits: readonly Edit[] } | undefined {
    return this.#logStart === 0 && this.#edits.length === this.#editCount
      ? { log: this.#heldLog, edits: this.#edits }
      : undefined;
  }

  /**
   * Puts back what a resume left unread (messages before `logStart`, edits that do not reach the view),
   * from a full read of the store, which may have moved on since: only the part this runtime has seen is
   * taken. The view is unchanged.
   */
  loadOlder(stored: { log: readonly Message[]; edits: readonly Edit[] }): void {
    if (stored.log.length < this.nextSeq || stored.edits.length < this.#editCount) {
      throw new CorruptSessionError(
        this.id,
        { table: 'sessions' },
        `the store returned ${stored.log.length} messages and ${stored.edits.length} edits, fewer than the ${this.nextSeq} and ${this.#editCount} held`,
      );
    }
    this.#heldLog = [...stored.log.slice(0, this.#logStart), ...this.#heldLog];
    this.#logStart = 0;
    this.#edits = stored.edits.slice(0, this.#editCount);
    this.#editsByTarget.reset(this.#edits);
  }

  /** Loads a stored session: log and edits as they were, the view rebuilt from them. */
  async restore(log: readonly Message[], edits: readonly Edit[]): Promise<void> {
    const hidden = hiddenByBranches(edits);
    const branch = log.filter((message) => !hidden.has(message.seq));
    const contentIds = await assignStableIdsInSlices(branch.map(({ id: _id, ...rest }) => rest));
    await this.#load({
      logStart: 0,
      recent: log,
      edits,
      messageIds: log.map((message) => message.id),
      branchSeqs: branch.map((message) => message.seq),
      branchIds: contentIds.map((message) => message.id),
    });
  }

  /**
   * Resumes from what a store's `loadRecent` read: the recent bodies, every edit and every message's
   * ids. Returns false, changing nothing, when a message of the caller's history has no stored content
   * id (written before they were kept): the caller then restores from the whole log.
   */
  async resume(session: RecentSession): Promise<boolean> {
    // In slices: a session of hundreds of thousands of messages resumes with every one's ids.
    const slices = new WorkSlices();
    const hidden = hiddenByBranches(session.edits);
    const branchSeqs: number[] = [];
    const branchIds: string[] = [];
    for (let seq = 0; seq < session.contentIds.length; seq++) {
      if (slices.due()) await slices.next();
      if (hidden.has(seq)) continue;
      const contentId = session.contentIds[seq];
      if (typeof contentId !== 'string') return false;
      branchSeqs.push(seq);
      branchIds.push(contentId);
    }
    const key = this.tokenCache.countKey(this.#counter);
    await forEachInSlices(
      session.recent,
      (message, offset) => {
        const count = session.recentTokens[offset];
        if (count && count.key === key) this.tokenCache.seed(message, this.#counter, count.breakdown);
      },
      slices,
    );
    await this.#load({ ...session, branchSeqs, branchIds }, slices);
    this.#editCount = session.editCount;
    return true;
  }

  async #load(
    session: {
      logStart: number;
      recent: readonly Message[];
      edits: readonly Edit[];
      messageIds: readonly string[];
      branchSeqs: number[];
      branchIds: string[];
    },
    slices: WorkSlices = new WorkSlices(),
  ): Promise<void> {
    this.#logStart = session.logStart;
    this.addEdits(session.edits);
    await forEachInSlices(session.messageIds, (id) => this.#logIds.add(id), slices);
    await forEachInSlices(
      session.recent,
      (message) => {
        this.#heldLog.push(message);
        // Only a change in the count matters (truncate-old looks again when turns were added).
        if (startsTurn(message)) this.#turnCount++;
      },
      slices,
    );
    await this.branch.resetInSlices(session.branchSeqs, session.branchIds, slices);
    await this.rebuild(slices);
  }

  /** A message joined the log and the caller's history (as `contentId`). */
  recordBranch(message: Message, contentId: string): void {
    this.#logIds.add(message.id);
    this.branch.record(message.seq, contentId);
  }

  /**
   * Messages the session holds after the newest cut, hidden ones (archived results) included: what a
   * message-count trigger counts (tiancai's MaxMessages, picoclaw's threshold count the history, not the view).
   */
  messagesSinceCut(): number {
    return this.nextSeq - ((this.#view.cut?.throughSeq ?? -1) + 1);
  }

  lastEntryStartsTurn(): boolean {
    const last = this.#view.entries.at(-1);
    return last !== undefined && startsTurn(last.message);
  }

  lastTurnStartSeq(): number | undefined {
    const index = this.#turnStarts.at(-1);
    return index === undefined ? undefined : this.#view.entries[index]?.message.seq;
  }

  notePrepared(messages: Message[], regions: BudgetRegions): void {
    this.#lastPrepared = {
      edits: this.#editCount,
      fixedTokens: regions.system + regions.toolDefinitions + regions.summary,
      messages,
    };
  }

  /**
   * The provider reported usage for the request we prepared last. It anchors later estimates (tiancai:
   * "last assistant usage totals, plus estimated tokens for trailing messages") and teaches a
   * calibrated counter its ratio. Only valid while no edit changed the prefix since.
   */
  recordUsage(usage: Usage): void {
    const prepared = this.#lastPrepared;
    if (!prepared || usage.inputTokens <= 0) return;
    // The report is newer than any anchor kept, but an edit since the request was prepared (one made after
    // the turn) means it no longer describes what the view holds: an older anchor does not stand in for it.
    if (prepared.edits !== this.#editCount) {
      this.#anchor = undefined;
      return;
    }
    if (this.#counter instanceof CalibratedTokenCounter) {
      const memo = this.#memo;
      const measure = measureRequest({
        messages: prepared.messages,
        system: memo.system ? [memo.system.text] : [],
        tools: memo.tools?.tools ?? [],
        cache: this.tokenCache,
      });
      const update = this.#counter.observe(calibrationAnchor(measure, usage));
      if (update.accepted) this.recount();
    }
    this.#anchor = {
      edits: this.#editCount,
      reportedHistory: Math.max(0, usage.inputTokens + usage.outputTokens - prepared.fixedTokens),
      historyTokensAt: this.#historyTokens,
      counter: this.#counter,
      // The reply itself is counted in `outputTokens`: it is part of what the anchor covers.
      throughSeq: this.nextSeq - 1,
    };
  }

  /** History tokens: anchored on the last reported usage when that is still valid, else our own count. */
  estimatedHistoryTokens(anchorOnUsage: boolean): number {
    const pending = this.#view.pairing.pending();
    let standIns = 0;
    for (const standIn of pending) standIns += this.tokensOf(standIn);
    const anchor = this.#anchor;
    if (anchorOnUsage && anchor && anchor.edits === this.#editCount && anchor.counter === this.#counter) {
      return anchor.reportedHistory + (this.#historyTokens - anchor.historyTokensAt) + standIns;
    }
    return this.#historyTokens + standIns;
  }

  tokensOf(message: Message): number {
    return this.tokenCache.estimate(message, this.#counter).total;
  }

  /** The session's policy changed (a new override): the next step uses it. */
  usePolicy(policy: SessionPolicy): void {
    this.#policy = policy.policy;
    this.#policyOverride = policy.override;
    this.progress.policyChanged();
    // The window was worked out under the old budget (detectWindow, maxContextTokens…): again next call.
    delete this.#memo.window;
  }

  /** Switches the counter (a different model): every figure is recounted. */
  async useCounter(counter: TokenCounter): Promise<void> {
    if (counter === this.#counter) return;
    this.#counter = counter;
    await this.recountInSlices(new WorkSlices());
  }

  /** Re-projects the view from log and edits; call after any new edit. */
  async rebuild(slices: WorkSlices = new WorkSlices()): Promise<void> {
    // The held log starts no later than just past the newest cut, so this is the view of the whole log.
    this.#view = await projectViewInSlices(this.#heldLog, this.#edits, { leaveCallsOpen: true }, slices);
    // Entry indexes move when edits reshape the view: whoever kept one looks again.
    this.#viewVersion++;
    await this.recountInSlices(slices);
  }

  /**
   * Applies one new prefix cut (a summary, a drop) by taking the messages it covers off the front of the
   * view, where that leaves the rest as a projection would (`viewAfterCut`): a projection reads the whole
   * log and every edit. Returns false — and changes nothing — when the view must be projected again.
   */
  cutInPlace(edits: readonly Edit[]): boolean {
    const [edit] = edits;
    if (edits.length !== 1 || (edit?.type !== 'summarize' && edit?.type !== 'drop')) return false;
    if (this.#editsByTarget.anyAcrossMessages) return false;
    // The cut covers every held message through it and shifts every entry: past a few thousand, that is
    // left to the projection, which lets other sessions' calls run between its slices.
    if (edit.throughSeq - this.#logStart + this.#view.entries.length > CUT_IN_PLACE_MAX_ITEMS) return false;
    const cut = viewAfterCut(this.#view, edit, this.#heldLog, this.#view.coverage);
    if (!cut) return false;
    const { dropped } = cut;
    let results = 0;
    for (let index = 0; index < dropped; index++)
      if (this.#view.entries[index]?.message.role === 'tool') results++;
    this.#view = cut.view;
    this.#viewVersion++;
    this.#viewMessages = this.#viewMessages.slice(dropped);
    this.#entryTokens = this.#entryTokens.slice(dropped);
    this.#historyTokens = 0;
    for (const tokens of this.#entryTokens) this.#historyTokens += tokens;
    this.#turnStarts = this.#turnStarts.filter((index) => index >= dropped).map((index) => index - dropped);
    this.#visibleResults -= results;
    return true;
  }

  /**
   * Applies edits that only replace the content of messages already in view (a result's content, a
   * message's text, a call's arguments) without re-projecting the log: offloading edits one message
   * per step, and re-projection would cost the whole log each time. Returns false — and changes nothing —
   * when an edit could change the view's shape (a cut, hidden messages, call-level edits), or the session
   * has edits whose effects span messages; the caller then rebuilds. Agrees with `projectView` (the
   * property tests compare them after every operation).
   */
  patchInPlace(edits: readonly Edit[]): boolean {
    const contentOnly = (edit: Edit) =>
      edit.type === 'evict' ||
      edit.type === 'truncate-result' ||
      edit.type === 'truncate-text' ||
      edit.type === 'truncate-args';
    if (!edits.every(contentOnly)) return false;
    // Edits that reach across messages (a cleared result blanking its call, archived calls, compressed
    // turns, branches) make a message's projection depend on others: leave those to the full projection.
    if (this.#editsByTarget.anyAcrossMessages) return false;
    const targets = new Set(edits.map((edit) => (edit as { target: number }).target));
    const indexes = new Map<number, number>();
    for (let index = this.#view.entries.length - 1; index >= 0 && indexes.size < targets.size; index--) {
      const seq = this.#view.entries[index]?.sourceSeq;
      if (seq !== undefined && targets.has(seq)) indexes.set(seq, index);
    }
    if (indexes.size !== targets.size) return false;
    // A stand-in result for an interrupted call takes its id from the call's message: patching that
    // message would leave the stand-in's id stale, so such a message goes through the full projection.
    const openStandIns = this.#view.pairing.pending().map((standIn) => standIn.id);
    for (const index of indexes.values()) {
      const message = this.#view.entries[index]?.message;
      if (message?.role !== 'assistant') continue;
      if (openStandIns.some((id) => id.startsWith(`${message.id}-interrupted-`))) return false;
      for (let next = index + 1; next < this.#view.entries.length; next++) {
        const entry = this.#view.entries[next];
        if (entry?.message.role !== 'tool') break;
        if (entry.sourceSeq === undefined) return false;
      }
    }
    for (const [seq, index] of indexes) {
      const logged = this.messageAt(seq);
      if (!logged || logged.seq !== seq) return false;
      const own = this.#editsByTarget.of(seq);
      const projected = projectMessage(logged, own);
      const entry = this.#view.entries[index];
      if (!entry) return false;
      const before = this.#entryTokens[index] ?? 0;
      const after = this.tokensOf(projected);
      this.#view.entries[index] = { ...entry, message: projected };
      this.#viewMessages[index] = projected;
      this.#entryTokens[index] = after;
      this.#historyTokens += after - before;
      const last = edits.filter((edit) => (edit as { target: number }).target === seq).at(-1);
      if (last) this.#view.coverage.set(seq, { by: 'edit', editId: last.id, type: last.type });
    }
    return true;
  }

  /** Continues the view with one appended log message, already normalized (`projected`). */
  appendToView(message: Message, projected: Message): void {
    this.#heldLog.push(message);
    if (startsTurn(message)) this.#turnCount++;
    if (!isAgentVisible(message)) {
      this.#view.coverage.set(message.seq, { by: 'hidden' });
      return;
    }
    const step = this.#view.pairing.step(projected, undefined);
    for (const standIn of step.standIns) this.pushEntry({ message: standIn, sourceSeq: undefined });
    if (step.keep) this.pushEntry({ message: projected, sourceSeq: message.seq });
    else this.#view.coverage.set(message.seq, { by: 'orphan-result' });
  }

  /** The history to send: the view's entries, with stand-ins for calls still open at the end. A copy. */
  historyMessages(): { messages: Message[]; tokens: number } {
    const messages = this.#viewMessages.slice();
    let tokens = this.#historyTokens;
    for (const standIn of this.#view.pairing.pending()) {
      messages.push(standIn);
      tokens += this.tokensOf(standIn);
    }
    return { messages, tokens };
  }

  get summary(): Summary | undefined {
    return this.#view.summary;
  }

  /** `view.entries` messages, kept alongside so preparing a call copies an array instead of mapping one. */
  #viewMessages: Message[] = [];

  private pushEntry(entry: ViewEntry): void {
    const index = this.#view.entries.length;
    this.#view.entries.push(entry);
    this.#viewMessages.push(entry.message);
    const tokens = this.tokensOf(entry.message);
    this.#entryTokens.push(tokens);
    this.#historyTokens += tokens;
    if (startsTurn(entry.message)) this.#turnStarts.push(index);
    if (entry.message.role === 'tool') this.#visibleResults++;
  }

  recount(): void {
    this.#resetCounts();
    this.#view.entries.forEach((entry, index) => {
      this.#countEntry(entry, index);
    });
  }

  /**
   * `recount` in slices: a view of a million messages, counted anew for another model, is a million
   * counts. The session's lock is held meanwhile, so nothing reads the figures half made.
   */
  async recountInSlices(slices: WorkSlices): Promise<void> {
    this.#resetCounts();
    await forEachInSlices(this.#view.entries, (entry, index) => this.#countEntry(entry, index), slices);
  }

  #resetCounts(): void {
    this.#viewMessages = this.#view.entries.map((entry) => entry.message);
    this.#entryTokens = [];
    this.#historyTokens = 0;
    this.#turnStarts = [];
    this.#visibleResults = 0;
  }

  #countEntry(entry: ViewEntry, index: number): void {
    const tokens = this.tokensOf(entry.message);
    this.#entryTokens.push(tokens);
    this.#historyTokens += tokens;
    if (startsTurn(entry.message)) this.#turnStarts.push(index);
    if (entry.message.role === 'tool') this.#visibleResults++;
  }
}

function hiddenByBranches(edits: readonly Edit[]): Set<number> {
  return new Set(edits.flatMap((edit) => (edit.type === 'branch' ? edit.hiddenSeqs : [])));
}
