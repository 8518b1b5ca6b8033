import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toolResultOf } from '../../core/message.ts';
import { joinSplice } from '../../core/tokens/spliced-units.ts';
import { CORPUS, hasCorpusFile, readCorpusSession } from '../testing/read-corpus.ts';
import { countLines, measureText, utf8Length } from './measure-text.ts';
import { normalizeToolOutput } from './normalize-tool-output.ts';
import {
  DEFAULT_LARGE_OUTPUT_THRESHOLD,
  DEFAULT_MAX_BYTES,
  DEFAULT_NORMALIZE_TOOL_OUTPUT_OPTIONS,
  DEFAULT_SPILL_TOKEN_THRESHOLD,
  type TruncateMode,
} from './options.ts';

const REF = 'large_tool_results/call_1';
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
/** A stand-in for the session's counter: one token per 4 UTF-16 units, as tiancai and digitorn estimate. */
const quarterTokens = (text: string): number => Math.ceil(text.length / 4);

/** A truncated output without its stats notice (and the line break put before it). */
function bodyOf(output: { content: string; notice?: string }): string {
  return output.notice === undefined ? output.content : output.content.slice(0, -output.notice.length);
}

/** The tool results of a corpus session, largest first. */
function corpusResults(file: string): string[] {
  return readCorpusSession(file)
    .flatMap((message) => {
      const result = toolResultOf(message);
      return result ? [result.content] : [];
    })
    .sort((a, b) => b.length - a.length);
}

describe('normalizeToolOutput: rendering', () => {
  it('returns plain output that fits as it is, without touching the terminal', async () => {
    const content = 'total 2\n-rw-r--r-- 1 me me 10 a.txt\n\ttabbed\n';
    const output = await normalizeToolOutput({ content, spillRef: REF });
    expect(output).toMatchObject({ action: 'unchanged', content, changed: false });
    expect(output.stats.render).toBe('none');
    expect(output.spill).toBeUndefined();
    expect(output.notice).toBeUndefined();
  });

  it('renders terminal output and reports it as rendered', async () => {
    const content = 'Epoch 1\n\r 10%|█   |\r 50%|██  |\r100%|████|\n\x1b[32mok\x1b[0m\n';
    const output = await normalizeToolOutput({ content, spillRef: REF });
    expect(output).toMatchObject({ action: 'rendered', content: 'Epoch 1\n100%|████|\nok\n', changed: true });
    expect(output.stats.render).toBe('terminal');
    expect(output.stats.original.chars).toBeGreaterThan(output.stats.normalized.chars);
  });

  it('makes CRLF line ends LF without the emulator, and can be told not to render at all', async () => {
    const crlf = await normalizeToolOutput({ content: 'a\r\nb\r\n', spillRef: REF });
    expect(crlf).toMatchObject({ content: 'a\nb\n', action: 'rendered' });
    expect(crlf.stats.render).toBe('crlf');
    const raw = await normalizeToolOutput(
      { content: '\x1b[1mbold\x1b[0m', spillRef: REF },
      { renderTerminal: false },
    );
    expect(raw).toMatchObject({ content: '\x1b[1mbold\x1b[0m', action: 'unchanged' });
  });

  it.skipIf(!hasCorpusFile('swe-agent__ctf_BabyTimeCapsule.jsonl'))(
    'renders real coloured output from the corpus (RsaCtfTool)',
    async () => {
      const content = corpusResults('swe-agent__ctf_BabyTimeCapsule.jsonl').find((text) =>
        text.includes('\x1b['),
      );
      if (content === undefined) throw new Error('no coloured result in the corpus file');
      const output = await normalizeToolOutput({ content, spillRef: REF });
      expect(output.content).not.toContain('\x1b');
      expect(output.content).toContain('[*] Performing common_factors attack.\n');
      expect(countLines(output.content)).toBe(countLines(content));
    },
  );

  const pipFile =
    'swe-agent__replay__marshmallow-code__marshmallow-1867__function_calling_replace_from_source__marshmallow-code__marshmallow-1867.jsonl';
  it.skipIf(!hasCorpusFile(pipFile))('collapses a real pip spinner drawn with backspaces', async () => {
    const content = corpusResults(pipFile).find((text) => text.includes('\b'));
    if (content === undefined) throw new Error('no spinner in the corpus file');
    const output = await normalizeToolOutput({ content, spillRef: REF });
    expect(output.content).toContain('  Installing build dependencies ... done\n');
    expect(output.content).not.toMatch(/[\b\r]/);
  });
});

describe('normalizeToolOutput: limits', () => {
  // 4000 lines, 160K chars: over every tiancai limit but the spill threshold.
  const lines = Array.from({ length: 4000 }, (_, i) => `${String(i).padStart(5, '0')} ${'x'.repeat(i % 70)}`);
  const content = `${lines.join('\n')}\n`;

  it('cuts by lines, then chars, then bytes under tiancai defaults, and appends a stats notice', async () => {
    const output = await normalizeToolOutput({ content, spillRef: REF });
    const total = measureText(content);
    expect(output.action).toBe('truncated');
    expect(output.stats.cutBy).toEqual(['lines', 'bytes']);
    expect(output.notice).toMatch(
      new RegExp(
        `^\\[output truncated: kept the start and end, \\d+ of 4000 lines, \\d+ of ${total.chars} chars, \\d+ of ${total.bytes} bytes\\]$`,
      ),
    );
    expect(output.content.endsWith(`\n${output.notice}`)).toBe(true);
    const body = bodyOf(output);
    expect(utf8Length(body)).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
    expect(body.startsWith(`${lines[0]}\n`)).toBe(true);
    expect(body.endsWith(`${lines.at(-1)}\n`)).toBe(true);
    expect(body.match(/\.\.\. \[\d+ lines omitted\] \.\.\.\n/g)).toHaveLength(1);
  });

  it('says what it kept as a splice of the rendered output, which joins to the content', async () => {
    for (const truncateMode of ['head', 'tail', 'head_tail'] as const) {
      for (const options of [{ maxLines: 10 }, { maxBytes: 5_000 }, { maxChars: 777, maxLines: 3 }]) {
        const output = await normalizeToolOutput({ content, spillRef: REF }, { ...options, truncateMode });
        expect(output.action).toBe('truncated');
        const spliced = output.contentSplice;
        expect(spliced?.source).toBe(content);
        expect(joinSplice(content, spliced?.splice ?? [])).toBe(output.content);
      }
    }
    const untouched = await normalizeToolOutput({ content: 'short', spillRef: REF });
    expect(untouched.contentSplice).toBeUndefined();
  });

  for (const [truncateMode, first, last] of [
    ['head', '00000', '00009'],
    ['tail', '03990', '03999'],
    ['head_tail', '00000', '03999'],
  ] as const) {
    it(`keeps ${truncateMode} lines in ${truncateMode} mode`, async () => {
      const output = await normalizeToolOutput({ content, spillRef: REF }, { maxLines: 10, truncateMode });
      const body = bodyOf(output);
      expect(countLines(body)).toBe(10);
      expect(body.startsWith(first)).toBe(true);
      expect(body.trimEnd().split('\n').at(-1)?.startsWith(last)).toBe(true);
      expect(body.includes('lines omitted')).toBe(truncateMode === 'head_tail');
    });
  }
});

describe('normalizeToolOutput: spilling', () => {
  it('spills above the rune threshold with the full output, its sha256, a preview and a pointer', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `row ${i}: ${'数据'.repeat(5)}`);
    const content = lines.join('\n');
    expect(measureText(content).chars).toBeGreaterThan(DEFAULT_LARGE_OUTPUT_THRESHOLD);
    const output = await normalizeToolOutput({ content, spillRef: REF });
    expect(output.action).toBe('spilled');
    expect(output.spill).toMatchObject({
      reason: 'chars',
      ref: REF,
      content,
      sha256: sha256(content),
      bytes: Buffer.byteLength(content, 'utf8'),
    });
    const [pointer, ...preview] = output.content.split('\n');
    expect(pointer).toContain(`Saved in full as ${REF} (sha256 ${sha256(content)})`);
    expect(pointer).toContain(`Read it with the read_offloaded tool (ref "${REF}")`);
    expect(pointer).toContain(`${Buffer.byteLength(content, 'utf8')} bytes, 30000 lines`);
    expect(preview.slice(0, 10)).toEqual(lines.slice(0, 10));
    expect(preview.slice(-10)).toEqual(lines.slice(-10));
    expect(preview[10]).toBe('... [29980 lines omitted] ...');
    expect(output.content.length).toBeLessThan(5000);
  });

  it('spills exactly past the threshold, not at it', async () => {
    const at = 'a'.repeat(1000);
    const options = { largeOutputThreshold: 1000, maxChars: 10_000, maxBytes: 10_000 };
    expect((await normalizeToolOutput({ content: at, spillRef: REF }, options)).action).toBe('unchanged');
    expect((await normalizeToolOutput({ content: `${at}b`, spillRef: REF }, options)).action).toBe('spilled');
  });

  it('spills above the token threshold (deepagents) even when under the rune threshold', async () => {
    const content = 'word '.repeat(20_000); // 100,000 chars: under 200K runes, ~25,000 tokens
    const output = await normalizeToolOutput({ content, spillRef: REF, countTokens: quarterTokens });
    expect(output.action).toBe('spilled');
    expect(output.spill?.reason).toBe('tokens');
    expect(output.stats.tokens).toBe(25_000);
    expect(output.content).toContain(`25000 tokens, over the ${DEFAULT_SPILL_TOKEN_THRESHOLD}-token limit`);
    // Without a counter only the rune threshold applies: the same output is truncated instead.
    expect((await normalizeToolOutput({ content, spillRef: REF })).action).toBe('truncated');
  });

  it('does not count output whose byte bound is under the token threshold, and counts the rest', async () => {
    const counted: number[] = [];
    const countTokens = (text: string): number => {
      counted.push(text.length);
      return text.length; // one token per byte: the bound itself
    };
    const options = { spillTokenThreshold: 1_000, largeOutputThreshold: 100_000 };
    const small = await normalizeToolOutput(
      { content: 'é'.repeat(500), spillRef: REF, countTokens, maxTokensPerByte: 1 },
      options,
    );
    expect(small.action).toBe('unchanged');
    expect(counted).toEqual([]); // 1,000 bytes: at most 1,000 tokens, never over the limit
    const large = await normalizeToolOutput(
      { content: 'é'.repeat(501), spillRef: REF, countTokens, maxTokensPerByte: 1 },
      options,
    );
    expect(counted).toEqual([501]);
    expect(large.action).toBe('unchanged'); // counted: 501 tokens, under the limit after all
    // Without a bound every output is counted.
    await normalizeToolOutput({ content: 'é'.repeat(500), spillRef: REF, countTokens }, options);
    expect(counted).toEqual([501, 500]);
  });

  it('keeps a single huge line readable in the preview: head and tail by chars', async () => {
    const content = `{"data":"${'z'.repeat(300_000)}"}`;
    const output = await normalizeToolOutput({ content, spillRef: REF });
    expect(output.spill?.preview).toMatch(/^\{"data":"z+ \.\.\. \[\d+ chars omitted\] \.\.\. z+"\}$/);
    expect(output.spill?.preview.length).toBeLessThanOrEqual(
      DEFAULT_NORMALIZE_TOOL_OUTPUT_OPTIONS.previewMaxChars,
    );
  });

  it('measures the rendered text against the thresholds: collapsed progress frames do not spill', async () => {
    const frames = Array.from({ length: 30_000 }, (_, i) => `\r${i}%`).join('');
    const output = await normalizeToolOutput(
      { content: `${frames}\ndone\n`, spillRef: REF },
      { largeOutputThreshold: 100 },
    );
    expect(output.action).toBe('rendered');
    expect(output.content).toBe('29999%\ndone\n');
  });

  it('spills the rendered text, so the blob holds what the agent would have seen', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `\x1b[36mtest_${i}\x1b[0m ... \x1b[32mPASSED\x1b[0m`);
    const output = await normalizeToolOutput(
      { content: lines.join('\n'), spillRef: REF },
      { largeOutputThreshold: 1000 },
    );
    expect(output.stats.render).toBe('terminal');
    expect(output.spill?.content.split('\n')).toEqual(lines.map((_, i) => `test_${i} ... PASSED`));
    expect(output.spill?.sha256).toBe(sha256(output.spill?.content ?? ''));
  });

  it('with capBeforeSpill (deepagents), caps first: the spill check, the blob and its preview see the capped output', async () => {
    const content = `first line\n${'0123456789abcdef\n'.repeat(30_000)}last line`; // ~510 KB, ~127k tokens
    const options = {
      maxLines: Number.POSITIVE_INFINITY,
      maxChars: Number.POSITIVE_INFINITY,
      maxBytes: 256 * 1024,
      largeOutputThreshold: Number.POSITIVE_INFINITY,
      truncateMode: 'tail' as const,
    };
    const spillFirst = await normalizeToolOutput(
      { content, spillRef: REF, countTokens: quarterTokens },
      options,
    );
    expect(spillFirst.spill?.content).toBe(content);
    const capFirst = await normalizeToolOutput(
      { content, spillRef: REF, countTokens: quarterTokens },
      { ...options, capBeforeSpill: true },
    );
    expect(capFirst.action).toBe('spilled');
    expect(capFirst.stats.cutBy).toEqual(['bytes']);
    const stored = capFirst.spill?.content ?? '';
    expect(stored).not.toContain('first line');
    expect(stored).toMatch(/last line\n\[output truncated/);
    expect(utf8Length(stored.slice(0, stored.indexOf('\n[output truncated')))).toBeLessThanOrEqual(
      256 * 1024,
    );
    expect(capFirst.stats.tokens).toBe(quarterTokens(stored));
    // Capped under the token threshold, it stays inline, capped.
    const small = await normalizeToolOutput(
      { content, spillRef: REF, countTokens: quarterTokens },
      { ...options, maxBytes: 40_000, capBeforeSpill: true },
    );
    expect(small.action).toBe('truncated');
    expect(small.content).toContain('last line');
  });
});

describe.skipIf(!hasCorpusFile(CORPUS.piMono))(
  'normalizeToolOutput: the largest result of a real session',
  () => {
    // The same file was read twice in the session: the second largest distinct result is another file.
    const [largest = '', second = ''] = [...new Set(corpusResults(CORPUS.piMono))];

    it('is the 51,266-char file read of pi-mono, 66 bytes over tiancai MaxBytes', () => {
      expect(largest.length).toBe(51_266);
      expect(utf8Length(largest) - DEFAULT_MAX_BYTES).toBe(66);
    });

    it('under the defaults, is cut only by bytes, keeping its start and end lines whole', async () => {
      const output = await normalizeToolOutput({ content: largest, spillRef: REF });
      expect(output.stats.cutBy).toEqual(['bytes']);
      const body = bodyOf(output);
      expect(utf8Length(body)).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
      const original = largest.replace(/\n$/, '').split('\n');
      const kept = body.replace(/\n$/, '').split('\n');
      const marker = kept.findIndex((line) => /^\.\.\. \[\d+ lines? omitted\] \.\.\.$/.test(line));
      expect(kept.slice(0, marker)).toEqual(original.slice(0, marker));
      expect(original.slice(-(kept.length - marker - 1))).toEqual(kept.slice(marker + 1));
    });

    it('goes through unchanged with room for it, and the second largest under the defaults', async () => {
      const roomy = await normalizeToolOutput({ content: largest, spillRef: REF }, { maxBytes: 64 * 1024 });
      expect(roomy).toMatchObject({ action: 'unchanged', content: largest, changed: false });
      expect(utf8Length(second)).toBeLessThanOrEqual(DEFAULT_MAX_BYTES);
      const defaults = await normalizeToolOutput({ content: second, spillRef: REF });
      expect(defaults).toMatchObject({ action: 'unchanged', content: second });
    });

    it('is cut to exact lines under small limits', async () => {
      const original = largest.split('\n');
      const output = await normalizeToolOutput({ content: largest, spillRef: REF }, { maxLines: 101 });
      const body = bodyOf(output);
      const kept = body.split('\n');
      expect(kept.slice(0, 50)).toEqual(original.slice(0, 50));
      expect(kept[50]).toBe(`... [${countLines(largest) - 100} lines omitted] ...`);
      expect(kept.slice(51, 101)).toEqual(original.slice(-50));
      expect(output.notice).toBe(
        `[output truncated: kept the start and end, 100 of ${countLines(largest)} lines, ` +
          `${measureText(kept.slice(0, 50).join('\n')).chars + measureText(kept.slice(51, 101).join('\n')).chars + 1} of 51266 chars, ` +
          `${utf8Length(kept.slice(0, 50).join('\n')) + utf8Length(kept.slice(51, 101).join('\n')) + 1} of 51266 bytes]`,
      );
    });

    it('spills under a token threshold it exceeds, the blob being the result itself', async () => {
      const output = await normalizeToolOutput(
        { content: largest, spillRef: REF, countTokens: quarterTokens },
        { spillTokenThreshold: 10_000 },
      );
      expect(output.spill).toMatchObject({ reason: 'tokens', content: largest, sha256: sha256(largest) });
    });
  },
);

describe('normalizeToolOutput: properties', () => {
  const plainText = fc
    .array(fc.string({ unit: 'grapheme', maxLength: 80 }), { maxLength: 80 })
    .map((lines) => lines.join('\n').replaceAll('\x1b', '').replaceAll('\r', '').replaceAll('\b', ''));
  const limit = fc.integer({ min: 1, max: 2000 });
  const mode = fc.constantFrom<TruncateMode>('head', 'tail', 'head_tail');
  /** The stats notice is the only thing allowed past the limits; it is short. */
  const NOTICE_ALLOWANCE = 200;

  it('never exceeds the limits beyond the notice, and returns what fits unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(
        plainText,
        limit,
        limit,
        limit,
        mode,
        async (content, maxLines, maxChars, maxBytes, truncateMode) => {
          const output = await normalizeToolOutput(
            { content, spillRef: REF },
            { maxLines, maxChars, maxBytes, truncateMode, largeOutputThreshold: 1_000_000 },
          );
          const total = measureText(content);
          if (total.lines <= maxLines && total.chars <= maxChars && total.bytes <= maxBytes) {
            expect(output).toMatchObject({ action: 'unchanged', content, changed: false });
            return;
          }
          expect(output.action).toBe('truncated');
          const notice = output.notice ?? '';
          expect(notice.length).toBeLessThanOrEqual(NOTICE_ALLOWANCE);
          expect(output.content.endsWith(notice)).toBe(true);
          const body = output.content.slice(0, output.content.length - notice.length).replace(/\n$/, '');
          const size = measureText(body);
          expect(size.lines).toBeLessThanOrEqual(maxLines);
          expect(size.chars).toBeLessThanOrEqual(maxChars);
          expect(size.bytes).toBeLessThanOrEqual(maxBytes);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('normalizeToolOutput: options', () => {
  it('refuses limits that cannot work, naming the key', async () => {
    await expect(normalizeToolOutput({ content: 'x', spillRef: REF }, { maxLines: 0 })).rejects.toMatchObject(
      {
        code: 'invalid_policy',
        key: 'normalizeToolOutput.maxLines',
      },
    );
    await expect(
      normalizeToolOutput({ content: 'x', spillRef: REF }, { truncateMode: 'middle' as TruncateMode }),
    ).rejects.toMatchObject({ code: 'invalid_policy', key: 'normalizeToolOutput.truncateMode' });
  });

  it('treats Infinity as no limit and undefined as the default', async () => {
    const content = 'line\n'.repeat(3000);
    expect(
      (await normalizeToolOutput({ content, spillRef: REF }, { maxLines: Number.POSITIVE_INFINITY })).action,
    ).toBe('unchanged');
    expect((await normalizeToolOutput({ content, spillRef: REF }, { maxLines: undefined })).action).toBe(
      'truncated',
    );
  });
});
