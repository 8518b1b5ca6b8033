import { createHash } from 'node:crypto';
import { applyOutputLimits } from './apply-output-limits.ts';
import type { TextMeasure } from './measure-text.ts';

/** Why an output is spilled: seed 001's rune threshold, or seed 002's token threshold. */
export type SpillReason = 'chars' | 'tokens';

/** The caller stores `content` under `ref` (BlobStore.put) and shows the model `pointer`, never the content. */
export interface SpillDecision {
  reason: SpillReason;
  ref: string;
  /** The full normalized output: what the blob must hold. */
  content: string;
  /** Hex sha256 of `content` as UTF-8, the same digest BlobStore.put reports. */
  sha256: string;
  bytes: number;
  /** Head and tail of the output, with a marker for what lies between. */
  preview: string;
}

export interface SpillPlanInput {
  reason: SpillReason;
  ref: string;
  content: string;
  size: TextMeasure;
  tokens?: number;
  threshold: number;
  previewLines: number;
  previewMaxChars: number;
  readToolName: string;
}

/** UTF-16 units hashed at a time: UTF-8 is encoded a slice at a time, never the whole text at once. */
const HASH_SLICE = 1 << 20;

/**
 * Hex sha256 of `text` as UTF-8, as `createHash('sha256').update(text, 'utf8')` gives it, without that
 * call's UTF-8 copy of the whole text (50 MB more for a 50 MB output). Slices never split a surrogate
 * pair, so their UTF-8 concatenated is the text's.
 */
export function sha256OfText(text: string): string {
  const hash = createHash('sha256');
  if (text.length <= HASH_SLICE) return hash.update(text, 'utf8').digest('hex');
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + HASH_SLICE);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    hash.update(text.slice(start, end), 'utf8');
    start = end;
  }
  return hash.digest('hex');
}

/** The decision plus the text that replaces the output inline: a pointer line, then the preview. */
export function planSpill(input: SpillPlanInput): { spill: SpillDecision; inline: string } {
  const { content, size, ref } = input;
  const sha256 = sha256OfText(content);
  const preview = applyOutputLimits(content, {
    // One line more than the preview's lines: the head_tail marker takes it.
    maxLines: input.previewLines === Number.POSITIVE_INFINITY ? input.previewLines : input.previewLines + 1,
    maxChars: input.previewMaxChars,
    maxBytes: Number.POSITIVE_INFINITY,
    truncateMode: 'head_tail',
  }).body;
  const over =
    input.reason === 'tokens'
      ? `${input.tokens ?? '?'} tokens, over the ${input.threshold}-token limit`
      : `${size.chars} chars, over the ${input.threshold}-char limit`;
  const pointer =
    `[Output too large for the context (${size.bytes} bytes, ${size.lines} lines, ${over}). ` +
    `Saved in full as ${ref} (sha256 ${sha256}). ` +
    `Read it with the ${input.readToolName} tool (ref "${ref}"), a part at a time. ` +
    'Preview of its start and end:]';
  return {
    spill: { reason: input.reason, ref, content, sha256, bytes: size.bytes, preview },
    inline: `${pointer}\n${preview}`,
  };
}
