import { CtxkitError } from './ctxkit-error.ts';
import type { ErrorCode } from './error-codes.ts';

/** A token counter spec or setting that cannot work (unknown kind or encoding, a ratio ≤ 0): names the field. */
export class InvalidTokenCounterError extends CtxkitError {
  static override readonly code: ErrorCode = 'invalid_token_counter';
  readonly field: string;

  constructor(field: string, reason: string, details: Record<string, unknown> = {}) {
    super('invalid_token_counter', `${field}: ${reason}`, { field, reason, ...details });
    this.field = field;
  }
}

/** A position outside a token tally (replace or truncate past its end). */
export class TokenTallyRangeError extends CtxkitError {
  static override readonly code: ErrorCode = 'token_tally_range';
  constructor(index: number, length: number) {
    super('token_tally_range', `index ${index} is outside the tally (length ${length})`, { index, length });
  }
}
