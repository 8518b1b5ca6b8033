import { FlagError } from '../core/errors/index.ts';
import { quoted } from '../core/escape-for-terminal.ts';

export interface CountFlagOptions {
  /** What is counted, for the message: `tokens`, `days`. */
  unit: string;
  /** What 0 means, for the message (`0 = the model profile's window`); without it 0 is refused. */
  zero?: string;
  /** The largest value accepted. Default Number.MAX_SAFE_INTEGER. */
  max?: number;
}

/**
 * A flag that takes a whole number (`--window 128000`, `--days 30`): digits only, `_` or `,` allowed
 * between groups (`128_000`, `128,000`). Anything else (`abc`, `-5`, `1.5`, `1e5`, empty) is a
 * FlagError naming the flag, what it takes and what was given. Undefined stays undefined.
 */
export function parseCountFlag(
  flag: string,
  text: string | undefined,
  options: CountFlagOptions,
): number | undefined {
  if (text === undefined) return undefined;
  const max = options.max ?? Number.MAX_SAFE_INTEGER;
  const min = options.zero !== undefined ? 0 : 1;
  const range =
    options.max !== undefined
      ? ` from ${min} to ${max.toLocaleString('en-US')}`
      : min === 0
        ? ', 0 or more'
        : ', 1 or more';
  const takes = `a whole number of ${options.unit}${range}${options.zero !== undefined ? ` (0 = ${options.zero})` : ''}`;
  const digits = text.trim();
  const value = /^\d{1,3}(?:([_,])\d{3}(?:\1\d{3})*)?$|^\d+$/.test(digits)
    ? Number(digits.replace(/[_,]/g, ''))
    : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new FlagError(flag, `expected ${takes}, got ${quoted(text)}`, text);
  }
  return value;
}
