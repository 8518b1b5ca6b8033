import type { ErrorCode } from './error-codes.ts';

/**
 * Every error ctxkit throws on purpose is a CtxkitError with a stable `code` (see `ERROR_CODES`), so
 * callers (and the CLI, which maps them to exit code 2) can tell them apart without parsing messages.
 *
 * Tell them apart with `isInstance`, not `instanceof`: `CtxkitError.isInstance(error)` holds for any
 * ctxkit error, `SequenceConflictError.isInstance(error)` for that kind (and its subclasses). It reads a
 * `Symbol.for` marker and the codes the error carries, so it works across two copies of the package (a
 * bundled one and an installed one), where `instanceof` answers false.
 */

/** The marker every ctxkit error carries: registered globally, so every copy of ctxkit sees the same one. */
export const CTXKIT_ERROR_MARKER: unique symbol = Symbol.for('ctxkit.error');

/** The codes of an error's class and of each class it extends, for `isInstance`. */
const KIND_CODES: unique symbol = Symbol.for('ctxkit.error.codes');

export interface CtxkitErrorOptions {
  /** The error that led to this one (`Error.cause`). */
  cause?: unknown;
}

export class CtxkitError extends Error {
  /** The code of this class's errors; each subclass declares its own. */
  static readonly code: ErrorCode | undefined = undefined;

  readonly [CTXKIT_ERROR_MARKER] = true;
  readonly [KIND_CODES]: readonly string[];
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    options: CtxkitErrorOptions = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
    this[KIND_CODES] = kindCodes(new.target, code);
  }

  /**
   * Whether `value` is a ctxkit error of this class: on `CtxkitError`, any ctxkit error; on a subclass,
   * one whose class is that subclass or extends it (`InvalidPolicyError.isInstance` holds for an
   * `InvalidConfigError`). Works across copies of the package.
   */
  static isInstance<T extends CtxkitError>(
    this: (abstract new (...args: never[]) => T) & { readonly code: ErrorCode | undefined },
    value: unknown,
  ): value is T {
    if (typeof value !== 'object' || value === null) return false;
    if ((value as { [CTXKIT_ERROR_MARKER]?: unknown })[CTXKIT_ERROR_MARKER] !== true) return false;
    // `this` is the class asked (SequenceConflictError.isInstance): its code is what is checked.
    // biome-ignore lint/complexity/noThisInStatic: the subclass the method is called on is the point.
    const asked = this.code;
    if (asked === undefined) return true;
    const codes = (value as { [KIND_CODES]?: unknown })[KIND_CODES];
    return Array.isArray(codes) && codes.includes(asked);
  }
}

/** The `code` statics from `target` up to CtxkitError, and the instance's own code. */
function kindCodes(target: unknown, code: string): readonly string[] {
  const codes = new Set<string>([code]);
  for (
    let current = target as { code?: unknown } | null;
    current !== null && current !== CtxkitError;
    current = Object.getPrototypeOf(current) as { code?: unknown } | null
  ) {
    if (typeof current.code === 'string') codes.add(current.code);
  }
  return [...codes];
}
