export {
  applyOutputLimits,
  type LimitedOutput,
  type LimitName,
  MIN_LINES_FOR_MARKER,
  type OutputLimits,
} from './apply-output-limits.ts';
export { countLines, measureText, type TextMeasure, utf8Length } from './measure-text.ts';
export { type NormalizeEditInput, normalizeEdit, type StoredSpill } from './normalize-edit.ts';
export {
  type NormalizeAction,
  type NormalizedToolOutput,
  type NormalizeStats,
  type NormalizeToolOutputInput,
  normalizeToolOutput,
} from './normalize-tool-output.ts';
export {
  DEFAULT_LARGE_OUTPUT_THRESHOLD,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_LINES,
  DEFAULT_NORMALIZE_TOOL_OUTPUT_OPTIONS,
  DEFAULT_PREVIEW_LINES,
  DEFAULT_PREVIEW_MAX_CHARS,
  DEFAULT_READ_TOOL_NAME,
  DEFAULT_RENDER_MAX_CHARS,
  DEFAULT_SPILL_TOKEN_THRESHOLD,
  DEFAULT_TRUNCATE_MODE,
  type NormalizeToolOutputOptions,
  resolveNormalizeOptions,
  TRUNCATE_MODES,
  type TruncateMode,
} from './options.ts';
export type { SpillDecision, SpillReason } from './plan-spill.ts';
export { renderTerminal, renderTerminalWithin, TERMINAL_ROWS } from './render-terminal.ts';
export { type RenderedOutput, type RenderMode, renderToolOutput } from './render-tool-output.ts';
export { stripTerminalControls } from './strip-terminal-controls.ts';
export {
  meterTerminalWork,
  TERMINAL_WORK_ALLOWANCE,
  TERMINAL_WORK_PER_UNIT,
  type TerminalWorkMeter,
  terminalWorkBudget,
} from './terminal-work-budget.ts';
export { truncationNotice } from './truncation-notice.ts';
