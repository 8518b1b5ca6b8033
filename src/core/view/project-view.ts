import type { ArchiveEdit, CompressTextEdit, Edit, PrefixEdit, Summary, SummaryPlacement } from '../edit.ts';
import { isPrefixEdit } from '../edit.ts';
import type { Message, Part } from '../message.ts';
import { isAgentVisible } from '../message.ts';
import { splitTurns } from '../turns/parse-turn-boundaries.ts';
import { WorkSlices } from '../work-slices.ts';
import { archiveDigestMessage } from './archived-messages.ts';
import { ToolPairingRepair } from './tool-pairing-repair.ts';

/** The arguments a cleared call shows when its inputs are cleared too (LangChain's `clear_tool_inputs`). */
export const CLEARED_ARGS = '{}';

export interface ViewEntry {
  message: Message;
  /** The log message it projects, or undefined for a message the view synthesized (digest, stand-in result). */
  sourceSeq: number | undefined;
}

/** Why a log message is not in the view exactly as it was logged. */
export type CoverageReason =
  | { by: 'edit'; editId: string; type: Edit['type'] }
  | { by: 'hidden' }
  | { by: 'orphan-result' };

export interface View {
  entries: ViewEntry[];
  /** The summary the view carries (injected on assembly), if any. */
  summary: Summary | undefined;
  placement: SummaryPlacement | undefined;
  /** A reminder of goal and recent activity left by a drop (digitorn), if any. */
  reminder: string | undefined;
  /** The newest prefix edit: messages with seq ≤ its throughSeq are not shown. */
  cut: PrefixEdit | undefined;
  /** Every log message not shown exactly as logged, with why: nothing disappears unexplained. */
  coverage: Map<number, CoverageReason>;
  /** Pairing state after the last entry (calls still open when `leaveCallsOpen` was set). */
  pairing: ToolPairingRepair;
}

/** A view as the modules that do not own it see it: nothing in it can be changed through it. */
export interface ReadonlyView {
  readonly entries: readonly Readonly<ViewEntry>[];
  readonly summary: Summary | undefined;
  readonly placement: SummaryPlacement | undefined;
  readonly reminder: string | undefined;
  readonly cut: PrefixEdit | undefined;
  readonly coverage: ReadonlyMap<number, CoverageReason>;
  readonly pairing: Readonly<ToolPairingRepair>;
}

interface Override {
  /** Ids of the edits that changed the message: a changed message gets an id of its own. */
  editIds: string[];
  content?: string;
  text?: string;
  /** Clipped arguments by call id. */
  args?: Map<string, string>;
  dropMedia?: boolean;
  clearInputs?: boolean;
  textOnly?: boolean;
  hiddenBy?: Edit;
}

/**
 * The messages the model sees: `project(log, edits)`. Pure, O(log + edits). The newest prefix edit
 * cuts the start (its summary and reminder are carried apart, for assembly to place); result edits
 * replace, clear or hide tool results; compress-text reduces turns; archive digests follow their
 * anchor. Messages hidden from the agent never show. Tool pairing holds by construction: hiding a
 * result hides its call, a result with no call is left out, a call the log never answered gets a
 * stand-in error result.
 */
export interface ProjectOptions {
  /**
   * Leave calls at the end of the view unanswered instead of closing them with stand-ins, and return
   * the pairing state: the engine continues the view from there as messages are appended.
   */
  leaveCallsOpen?: boolean;
}

export function projectView(
  log: readonly Message[],
  edits: readonly Edit[],
  options: ProjectOptions = {},
): View {
  const steps = projectSteps(log, edits, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * `projectView` in slices, the event loop getting turns between them: a session's first cut projects
 * all of a history of hundreds of thousands of messages. The same view.
 */
export async function projectViewInSlices(
  log: readonly Message[],
  edits: readonly Edit[],
  options: ProjectOptions = {},
  slices: WorkSlices = new WorkSlices(),
): Promise<View> {
  const steps = projectSteps(log, edits, options);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slices.due()) await slices.next();
  }
}

/** Messages projected between two places a caller may pause at. */
const PROJECTED_PER_STEP = 1_024;

/** The projection, pausing (a `yield`) every `PROJECTED_PER_STEP` messages it goes through. */
function* projectSteps(
  log: readonly Message[],
  edits: readonly Edit[],
  options: ProjectOptions,
): Generator<void, View> {
  let steps = 0;
  const coverage = new Map<number, CoverageReason>();
  const overrides = new Map<number, Override>();
  const digestsAfter = new Map<number, ArchiveEdit[]>();
  let cut: PrefixEdit | undefined;
  let summaryEdit: Extract<Edit, { type: 'summarize' }> | undefined;
  const override = (seq: number, edit: Edit): Override => {
    coverage.set(seq, { by: 'edit', editId: edit.id, type: edit.type });
    let entry = overrides.get(seq);
    if (!entry) {
      entry = { editIds: [] };
      overrides.set(seq, entry);
    }
    if (entry.editIds.at(-1) !== edit.id) entry.editIds.push(edit.id);
    return entry;
  };

  for (const edit of edits) {
    if (isPrefixEdit(edit)) {
      if (!cut || edit.throughSeq >= cut.throughSeq) cut = edit;
      if (edit.type === 'summarize') summaryEdit = edit;
      if (edit.type === 'reset' && !edit.keepSummary) summaryEdit = undefined;
      continue;
    }
    switch (edit.type) {
      case 'truncate-result':
      case 'evict':
        override(edit.target, edit).content = edit.content;
        break;
      case 'truncate-text':
        override(edit.target, edit).text = edit.text;
        break;
      case 'truncate-args': {
        const entry = override(edit.target, edit);
        entry.args ??= new Map();
        entry.args.set(edit.callId, edit.args);
        break;
      }
      case 'clear':
        for (const target of edit.targets) {
          const entry = override(target, edit);
          entry.content = edit.placeholder;
          entry.dropMedia = true;
          if (edit.clearInputs) entry.clearInputs = true;
        }
        break;
      case 'branch':
        for (const target of edit.hiddenSeqs) override(target, edit).hiddenBy = edit;
        break;
      case 'hide':
        for (const target of edit.targets) override(target, edit).hiddenBy = edit;
        break;
      case 'archive':
        for (const target of edit.targets) override(target, edit).hiddenBy = edit;
        digestsAfter.set(edit.digestAfterSeq, [...(digestsAfter.get(edit.digestAfterSeq) ?? []), edit]);
        break;
      case 'compress-text':
        compressTurns(log, edit, override);
        break;
    }
  }

  const cutSeq = cut?.throughSeq ?? -1;
  const shown: Message[] = [];
  for (const message of log) {
    if (++steps % PROJECTED_PER_STEP === 0) yield;
    if (message.seq <= cutSeq) {
      if (cut) coverage.set(message.seq, { by: 'edit', editId: cut.id, type: cut.type });
      continue;
    }
    if (!isAgentVisible(message)) {
      if (!coverage.has(message.seq)) coverage.set(message.seq, { by: 'hidden' });
      continue;
    }
    shown.push(message);
  }

  const callEdits = planCallEdits(shown, overrides, coverage);
  const entries: ViewEntry[] = [];
  for (const message of shown) {
    if (++steps % PROJECTED_PER_STEP === 0) yield;
    const entry = overrides.get(message.seq);
    const calls = callEdits.get(message.seq);
    const projected = project(message, entry, calls);
    if (calls && projected !== message && !coverage.has(message.seq))
      coverage.set(message.seq, calls.because);
    if (projected !== undefined && !entry?.hiddenBy) {
      entries.push({ message: projected, sourceSeq: message.seq });
    }
    for (const archive of digestsAfter.get(message.seq) ?? []) {
      entries.push({ message: archiveDigestMessage(archive), sourceSeq: undefined });
    }
  }

  const summary =
    summaryEdit && cut && summaryEdit.throughSeq <= cut.throughSeq ? summaryEdit.summary : undefined;
  const pairing = new ToolPairingRepair();
  return {
    entries: repairToolPairing(entries, coverage, pairing, options.leaveCallsOpen ?? false),
    pairing,
    summary,
    placement: summary ? summaryEdit?.placement : undefined,
    reminder: cut?.type === 'drop' ? cut.reminder : undefined,
    cut,
    coverage,
  };
}

/**
 * One message as the view shows it under edits that target it alone (result and text replacements,
 * clearing): what the engine needs to continue a view incrementally as a normalized message arrives.
 * Agrees with `projectView` for that message.
 */
export function projectMessage(message: Message, edits: readonly Edit[]): Message {
  const entry: Override = { editIds: [] };
  for (const edit of edits) {
    switch (edit.type) {
      case 'truncate-result':
      case 'evict':
        if (edit.target !== message.seq) continue;
        entry.content = edit.content;
        break;
      case 'truncate-text':
        if (edit.target !== message.seq) continue;
        entry.text = edit.text;
        break;
      case 'truncate-args':
        if (edit.target !== message.seq) continue;
        entry.args ??= new Map();
        entry.args.set(edit.callId, edit.args);
        break;
      case 'clear':
        if (!edit.targets.includes(message.seq)) continue;
        entry.content = edit.placeholder;
        entry.dropMedia = true;
        break;
      default:
        continue;
    }
    if (entry.editIds.at(-1) !== edit.id) entry.editIds.push(edit.id);
  }
  if (entry.editIds.length === 0) return message;
  return project(message, entry, undefined) ?? message;
}

interface CallEdit {
  /** Why the call message changes: the coverage of the result that made it change. */
  because: CoverageReason;
  /** Call part indexes whose result is hidden: the call goes with it. */
  hide: Set<number>;
  /** Call part indexes whose arguments are cleared. */
  clearArgs: Set<number>;
}

/** What happens to call parts because of what happened to their results. */
function planCallEdits(
  shown: readonly Message[],
  overrides: Map<number, Override>,
  coverage: Map<number, CoverageReason>,
): Map<number, CallEdit> {
  const plans = new Map<number, CallEdit>();
  if (overrides.size === 0) return plans;
  const callAt = new Map<string, { seq: number; partIndex: number }[]>();
  for (const message of shown) {
    message.parts.forEach((part, partIndex) => {
      if (part.type === 'tool-call') {
        callAt.set(part.callId, [...(callAt.get(part.callId) ?? []), { seq: message.seq, partIndex }]);
      } else if (part.type === 'tool-result') {
        const call = callAt.get(part.callId)?.pop();
        const entry = overrides.get(message.seq);
        const because = coverage.get(message.seq);
        if (!call || !entry || !because || !(entry.hiddenBy || entry.clearInputs)) return;
        let plan = plans.get(call.seq);
        if (!plan) {
          plan = { because, hide: new Set(), clearArgs: new Set() };
          plans.set(call.seq, plan);
        }
        (entry.hiddenBy ? plan.hide : plan.clearArgs).add(call.partIndex);
      }
    });
  }
  return plans;
}

/** Applies overrides to one message; undefined when nothing of it is left to show. */
function project(
  message: Message,
  entry: Override | undefined,
  calls: CallEdit | undefined,
): Message | undefined {
  if (!entry && !calls) return message;
  const parts: Part[] = [];
  let textReplaced = false;
  message.parts.forEach((part, partIndex) => {
    if (entry?.textOnly && part.type !== 'text') return;
    if (part.type === 'text' && entry?.text !== undefined) {
      // The clipped text stands for all of the message's text parts.
      if (!textReplaced) parts.push({ type: 'text', text: entry.text });
      textReplaced = true;
      return;
    }
    if (part.type === 'tool-call') {
      if (calls?.hide.has(partIndex)) return;
      if (calls?.clearArgs.has(partIndex)) {
        parts.push({ ...part, args: CLEARED_ARGS });
        return;
      }
      const clipped = entry?.args?.get(part.callId);
      if (clipped !== undefined) {
        parts.push({ ...part, args: clipped });
        return;
      }
    }
    if (part.type === 'tool-result' && entry?.content !== undefined) {
      const { media, ...rest } = part;
      parts.push(
        entry.dropMedia || !media
          ? { ...rest, content: entry.content }
          : { ...rest, content: entry.content, media },
      );
      return;
    }
    parts.push(part);
  });
  if (parts.length === 0) return undefined;
  const editIds = [
    ...(entry?.editIds ?? []),
    ...(calls ? [calls.because.by === 'edit' ? calls.because.editId : 'c'] : []),
  ];
  return { ...message, id: `${message.id}~${editIds.join('+')}`, parts };
}

/** cowagent's text compression: each turn keeps its first user text and its last reply, nothing between. */
function compressTurns(
  log: readonly Message[],
  edit: CompressTextEdit,
  override: (seq: number, edit: Edit) => Override,
): void {
  const inRange = log.filter((message) => message.seq >= edit.fromSeq && message.seq <= edit.throughSeq);
  for (const turn of splitTurns(inRange)) {
    const messages = inRange.slice(turn.start, turn.end);
    const firstUser = messages.find((message) => message.role === 'user');
    const finalReply = messages.findLast(
      (message) => message.role === 'assistant' && message.parts.some((part) => part.type === 'text'),
    );
    for (const message of messages) {
      const keep = message === firstUser || message === finalReply;
      if (keep && message.parts.every((part) => part.type === 'text')) continue;
      const entry = override(message.seq, edit);
      if (keep) entry.textOnly = true;
      else entry.hiddenBy = edit;
    }
  }
}

/** Applies the strict pairing rule over the whole view, stand-ins included (see ToolPairingRepair). */
function repairToolPairing(
  entries: ViewEntry[],
  coverage: Map<number, CoverageReason>,
  repair: ToolPairingRepair,
  leaveOpen: boolean,
): ViewEntry[] {
  const repaired: ViewEntry[] = [];
  for (const entry of entries) {
    const step = repair.step(entry.message, entry);
    for (const standIn of step.standIns) repaired.push({ message: standIn, sourceSeq: undefined });
    if (step.keep) repaired.push(entry);
    else if (entry.sourceSeq !== undefined) coverage.set(entry.sourceSeq, { by: 'orphan-result' });
  }
  if (!leaveOpen)
    for (const standIn of repair.close()) repaired.push({ message: standIn, sourceSeq: undefined });
  return repaired;
}
