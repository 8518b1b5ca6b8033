/**
 * What the dashboard's view panel shows (`GET /api/sessions/:id/view`): the session's current view in
 * order, each message marked with what compaction did to it (kept, cleared, truncated, offloaded with
 * the blob to read it back, compressed…), and the log messages the view no longer shows (summarized,
 * dropped, archived, hidden) in their place, so nothing disappears unexplained.
 *
 * Bounded whatever the session's size: each text is clipped (`MAX_ITEM_CHARS`; the whole text is a
 * request away), and one answer lists the newest `MAX_VIEW_ITEMS` rows, the earlier ones paged with
 * `before`. Building it is linear in the log and the edits; only the listed rows are rendered as text.
 */
import type { Edit, EditReason, EditType, LayerName } from '../../core/edit.ts';
import type { Message, Role } from '../../core/message.ts';
import { type CoverageReason, projectView, type ViewEntry } from '../../core/view/project-view.ts';
import { clipText, messageText } from './message-text.ts';

/** Characters of one message's text in an answer; `GET /api/sessions/:id/log/:seq` has the whole text. */
export const MAX_ITEM_CHARS = 1_500;
/** Rows in one answer: the newest ones, the earlier ones paged with `before`. */
export const MAX_VIEW_ITEMS = 200;
/** Characters of the summary and the reminder in an answer. */
export const MAX_SUMMARY_CHARS = 20_000;

/** What compaction made of a message; `inView` tells whether the model still sees (part of) it. */
export type ViewMark =
  | 'kept'
  | 'cleared'
  | 'truncated'
  | 'offloaded'
  | 'compressed'
  | 'archived'
  | 'hidden'
  | 'branched'
  | 'summarized'
  | 'dropped'
  | 'reset'
  /** Never shown to the model (`agentVisible: false`). */
  | 'invisible'
  /** A tool result that answers no open call, left out so providers accept the request. */
  | 'orphan'
  /** A message the view made: an archive's digest. */
  | 'digest'
  /** A message the view made: the stand-in result of a call the log never answered. */
  | 'stand-in';

const MARK_OF_EDIT: Record<EditType, ViewMark> = {
  clear: 'cleared',
  'truncate-result': 'truncated',
  'truncate-text': 'truncated',
  'truncate-args': 'truncated',
  evict: 'offloaded',
  'compress-text': 'compressed',
  archive: 'archived',
  hide: 'hidden',
  branch: 'branched',
  summarize: 'summarized',
  drop: 'dropped',
  reset: 'reset',
};

export interface ViewEditRef {
  id: string;
  type: EditType;
  layer: LayerName;
  reason: EditReason;
  /** Epoch ms. */
  at: number;
}

export interface ViewItem {
  /** The log message's seq; null for a message the view made (a digest, a stand-in result). */
  seq: number | null;
  role: Role;
  /** The tool of a tool result (or the first call of an assistant message), when there is one. */
  tool?: string;
  /** Whether the model sees this message (or what the edit left of it). */
  inView: boolean;
  mark: ViewMark;
  /** The edit behind the mark. */
  edit?: ViewEditRef;
  /** Where the message's output was offloaded (an evict edit): read it back at `…/offloaded?ref=`. */
  blobRef?: string;
  /** What the model sees (in view) or what the log holds (not in view), clipped to `MAX_ITEM_CHARS`. */
  text: string;
  /** The whole text's length. */
  chars: number;
  /** For a message the view changed: the log's original, clipped likewise. */
  original?: { text: string; chars: number };
}

export interface DashboardView {
  /** Messages in the log and edits over it. */
  log: number;
  edits: number;
  /** Rows in the view and not, over the whole session (not only this answer). */
  marks: Partial<Record<ViewMark, number>>;
  /** The cut at the start of the view (the newest summarize, drop or reset), if any. */
  cut: (ViewEditRef & { throughSeq: number }) | null;
  summary: {
    text: string;
    chars: number;
    throughSeq: number;
    tokens: number;
    producer: string;
    /** The summarized transcript's blob, when it was offloaded. */
    historyRef?: string;
  } | null;
  reminder: { text: string; chars: number } | null;
  items: ViewItem[];
  /** Rows before the first one listed, left out of this answer. */
  earlier: number;
  /** The `before` that lists them (null when there are none). */
  before: number | null;
}

export interface ViewOptions {
  /** List only rows placed before this log seq (the previous answer's `before`). */
  before?: number;
  maxItems?: number;
  maxChars?: number;
}

/** One row before it is rendered: a view entry, or a log message the view leaves out. */
interface Row {
  /** The log seq the row sits at (a made message at the one it follows): never decreasing along the rows. */
  anchor: number;
  entry?: ViewEntry;
  omitted?: Message;
  mark: ViewMark;
  editId?: string;
}

export function buildDashboardView(
  log: readonly Message[],
  edits: readonly Edit[],
  options: ViewOptions = {},
): DashboardView {
  const maxItems = Math.max(1, options.maxItems ?? MAX_VIEW_ITEMS);
  const maxChars = Math.max(1, options.maxChars ?? MAX_ITEM_CHARS);
  const view = projectView(log, edits);
  const editsById = new Map<string, Edit>();
  const offloadedTo = new Map<number, string>();
  for (const edit of edits) {
    editsById.set(edit.id, edit);
    if (edit.type === 'evict') offloadedTo.set(edit.target, edit.blobRef);
  }

  const rows = orderRows(log, view.entries, view.coverage);
  const marks: Partial<Record<ViewMark, number>> = {};
  for (const row of rows) marks[row.mark] = (marks[row.mark] ?? 0) + 1;

  let end = rows.length;
  if (options.before !== undefined) {
    const before = options.before;
    end = rows.findIndex((row) => row.anchor >= before);
    if (end === -1) end = rows.length;
  }
  let start = Math.max(0, end - maxItems);
  // A made message stays with the log message it follows: a page never starts between them.
  while (start > 0 && rows[start - 1]?.anchor === rows[start]?.anchor) start--;

  const bySeq = new Map<number, Message>();
  for (const message of log) bySeq.set(message.seq, message);
  const items = rows.slice(start, end).map((row) => renderRow(row, bySeq, editsById, offloadedTo, maxChars));

  const cut = view.cut;
  const summary = view.summary;
  return {
    log: log.length,
    edits: edits.length,
    marks,
    cut: cut ? { ...editRef(cut), throughSeq: cut.throughSeq } : null,
    summary: summary
      ? {
          ...clipText(summary.text, MAX_SUMMARY_CHARS),
          throughSeq: summary.throughSeq,
          tokens: summary.tokens,
          producer: summary.producer,
          ...(summary.historyRef !== undefined && { historyRef: summary.historyRef }),
        }
      : null,
    reminder: view.reminder !== undefined ? clipText(view.reminder, MAX_SUMMARY_CHARS) : null,
    items,
    earlier: start,
    before: start > 0 ? (rows[start]?.anchor ?? null) : null,
  };
}

/**
 * The view's entries with the log messages it leaves out put back where they were logged: the view
 * keeps log order, so an omitted message goes before the first entry projected from (or made after) a
 * later one.
 */
function orderRows(
  log: readonly Message[],
  entries: readonly ViewEntry[],
  coverage: ReadonlyMap<number, CoverageReason>,
): Row[] {
  const shown = new Set<number>();
  for (const entry of entries) if (entry.sourceSeq !== undefined) shown.add(entry.sourceSeq);
  const rows: Row[] = [];
  let next = 0;
  let anchor = -1;
  const omitUpTo = (seq: number): void => {
    for (; next < log.length && (log[next]?.seq ?? 0) < seq; next++) {
      const message = log[next];
      if (!message || shown.has(message.seq)) continue;
      rows.push({ anchor: message.seq, omitted: message, ...omittedMark(coverage.get(message.seq)) });
      anchor = message.seq;
    }
  };
  for (const entry of entries) {
    if (entry.sourceSeq === undefined) {
      // A made message carries the seq it follows (a digest its anchor, a stand-in its call).
      omitUpTo(entry.message.seq + 1);
      anchor = Math.max(anchor, entry.message.seq);
      rows.push({ anchor, entry, mark: entry.message.meta.kind === 'tool_summary' ? 'digest' : 'stand-in' });
      continue;
    }
    omitUpTo(entry.sourceSeq);
    const reason = coverage.get(entry.sourceSeq);
    rows.push({
      anchor: entry.sourceSeq,
      entry,
      ...(reason?.by === 'edit'
        ? { mark: MARK_OF_EDIT[reason.type], editId: reason.editId }
        : { mark: 'kept' }),
    });
    anchor = entry.sourceSeq;
  }
  omitUpTo(Number.POSITIVE_INFINITY);
  return rows;
}

function omittedMark(reason: CoverageReason | undefined): Pick<Row, 'mark' | 'editId'> {
  if (reason?.by === 'edit') return { mark: MARK_OF_EDIT[reason.type], editId: reason.editId };
  if (reason?.by === 'orphan-result') return { mark: 'orphan' };
  return { mark: 'invisible' };
}

function renderRow(
  row: Row,
  bySeq: ReadonlyMap<number, Message>,
  editsById: ReadonlyMap<string, Edit>,
  offloadedTo: ReadonlyMap<number, string>,
  maxChars: number,
): ViewItem {
  const message = row.entry?.message ?? row.omitted;
  // A row always holds one or the other; the fallback only satisfies the type.
  const shown: Message = message ?? { id: '', seq: row.anchor, role: 'user', parts: [], meta: {} };
  const seq = row.entry ? (row.entry.sourceSeq ?? null) : shown.seq;
  const logged = seq === null ? undefined : bySeq.get(seq);
  const edit = row.editId === undefined ? undefined : editsById.get(row.editId);
  const blobRef = seq === null ? undefined : offloadedTo.get(seq);
  const tool = toolOf(shown);
  const item: ViewItem = {
    seq,
    role: shown.role,
    ...(tool !== undefined && { tool }),
    inView: row.entry !== undefined,
    mark: row.mark,
    ...(edit && { edit: editRef(edit) }),
    ...(blobRef !== undefined && { blobRef }),
    ...messageText(shown, maxChars),
  };
  if (row.entry && row.mark !== 'kept' && logged) item.original = messageText(logged, maxChars);
  return item;
}

function toolOf(message: Message): string | undefined {
  for (const part of message.parts)
    if (part.type === 'tool-result' || part.type === 'tool-call') return part.name || undefined;
  return undefined;
}

function editRef(edit: Edit): ViewEditRef {
  return { id: edit.id, type: edit.type, layer: edit.layer, reason: edit.reason, at: edit.at };
}
