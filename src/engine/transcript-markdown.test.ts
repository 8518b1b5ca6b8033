import { describe, expect, it } from 'vitest';
import { archivedMessage } from '../core/view/archived-messages.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { callsTo, numbered, result, user } from '../testing/build-messages.ts';
import { extendTranscript, extendTranscriptInSlices, transcriptMarkdown } from './transcript-markdown.ts';

const log = numbered([
  user('read it'),
  callsTo(['a', 'read', '{"path":"a.ts"}']),
  result('a', 'A-CONTENT', { name: 'read' }),
]);

describe('transcriptMarkdown', () => {
  it('heads each message with its role and seq, and says when it is archived and hidden from whom', () => {
    const plain = transcriptMarkdown(log);
    expect(plain).toContain('## tool (seq 2)\n');
    expect(plain).not.toContain('archived');
    const shown = transcriptMarkdown([...log.slice(0, 2), archivedMessage(log[2] as (typeof log)[number])]);
    expect(shown).toContain('## tool (seq 2, tool_result_archived, hidden from the model)\n');
    // The content is still there: archiving hides a result from the model, not from the record.
    expect(shown).toContain('A-CONTENT');
    const userHidden = transcriptMarkdown([
      { ...(log[0] as (typeof log)[number]), meta: { userVisible: false } },
    ]);
    expect(userHidden).toContain('## user (seq 0, hidden from the user)');
  });

  it('extends a transcript exactly as rendering everything at once', async () => {
    const whole = transcriptMarkdown(log);
    expect(extendTranscript(transcriptMarkdown(log.slice(0, 1)), log.slice(1))).toBe(whole);
    let now = 0;
    const everyMessage = new WorkSlices(1, () => now++);
    expect(
      await extendTranscriptInSlices(transcriptMarkdown(log.slice(0, 1)), log.slice(1), everyMessage),
    ).toBe(whole);
    expect(await extendTranscriptInSlices('', log, everyMessage)).toBe(whole);
  });
});
