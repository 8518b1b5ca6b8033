/** `ctxkit/layers`: the compaction layers, each a pure planner from a view to edits, and tool-output normalization. */

export * from '../layers/archive-results.ts';
export * from '../layers/clear-old-results.ts';
export * from '../layers/clip-text.ts';
export * from '../layers/compress-text.ts';
export * from '../layers/current-turn.ts';
export * from '../layers/cut-oldest-turns.ts';
export * from '../layers/describe-tool-use.ts';
export * from '../layers/drop-edit.ts';
export * from '../layers/drop-with-reminder.ts';
export * from '../layers/edit-chain.ts';
export * from '../layers/edit-meta.ts';
export * from '../layers/fit-to-budget.ts';
export * from '../layers/halve-turns.ts';
export * from '../layers/history-cut.ts';
export * from '../layers/layer-input.ts';
export {
  type NormalizedToolOutput,
  type NormalizeToolOutputInput,
  type NormalizeToolOutputOptions,
  normalizeEdit,
  normalizeToolOutput,
  renderToolOutput,
  stripTerminalControls,
} from '../layers/normalize-tool-output/index.ts';
export * from '../layers/read-back-part.ts';
export * from '../layers/safe-cut.ts';
export * from '../layers/snip-oversized.ts';
export * from '../layers/split-recent.ts';
export * from '../layers/token-savings.ts';
export * from '../layers/tool-call-lookup.ts';
export * from '../layers/trim-turns.ts';
export * from '../layers/truncate-old-results.ts';
