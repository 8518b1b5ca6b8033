import { describe, expect, it } from 'vitest';
import { parseSummaryText } from './parse-summary-text.ts';
import { remergePrevious } from './remerge-previous.ts';
import { renderSections } from './render-summary.ts';
import { emptySections, type SummarySections } from './summary-sections.ts';

function sections(partial: Partial<SummarySections>): SummarySections {
  return { ...emptySections(), ...partial };
}

/** The model's reply as it would write these sections, and what the parser reads back from it. */
function replyOf(own: SummarySections): { parsed: SummarySections; reply: string } {
  const reply = renderSections(own);
  return { parsed: parseSummaryText(reply), reply };
}

describe('remergePrevious', () => {
  it('keeps an item the reply copied verbatim once, in the place the model gave it', () => {
    const previous = sections({ files: ['src/a.ts (read)', 'src/b.ts (edited)'] });
    const { parsed, reply } = replyOf(sections({ files: ['src/b.ts (edited)', 'src/a.ts (read)'] }));
    const { sections: merged, readded } = remergePrevious(parsed, previous, reply);
    expect(merged.files).toEqual(['src/b.ts (edited)', 'src/a.ts (read)']);
    expect(readded.files).toBe(0);
  });

  it('does not re-add an item the reply mentions in other words or in another section', () => {
    const previous = sections({
      files: ['src/a.ts (read)'],
      errors: ['$ npm test → FAIL `src/a.test.ts` > parses dates'],
      commands: ['npm run build'],
    });
    const { parsed, reply } = replyOf(
      sections({
        // The path with another note, the error under facts, the command inside a sentence.
        files: ['src/a.ts (read, edited)'],
        facts: ['FAIL src/a.test.ts > parses dates is fixed now'],
        state: ['Ran NPM RUN BUILD again; it passes.'],
      }),
    );
    const { sections: merged, readded } = remergePrevious(parsed, previous, reply);
    expect(merged.files).toEqual(['src/a.ts (read, edited)']);
    expect(merged.errors).toEqual([]);
    expect(merged.commands).toEqual([]);
    expect(readded).toMatchObject({ files: 0, errors: 0, commands: 0 });
  });

  it('re-adds what the reply dropped ahead of its own items, and leaves sections the model owns alone', () => {
    const previous = sections({
      requests: ['Profile the exporter first'],
      files: ['src/export/csv.ts (read)', 'bench/export.bench.ts (created)'],
      decisions: ['Stream rows'],
    });
    const { parsed, reply } = replyOf(
      sections({ files: ['src/export/csv.ts (read)', 'src/export/stream.ts (created)'] }),
    );
    const { sections: merged, readded } = remergePrevious(parsed, previous, reply);
    expect(merged.requests).toEqual(['Profile the exporter first']);
    expect(merged.files).toEqual([
      'bench/export.bench.ts (created)',
      'src/export/csv.ts (read)',
      'src/export/stream.ts (created)',
    ]);
    expect(readded).toMatchObject({ requests: 1, files: 1 });
    expect(merged.decisions).toEqual([]);
  });

  it('keeps the previous intent over the reply’s', () => {
    const previous = sections({ intent: ['Make the export faster'] });
    const { parsed, reply } = replyOf(sections({ intent: ['Speed up exports'] }));
    expect(remergePrevious(parsed, previous, reply).sections.intent).toEqual(['Make the export faster']);
  });
});
