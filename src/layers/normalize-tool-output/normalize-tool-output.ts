import type { Splice } from '../../core/tokens/token-counter.ts';
import { applyOutputLimits, type LimitName } from './apply-output-limits.ts';
import { measureText, type TextMeasure } from './measure-text.ts';
import { type NormalizeToolOutputOptions, resolveNormalizeOptions } from './options.ts';
import { planSpill, type SpillDecision, type SpillReason } from './plan-spill.ts';
import { type RenderMode, renderToolOutput } from './render-tool-output.ts';
import { appendNotice, truncationNotice } from './truncation-notice.ts';

export interface NormalizeToolOutputInput {
  /** The tool result's content as it arrived. */
  content: string;
  /**
   * Where a spilled output will be stored, e.g. `large_tool_results/<id>` (the store's `blobRef`). The
   * pointer left inline names it, so it is fixed before the decision; BlobStore.put returns the same ref.
   */
  spillRef: string;
  /** The session's token counter; without one, only tiancai's rune threshold can spill. */
  countTokens?: (text: string) => number;
  /**
   * At most this many tokens per UTF-8 byte from `countTokens` (1 for byte-level BPE tokenizers: every
   * token covers at least one byte). Output whose bound is under the token threshold is not counted:
   * tokenizing every result in full only to learn it is small was half of what an append cost.
   */
  maxTokensPerByte?: number;
}

/** What happened, most drastic first wins: spilled > truncated > rendered > unchanged. */
export type NormalizeAction = 'unchanged' | 'rendered' | 'truncated' | 'spilled';

export interface NormalizeStats {
  /** The content as it arrived. */
  original: TextMeasure;
  render: RenderMode;
  /** After rendering (and the caps, with `capBeforeSpill`): what the spill check measured, and what a spill stores. */
  normalized: TextMeasure;
  /** What the model sees: `content` below, notice or pointer included. */
  inline: TextMeasure;
  cutBy: LimitName[];
  /** Tokens of the normalized output, when it was counted (a counter was passed and no rune spill). */
  tokens?: number;
}

export interface NormalizedToolOutput {
  action: NormalizeAction;
  /** What replaces the tool result in the model's view. */
  content: string;
  changed: boolean;
  stats: NormalizeStats;
  /** The stats notice appended to a truncated output. */
  notice?: string;
  /** Set when the output must be stored as a blob; `content` is then the pointer and preview. */
  spill?: SpillDecision;
  /**
   * A truncated `content` as a splice of the rendered output (`source`): a counter that can counts it
   * around its cuts, where the output was already counted whole.
   */
  contentSplice?: { source: string; splice: Splice };
}

/**
 * The normalize-tool-output layer's planner, applied to a tool result as it arrives: render terminal
 * output, then tiancai's order — spill above the rune threshold (or, deepagents, above the token
 * threshold), otherwise cut by lines, runes, bytes and append a stats notice. With `capBeforeSpill`
 * (deepagents, whose kernel caps its stream before the result exists) the cut comes first and the spill
 * check, the blob and its preview see the capped output.
 *
 * Pure apart from being async (xterm reports a finished write by callback): no I/O, no clock; the caller
 * writes the blob and records the edit (`normalizeEdit`).
 */
export async function normalizeToolOutput(
  input: NormalizeToolOutputInput,
  options: Partial<NormalizeToolOutputOptions> = {},
): Promise<NormalizedToolOutput> {
  const settings = resolveNormalizeOptions(options);
  const original = measureText(input.content);
  const rendered = await renderToolOutput(input.content, settings);
  const measuredRendered = rendered.mode === 'none' ? original : measureText(rendered.text);
  const capped = settings.capBeforeSpill ? capOutput(rendered.text, settings, measuredRendered) : undefined;
  const text = capped?.notice === undefined ? rendered.text : capped.content;
  const normalized = text === rendered.text ? measuredRendered : measureText(text);

  let reason: SpillReason | undefined;
  let tokens: number | undefined;
  if (normalized.chars > settings.largeOutputThreshold) reason = 'chars';
  else if (
    input.countTokens &&
    settings.spillTokenThreshold !== Number.POSITIVE_INFINITY &&
    !(
      input.maxTokensPerByte !== undefined &&
      normalized.bytes * input.maxTokensPerByte <= settings.spillTokenThreshold
    )
  ) {
    tokens = input.countTokens(text);
    if (tokens > settings.spillTokenThreshold) reason = 'tokens';
  }
  const base = { original, render: rendered.mode, normalized, ...(tokens !== undefined && { tokens }) };

  if (reason) {
    const { spill, inline } = planSpill({
      reason,
      ref: input.spillRef,
      content: text,
      size: normalized,
      ...(tokens !== undefined && { tokens }),
      threshold: reason === 'chars' ? settings.largeOutputThreshold : settings.spillTokenThreshold,
      previewLines: settings.previewLines,
      previewMaxChars: settings.previewMaxChars,
      readToolName: settings.readToolName,
    });
    return {
      action: 'spilled',
      content: inline,
      changed: true,
      stats: { ...base, inline: measureText(inline), cutBy: capped?.cutBy ?? [] },
      spill,
    };
  }

  const { content, notice, cutBy, splice } = capped ?? capOutput(rendered.text, settings, normalized);
  const changed = content !== input.content;
  return {
    action: notice !== undefined ? 'truncated' : changed ? 'rendered' : 'unchanged',
    content,
    changed,
    stats: {
      ...base,
      inline: content === text ? normalized : measureText(content),
      cutBy,
    },
    ...(notice !== undefined && { notice, contentSplice: { source: rendered.text, splice } }),
  };
}

/** The caps in tiancai's order (lines, runes, bytes), with the stats notice when one cut. */
function capOutput(
  text: string,
  settings: NormalizeToolOutputOptions,
  measure: TextMeasure,
): { content: string; notice: string | undefined; cutBy: LimitName[]; splice: Splice } {
  const limited = applyOutputLimits(text, settings, measure);
  const notice = truncationNotice(limited);
  if (notice === undefined)
    return { content: limited.body, notice, cutBy: limited.cutBy, splice: limited.splice };
  const content = appendNotice(limited.body, notice);
  return {
    content,
    notice,
    cutBy: limited.cutBy,
    splice: [...limited.splice, content.slice(limited.body.length)],
  };
}
