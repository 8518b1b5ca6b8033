import { describe, expect, it } from 'vitest';
import type { Edit, EditBase } from '../../core/edit.ts';
import type { Message } from '../../core/message.ts';
import { buildDashboardView } from './dashboard-view.ts';

const base = (id: string, layer: EditBase['layer']): EditBase => ({
  id,
  at: 1_000,
  layer,
  reason: 'context_pressure',
  tokensBefore: 100,
  tokensAfter: 10,
});

/** Three turns of user → tool call → tool result → reply: seqs 0–3, 4–7 and 8–11. */
function threeTurns(): Message[] {
  const log: Message[] = [];
  const add = (message: Omit<Message, 'seq' | 'id' | 'meta'>) =>
    log.push({ ...message, id: `m${log.length}`, seq: log.length, meta: {} });
  const outputs = ['A'.repeat(5_000), 'the big output', 'third output <script>alert(1)</script>'];
  outputs.forEach((output, turn) => {
    add({ role: 'user', parts: [{ type: 'text', text: `question ${turn}` }] });
    add({
      role: 'assistant',
      parts: [{ type: 'tool-call', callId: `c${turn}`, name: 'read_file', args: '{}' }],
    });
    add({
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: `c${turn}`, name: 'read_file', content: output, isError: false },
      ],
    });
    add({ role: 'assistant', parts: [{ type: 'text', text: `answer ${turn}` }] });
  });
  return log;
}

const summarize: Edit = {
  ...base('s1', 'summarize'),
  reason: 'token_budget',
  type: 'summarize',
  throughSeq: 3,
  placement: 'own-message',
  summary: { text: '# Summary', sections: {}, throughSeq: 3, tokens: 5, producer: 'extractive' },
};
const evict: Edit = {
  ...base('e1', 'clear'),
  type: 'evict',
  target: 6,
  blobRef: 'large_tool_results/r6',
  sha256: '0'.repeat(64),
  bytes: 14,
  content: '[offloaded: read large_tool_results/r6]',
};
const clear: Edit = {
  ...base('c1', 'clear'),
  type: 'clear',
  targets: [10],
  placeholder: '[cleared]',
  clearInputs: false,
};

describe('the view the dashboard shows', () => {
  it('marks every message with what compaction made of it, and keeps the ones out of view in their place', () => {
    const view = buildDashboardView(threeTurns(), [summarize, evict, clear]);
    expect(view.items.map((item) => [item.seq, item.inView, item.mark])).toEqual([
      [0, false, 'summarized'],
      [1, false, 'summarized'],
      [2, false, 'summarized'],
      [3, false, 'summarized'],
      [4, true, 'kept'],
      [5, true, 'kept'],
      [6, true, 'offloaded'],
      [7, true, 'kept'],
      [8, true, 'kept'],
      [9, true, 'kept'],
      [10, true, 'cleared'],
      [11, true, 'kept'],
    ]);
    expect(view.marks).toEqual({ summarized: 4, kept: 6, offloaded: 1, cleared: 1 });
    expect(view.cut).toEqual({
      id: 's1',
      type: 'summarize',
      layer: 'summarize',
      reason: 'token_budget',
      at: 1_000,
      throughSeq: 3,
    });
    expect(view.summary).toMatchObject({
      text: '# Summary',
      chars: 9,
      throughSeq: 3,
      producer: 'extractive',
    });
    expect(view.reminder).toBeNull();
    expect(view).toMatchObject({ log: 12, edits: 3, earlier: 0, before: null });

    const [offloaded, cleared] = [view.items[6], view.items[10]];
    // What the model sees, what was logged, and where the whole output went.
    expect(offloaded).toMatchObject({
      role: 'tool',
      tool: 'read_file',
      text: '[offloaded: read large_tool_results/r6]',
      blobRef: 'large_tool_results/r6',
      edit: { id: 'e1', type: 'evict', layer: 'clear' },
      original: { text: 'the big output', chars: 14 },
    });
    // A hostile text is data: it comes back as it was logged.
    expect(cleared).toMatchObject({
      text: '[cleared]',
      edit: { id: 'c1', type: 'clear' },
      original: { text: 'third output <script>alert(1)</script>' },
    });
    expect(view.items[4]).not.toHaveProperty('original');
    expect(view.items[5]).toMatchObject({ text: '→ read_file({})', tool: 'read_file' });
  });

  it('clips each text and lists the newest rows, the earlier ones a page away', () => {
    const log = threeTurns();
    const clipped = buildDashboardView(log, [], { maxChars: 100 });
    expect(clipped.items[2]).toMatchObject({ mark: 'kept', chars: 5_000 });
    expect(clipped.items[2]?.text).toBe('A'.repeat(100));

    const newest = buildDashboardView(log, [], { maxItems: 5 });
    expect(newest.items.map((item) => item.seq)).toEqual([7, 8, 9, 10, 11]);
    expect(newest).toMatchObject({ earlier: 7, before: 7 });
    const previous = buildDashboardView(log, [], { maxItems: 5, before: 7 });
    expect(previous.items.map((item) => item.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(previous).toMatchObject({ earlier: 2, before: 2 });
    const first = buildDashboardView(log, [], { maxItems: 5, before: 2 });
    expect(first.items.map((item) => item.seq)).toEqual([0, 1]);
    expect(first).toMatchObject({ earlier: 0, before: null });
    // The counts are the session's, whatever page is listed.
    expect(first.marks).toEqual({ kept: 12 });
  });

  it('shows archived results beside their digest, dropped turns beside the reminder, and what was never shown', () => {
    const log = threeTurns();
    const hidden = log[7] as Message;
    log[7] = { ...hidden, meta: { agentVisible: false } };
    const archive: Edit = {
      ...base('a1', 'archive'),
      type: 'archive',
      targets: [6],
      digest: 'read_file: the big output',
      digestAfterSeq: 6,
    };
    const drop: Edit = {
      ...base('d1', 'drop'),
      type: 'drop',
      throughSeq: 3,
      reminder: 'Goal: answer the questions',
    };
    const view = buildDashboardView(log, [drop, archive]);
    expect(view.items.map((item) => [item.seq, item.inView, item.mark])).toEqual([
      [0, false, 'dropped'],
      [1, false, 'dropped'],
      [2, false, 'dropped'],
      [3, false, 'dropped'],
      [4, true, 'kept'],
      // The call goes with its archived result.
      [5, false, 'archived'],
      [6, false, 'archived'],
      [null, true, 'digest'],
      [7, false, 'invisible'],
      [8, true, 'kept'],
      [9, true, 'kept'],
      [10, true, 'kept'],
      [11, true, 'kept'],
    ]);
    expect(view.items[6]).toMatchObject({ text: 'the big output', edit: { id: 'a1', type: 'archive' } });
    expect(view.reminder).toEqual({ text: 'Goal: answer the questions', chars: 26 });
    expect(view.summary).toBeNull();
    // A page never separates a made message from the one it follows.
    const page = buildDashboardView(log, [drop, archive], { maxItems: 6 });
    expect(page.items.map((item) => item.seq)).toEqual([6, null, 7, 8, 9, 10, 11]);
    expect(page).toMatchObject({ earlier: 6, before: 6 });
  });
});
