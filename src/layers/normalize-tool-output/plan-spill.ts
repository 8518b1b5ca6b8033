import { sha256OfText } from '../../core/sha256-of-text.ts';
import { applyOutputLimits } from './apply-output-limits.ts';
import type { TextMeasure } from './measure-text.ts';

/** Why an output is spilled: tiancai's rune threshold, or deepagents's token threshold. */
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
