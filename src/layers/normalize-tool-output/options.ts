import { InvalidPolicyError } from '../../core/errors/index.ts';

/**
 * Options of the normalize-tool-output layer. Defaults reproduce tiancai's `ToolOutputLimits` and seed
 * deepagents's eviction threshold; the engine maps a policy onto this shape (this layer does not know the
 * policy schema). Every limit is a positive integer, or `Infinity` to switch that limit off.
 */

/** Which part of an output survives a cut: its beginning, its end, or both with a marker between. */
export type TruncateMode = 'head' | 'tail' | 'head_tail';

export const TRUNCATE_MODES: readonly TruncateMode[] = ['head', 'tail', 'head_tail'];

/** tiancai `MaxLines`. */
export const DEFAULT_MAX_LINES = 2000;
/** tiancai `MaxBytes` (UTF-8 bytes). */
export const DEFAULT_MAX_BYTES = 50 * 1024;
/** tiancai `MaxChars`, counted in runes (code points) as tiancai does. */
export const DEFAULT_MAX_CHARS = 200 * 1024;
/** tiancai `LargeOutputThreshold`: above this many runes the output is spilled to a blob, not cut. */
export const DEFAULT_LARGE_OUTPUT_THRESHOLD = 200 * 1024;
/** tiancai `TruncateMode`. */
export const DEFAULT_TRUNCATE_MODE: TruncateMode = 'head_tail';
/** deepagents: "any tool result over ~20k tokens is written to large_tool_results/<id>". */
export const DEFAULT_SPILL_TOKEN_THRESHOLD = 20_000;
/** Lines of a spilled output kept inline as its preview: half from its start, half from its end. */
export const DEFAULT_PREVIEW_LINES = 20;
/** Runes of a spilled output kept inline as its preview, so one huge line cannot flood the context. */
export const DEFAULT_PREVIEW_MAX_CHARS = 4000;
/**
 * Above this many UTF-16 units the terminal emulator is skipped and escape sequences are stripped by a
 * regular expression instead (see `strip-terminal-controls.ts`). The emulator renders about 10 MB/s;
 * anything this large is spilled anyway, so the approximation only shapes a blob and its preview.
 */
export const DEFAULT_RENDER_MAX_CHARS = 4 * 1024 * 1024;
/**
 * tiancai's order: spill what is over the threshold, cap only the rest. The other order (deepagents: the
 * kernel tail-caps its stream at 256 KB before the result exists, and eviction sees the capped result)
 * is `capBeforeSpill: true`.
 */
export const DEFAULT_CAP_BEFORE_SPILL = false;
/** The agent tool named in a spill pointer (src/agent's reader of offloaded blobs). */
export const DEFAULT_READ_TOOL_NAME = 'read_offloaded';

export interface NormalizeToolOutputOptions {
  maxLines: number;
  maxBytes: number;
  maxChars: number;
  largeOutputThreshold: number;
  truncateMode: TruncateMode;
  /**
   * Cap (lines, runes, bytes) before the spill check, so the capped output is what is measured, stored
   * and previewed (deepagents). `false`: spill first, cap only what is not spilled (tiancai).
   */
  capBeforeSpill: boolean;
  /** Spill when `countTokens(output)` exceeds this; only checked when a counter is passed in. */
  spillTokenThreshold: number;
  /** Render terminal output (progress bars, cursor movement, colours) before measuring it. */
  renderTerminal: boolean;
  renderMaxChars: number;
  previewLines: number;
  previewMaxChars: number;
  readToolName: string;
}

export const DEFAULT_NORMALIZE_TOOL_OUTPUT_OPTIONS: Readonly<NormalizeToolOutputOptions> = Object.freeze({
  maxLines: DEFAULT_MAX_LINES,
  maxBytes: DEFAULT_MAX_BYTES,
  maxChars: DEFAULT_MAX_CHARS,
  largeOutputThreshold: DEFAULT_LARGE_OUTPUT_THRESHOLD,
  truncateMode: DEFAULT_TRUNCATE_MODE,
  capBeforeSpill: DEFAULT_CAP_BEFORE_SPILL,
  spillTokenThreshold: DEFAULT_SPILL_TOKEN_THRESHOLD,
  renderTerminal: true,
  renderMaxChars: DEFAULT_RENDER_MAX_CHARS,
  previewLines: DEFAULT_PREVIEW_LINES,
  previewMaxChars: DEFAULT_PREVIEW_MAX_CHARS,
  readToolName: DEFAULT_READ_TOOL_NAME,
});

const LIMIT_KEYS = [
  'maxLines',
  'maxBytes',
  'maxChars',
  'largeOutputThreshold',
  'spillTokenThreshold',
  'renderMaxChars',
  'previewLines',
  'previewMaxChars',
] as const;

/** Fills in defaults and refuses values that cannot work, naming the key (`InvalidPolicyError`). */
/** Options this function returned: frozen and already checked, so passing them again costs nothing. */
const alreadyResolved = new WeakSet<object>();

export function resolveNormalizeOptions(
  options: Partial<NormalizeToolOutputOptions> = {},
): NormalizeToolOutputOptions {
  if (alreadyResolved.has(options)) return options as NormalizeToolOutputOptions;
  const resolved: NormalizeToolOutputOptions = { ...DEFAULT_NORMALIZE_TOOL_OUTPUT_OPTIONS };
  for (const [key, value] of Object.entries(options)) {
    // `undefined` means "not set" here, so a mapped policy can pass optional fields straight through.
    if (value !== undefined) Object.assign(resolved, { [key]: value });
  }
  for (const key of LIMIT_KEYS) {
    const value = resolved[key];
    const valid = value === Number.POSITIVE_INFINITY || (Number.isInteger(value) && value > 0);
    if (!valid) {
      throw new InvalidPolicyError(`normalizeToolOutput.${key}`, 'must be a positive integer or Infinity', {
        value,
      });
    }
  }
  if (!TRUNCATE_MODES.includes(resolved.truncateMode)) {
    throw new InvalidPolicyError(
      'normalizeToolOutput.truncateMode',
      `must be one of ${TRUNCATE_MODES.join(', ')}`,
      { value: resolved.truncateMode },
    );
  }
  if (typeof resolved.capBeforeSpill !== 'boolean') {
    throw new InvalidPolicyError('normalizeToolOutput.capBeforeSpill', 'must be a boolean', {
      value: resolved.capBeforeSpill,
    });
  }
  if (typeof resolved.renderTerminal !== 'boolean') {
    throw new InvalidPolicyError('normalizeToolOutput.renderTerminal', 'must be a boolean', {
      value: resolved.renderTerminal,
    });
  }
  if (typeof resolved.readToolName !== 'string' || resolved.readToolName === '') {
    throw new InvalidPolicyError('normalizeToolOutput.readToolName', 'must be a non-empty string', {
      value: resolved.readToolName,
    });
  }
  Object.freeze(resolved);
  alreadyResolved.add(resolved);
  return resolved;
}
