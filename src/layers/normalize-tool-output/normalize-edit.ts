import type { EvictEdit, ReplaceResultEdit } from '../../core/edit.ts';
import { SpillMismatchError } from '../../core/errors/index.ts';
import type { NormalizedToolOutput } from './normalize-tool-output.ts';

/** What BlobStore.put reported for a spilled output (kept structural: layers do not import stores). */
export interface StoredSpill {
  ref: string;
  sha256: string;
  bytes: number;
}

export interface NormalizeEditInput {
  id: string;
  /** Epoch ms, from the manager's clock. */
  at: number;
  /** Log seq of the tool message whose result was normalized. */
  target: number;
  tokensBefore: number;
  tokensAfter: number;
  /** Required when the output was spilled: the blob the caller stored. */
  stored?: StoredSpill;
}

/**
 * Turns a decision into the edit that records it: `evict` for a spill, `truncate-result` for any other
 * change (rendering alone counts), nothing when the output went through unchanged.
 */
export function normalizeEdit(
  output: NormalizedToolOutput,
  input: NormalizeEditInput,
): ReplaceResultEdit | EvictEdit | undefined {
  if (!output.changed) return undefined;
  const base = {
    id: input.id,
    at: input.at,
    layer: 'normalize' as const,
    reason: 'tool_output_limit' as const,
    tokensBefore: input.tokensBefore,
    tokensAfter: input.tokensAfter,
    target: input.target,
    content: output.content,
  };
  const { spill } = output;
  if (!spill) return { ...base, type: 'truncate-result', originalChars: output.stats.original.chars };
  const { stored } = input;
  if (!stored) throw new SpillMismatchError('the output must be stored before its evict edit is recorded');
  if (stored.ref !== spill.ref || stored.sha256 !== spill.sha256 || stored.bytes !== spill.bytes) {
    throw new SpillMismatchError(
      `stored blob ${stored.ref} (sha256 ${stored.sha256}, ${stored.bytes} bytes) is not the one the pointer names: ` +
        `${spill.ref} (sha256 ${spill.sha256}, ${spill.bytes} bytes)`,
      { stored, planned: { ref: spill.ref, sha256: spill.sha256, bytes: spill.bytes } },
    );
  }
  return { ...base, type: 'evict', blobRef: stored.ref, sha256: stored.sha256, bytes: stored.bytes };
}
