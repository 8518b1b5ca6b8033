import { describe, expect, it } from 'vitest';
import { assistant, callsTo, numbered, result, user } from '../../testing/build-messages.ts';
import type { ArchiveEdit, Edit } from '../edit.ts';
import { isAgentVisible, isUserVisible } from '../message.ts';
import { ARCHIVED_RESULT_KIND, TOOL_SUMMARY_KIND } from './archived-messages.ts';
import { historyAsShown } from './history-as-shown.ts';
import { projectView } from './project-view.ts';

const base = {
  at: 0,
  tokensBefore: 0,
  tokensAfter: 0,
  layer: 'archive',
  reason: 'tool_call_cutoff',
} as const;

const log = numbered([
  user('read the three files'), // 0
  callsTo(['a', 'read', '{"path":"a.ts"}']), // 1
  result('a', 'A', { name: 'read' }), // 2
  callsTo(['b', 'read', '{"path":"b.ts"}']), // 3
  { ...result('b', 'B', { name: 'read' }), meta: { kind: 'tool_result', userVisible: false } }, // 4
  callsTo(['c', 'read', '{"path":"c.ts"}']), // 5
  result('c', 'C', { name: 'read' }), // 6
  assistant('all read'), // 7
]);

const archive: ArchiveEdit = {
  ...base,
  id: 'e1',
  type: 'archive',
  targets: [2, 4],
  digest: '[Tool results archived] 2 earlier tool results hidden to save context',
  digestAfterSeq: 6,
};

describe('historyAsShown', () => {
  it('is the log itself when nothing is archived', () => {
    expect(historyAsShown(log, [])).toEqual(log);
    const clear: Edit = {
      ...base,
      id: 'e0',
      type: 'clear',
      targets: [2],
      placeholder: '[cleared]',
      clearInputs: false,
    };
    expect(historyAsShown(log, [clear])).toEqual(log);
  });

  it('marks each archived result as tiancai does: agentVisible false, kind tool_result_archived, its own userVisible kept', () => {
    const shown = historyAsShown(log, [archive]);
    const bySeq = (seq: number) => shown.find((message) => message.seq === seq && message.id === `m${seq}`);
    expect(bySeq(2)?.meta).toEqual({ kind: ARCHIVED_RESULT_KIND, agentVisible: false });
    expect(bySeq(4)?.meta).toEqual({ kind: ARCHIVED_RESULT_KIND, agentVisible: false, userVisible: false });
    // Everything else as logged, the archived results' content and ids included.
    expect(bySeq(2)?.parts).toEqual(log[2]?.parts);
    expect(bySeq(6)).toBe(log[6]);
    expect(shown.filter((message) => message.meta.kind === ARCHIVED_RESULT_KIND).map((m) => m.seq)).toEqual([
      2, 4,
    ]);
    // The log is not touched.
    expect(log[2]?.meta).toEqual({ kind: 'tool_result' });
  });

  it("puts the archive's one digest where the view shows it: Role=user, AgentVisible=true, UserVisible=false, Kind=tool_summary", () => {
    const shown = historyAsShown(log, [archive]);
    expect(shown.map((message) => message.id)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm4',
      'm5',
      'm6',
      'digest-e1',
      'm7',
    ]);
    const digest = shown[7];
    expect(digest?.role).toBe('user');
    expect(digest?.meta).toEqual({ kind: TOOL_SUMMARY_KIND, agentVisible: true, userVisible: false });
    // The model's view and the history agree: what the view shows is what the history marks agent-visible.
    const view = projectView(log, [archive]).entries.map((entry) => entry.message);
    expect(view.find((message) => message.meta.kind === TOOL_SUMMARY_KIND)).toEqual(digest);
    const shownToModel = new Set(view.flatMap((m) => (m.role === 'tool' ? [m.seq] : [])));
    for (const message of shown.filter((m) => m.role === 'tool')) {
      expect(isAgentVisible(message)).toBe(shownToModel.has(message.seq));
    }
    // A person's transcript: the digest is not theirs, the result that was hidden from them stays hidden.
    expect(shown.filter(isUserVisible).map((message) => message.id)).toEqual([
      'm0',
      'm1',
      'm2',
      'm3',
      'm5',
      'm6',
      'm7',
    ]);
  });

  it('keeps every archive of a long session: later archives add their own digest after their own anchor', () => {
    const second: ArchiveEdit = { ...archive, id: 'e2', targets: [6], digest: 'second', digestAfterSeq: 7 };
    const shown = historyAsShown(log, [archive, second]);
    expect(shown.map((message) => message.id).slice(-3)).toEqual(['digest-e1', 'm7', 'digest-e2']);
    expect(shown.filter((message) => message.meta.kind === ARCHIVED_RESULT_KIND)).toHaveLength(3);
  });
});
