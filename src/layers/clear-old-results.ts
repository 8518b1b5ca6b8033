import type { ClearEdit } from '../core/edit.ts';
import { type Message, toolResultOf } from '../core/message.ts';
import { DEFAULT_MESSAGE_OVERHEAD_TOKENS } from '../core/tokens/token-estimate-options.ts';
import { CLEARED_ARGS } from '../core/view/project-view.ts';
import { type EditOptions, editMeta } from './edit-meta.ts';
import type { LayerInput } from './layer-input.ts';
import { callAnsweredAt, toolNameOf } from './tool-call-lookup.ts';

/**
 * deepagents's clearing of old tool results: LangChain's `ContextEditingMiddleware` with
 * `ClearToolUsesEdit`. Its semantics, as its source has them (langchain_v1 `context_editing.py`):
 * - `trigger` (default 100k tokens) gates the edit: the caller's job here (pressure ≥ ~60 %);
 * - `keep` (default 3): the newest K tool results are never candidates; K counts every tool result,
 *   excluded and already-cleared ones included;
 * - candidates go oldest first; an already-cleared result is skipped, so is one from an
 *   `exclude_tools` tool (the result's name, else its call's);
 * - the content becomes `placeholder` ("[cleared]") and the artifact is dropped (here: its media);
 * - `clear_tool_inputs` also blanks the arguments of the call that produced it;
 * - `clear_at_least` (default 0): with a positive value, clearing stops as soon as that many tokens
 *   are reclaimed. LangChain still applies a partial clearing that falls short; Anthropic's server-side
 *   edit ("if it can't clear at least the specified amount, the strategy will not be applied") does
 *   not, because a clearing breaks the prompt cache. ctxkit follows Anthropic on that point: no edit
 *   unless at least `minFreedTokens` are freed.
 */

/** ClearToolUsesEdit `keep=3`. */
export const DEFAULT_CLEAR_KEEP_RECENT = 3;
/** ClearToolUsesEdit `clear_at_least=0`. */
export const DEFAULT_CLEAR_MIN_FREED_TOKENS = 0;
/** ClearToolUsesEdit `placeholder="[cleared]"`. */
export const DEFAULT_CLEAR_PLACEHOLDER = '[cleared]';

export interface ClearOldResultsOptions extends EditOptions {
  /** Newest tool results kept verbatim (`keep`). */
  keepRecent?: number;
  /**
   * The working set: the newest results are also kept while their tokens together fit this budget (the
   * result that would pass it and everything older are candidates). Default 0: `keepRecent` alone.
   */
  keepRecentTokens?: number;
  /** No edit unless it frees at least this many tokens (`clear_at_least`). */
  minFreedTokens?: number;
  /** Tools whose results are never cleared (`exclude_tools`). */
  excludeTools?: readonly string[];
  placeholder?: string;
  /** Also blank the producing calls' arguments (`clear_tool_inputs`). */
  clearInputs?: boolean;
  /**
   * With `minFreedTokens > 0`, stop clearing once it is reached (LangChain; keeps the most content).
   * `false` clears every candidate (Anthropic's edit, one cache break for the most room). Default true.
   */
  stopAtMinimum?: boolean;
  /** Log seqs already cleared some other way (offloaded to a pointer): never picked again. */
  skip?: ReadonlySet<number>;
  /**
   * Results with a log seq below this were settled by an earlier clearing (cleared, offloaded, or too
   * small to free anything, which stays so): not looked at again, so a long session is not walked
   * whole on every call.
   */
  fromSeq?: number;
}

/** The caller has already decided that pressure is at or above the trigger. */
export function planClearOldResults(
  input: LayerInput,
  options: ClearOldResultsOptions = {},
): ClearEdit | undefined {
  const keepRecent = Math.max(0, options.keepRecent ?? DEFAULT_CLEAR_KEEP_RECENT);
  const minFreed = Math.max(0, options.minFreedTokens ?? DEFAULT_CLEAR_MIN_FREED_TOKENS);
  const placeholder = options.placeholder ?? DEFAULT_CLEAR_PLACEHOLDER;
  const clearInputs = options.clearInputs ?? false;
  const stopAtMinimum = options.stopAtMinimum ?? true;
  const excluded = new Set(options.excludeTools ?? []);
  // Looked up per candidate, walking back from it: most results of a long session are skipped below
  // (already cleared or offloaded), so pairing every call up front would cost more than it serves.
  let messages: readonly Message[] | undefined;
  const callOf = (index: number) => {
    messages ??= input.entries.map((entry) => entry.message);
    return callAnsweredAt(messages, index)?.part;
  };

  const keep = { results: keepRecent, tokens: Math.max(0, options.keepRecentTokens ?? 0) };
  const candidates = clearingCandidates(input, keep, options.fromSeq ?? Number.NEGATIVE_INFINITY);

  const placeholderTokens = input.countTokens(placeholder);
  const clearedArgsTokens = input.countTokens(CLEARED_ARGS);
  const targets: number[] = [];
  let freed = 0;
  for (const index of candidates) {
    if (stopAtMinimum && minFreed > 0 && freed >= minFreed) break;
    const entry = input.entries[index];
    const result = entry ? toolResultOf(entry.message) : undefined;
    if (!entry || entry.sourceSeq === undefined || !result) continue;
    const coverage = input.view.coverage.get(entry.sourceSeq);
    if (coverage?.by === 'edit' && coverage.type === 'clear') continue;
    if (options.skip?.has(entry.sourceSeq)) continue;
    const call = excluded.size > 0 || clearInputs ? callOf(index) : undefined;
    if (excluded.size > 0 && excluded.has(toolNameOf(result, call))) continue;
    // All the result costs but its framing and call id goes (content and media): no need to count
    // megabytes of content again.
    const contentSaved =
      (input.entryTokens[index] ?? 0) -
      DEFAULT_MESSAGE_OVERHEAD_TOKENS -
      input.countTokens(result.callId) -
      placeholderTokens;
    const argsSaved =
      clearInputs && call && call.args !== CLEARED_ARGS
        ? Math.max(0, input.countTokens(call.args) - clearedArgsTokens)
        : 0;
    // A result no bigger than the placeholder frees nothing: replacing it would only churn the cache.
    if (contentSaved <= 0 && argsSaved <= 0) continue;
    targets.push(entry.sourceSeq);
    freed += Math.max(0, contentSaved) + argsSaved;
  }

  if (targets.length === 0 || freed <= 0 || freed < minFreed) return undefined;
  return {
    ...editMeta(input, {
      layer: options.layer ?? 'clear',
      reason: options.reason ?? 'context_pressure',
      tokensAfter: input.regions.history - freed,
    }),
    type: 'clear',
    targets,
    placeholder,
    clearInputs,
  };
}

/** What clearing keeps of the newest results: a count, and a working set in tokens. */
export interface ClearingKeep {
  results: number;
  tokens: number;
}

/**
 * The results clearing may pick, newest first: every result from the log (stand-ins for unanswered calls
 * are not the agent's results) but the newest `keep.results`, and the newest that fit `keep.tokens`
 * together, down to `fromSeq`. Once one result is a candidate, every older one is: the working set is
 * the newest stretch of output, not a selection. Walked from the newest end, where the unsettled results are.
 */
function* candidatesFromNewest(
  input: LayerInput,
  keep: ClearingKeep,
  fromSeq = Number.NEGATIVE_INFINITY,
): Generator<{ index: number; seq: number }> {
  let kept = 0;
  let keptTokens = 0;
  let keeping = true;
  for (let index = input.entries.length - 1; index >= 0; index--) {
    const entry = input.entries[index];
    if (entry?.sourceSeq === undefined) continue;
    if (entry.message.role !== 'tool' || !toolResultOf(entry.message)) continue;
    const tokens = input.entryTokens[index] ?? 0;
    if (keeping && (kept < keep.results || keptTokens + tokens <= keep.tokens)) {
      kept++;
      keptTokens += tokens;
      continue;
    }
    keeping = false;
    if (entry.sourceSeq < fromSeq) return;
    yield { index, seq: entry.sourceSeq };
  }
}

/** View indexes of the results clearing may pick, oldest first. */
function clearingCandidates(input: LayerInput, keep: ClearingKeep, fromSeq: number): number[] {
  return [...candidatesFromNewest(input, keep, fromSeq)].map(({ index }) => index).reverse();
}

/**
 * The log seq of the newest result clearing could pick with this `keepRecent` (what `fromSeq` can move
 * past once a clearing has settled every candidate), or undefined when there is none.
 */
export function newestClearingCandidateSeq(
  input: LayerInput,
  keep: number | ClearingKeep,
): number | undefined {
  const rule = typeof keep === 'number' ? { results: keep, tokens: 0 } : keep;
  return candidatesFromNewest(input, rule).next().value?.seq;
}
