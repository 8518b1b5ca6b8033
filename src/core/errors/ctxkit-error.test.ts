import { describe, expect, it, vi } from 'vitest';
import * as errors from './index.ts';
import {
  CtxkitError,
  ERROR_CODES,
  InvalidConfigError,
  InvalidInputError,
  InvalidPolicyError,
  ModelCallError,
  SequenceConflictError,
  StoreClosedError,
  TraceStoreClosedError,
} from './index.ts';

/** Every error class the folder exports. */
const errorClasses = Object.values(errors).filter(
  (value): value is typeof CtxkitError =>
    typeof value === 'function' &&
    // biome-ignore lint/plugin/no-error-instanceof: a class's prototype chain, not an error caught.
    (value === CtxkitError || value.prototype instanceof CtxkitError),
);

describe('CtxkitError.isInstance', () => {
  const conflict = new SequenceConflictError('s', 'messages', 3, 4);
  const config = new InvalidConfigError('summarize.trigger', 'expected a number', { source: 'flag:--set' });

  it('holds for any ctxkit error on CtxkitError, and for that kind (or a subclass) on a subclass', () => {
    expect(CtxkitError.isInstance(conflict)).toBe(true);
    expect(SequenceConflictError.isInstance(conflict)).toBe(true);
    expect(InvalidInputError.isInstance(conflict)).toBe(false);
    // InvalidConfigError extends InvalidPolicyError: a policy error handler sees config errors too.
    expect(InvalidPolicyError.isInstance(config)).toBe(true);
    expect(InvalidConfigError.isInstance(config)).toBe(true);
    expect(InvalidConfigError.isInstance(new InvalidPolicyError('k', 'bad'))).toBe(false);
    for (const value of [
      undefined,
      null,
      'sequence_conflict',
      new Error('x'),
      { code: 'sequence_conflict' },
    ]) {
      expect(CtxkitError.isInstance(value)).toBe(false);
      expect(SequenceConflictError.isInstance(value)).toBe(false);
    }
  });

  it('holds across two copies of the package, where instanceof does not', async () => {
    vi.resetModules();
    // A query makes a module of its own: the whole folder loaded again, as a second install would be.
    const secondCopy = './index.ts?second-copy';
    const copy = (await import(/* @vite-ignore */ secondCopy)) as typeof errors;
    const fromCopy = new copy.SequenceConflictError('s', 'edits', 1, 2);
    // biome-ignore lint/plugin/no-error-instanceof: what isInstance is for, shown.
    expect(fromCopy instanceof SequenceConflictError).toBe(false);
    expect(SequenceConflictError.isInstance(fromCopy)).toBe(true);
    expect(CtxkitError.isInstance(fromCopy)).toBe(true);
    expect(InvalidInputError.isInstance(fromCopy)).toBe(false);
    expect(copy.SequenceConflictError.isInstance(conflict)).toBe(true);
  });

  it('a code names a kind of failure: both stores say store_closed', () => {
    const closed = new TraceStoreClosedError('trace.sqlite');
    expect(closed.code).toBe('store_closed');
    expect(StoreClosedError.isInstance(closed)).toBe(true);
  });
});

describe('error codes and causes', () => {
  it('every error class declares a code, and every code is listed in ERROR_CODES', () => {
    expect(errorClasses.length).toBeGreaterThan(40);
    for (const errorClass of errorClasses) {
      if (errorClass === CtxkitError) continue;
      expect(errorClass.code, errorClass.name).toBeDefined();
      expect(ERROR_CODES, errorClass.name).toContain(errorClass.code);
    }
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it('passes a cause through the standard Error option', () => {
    const cause = new Error('socket hang up');
    const error = new ModelCallError('upstream failed', { status: 502 }, { cause });
    expect(error.cause).toBe(cause);
    expect(Object.hasOwn(new ModelCallError('no cause'), 'cause')).toBe(false);
  });

  it('keeps the messages that say where', () => {
    expect(
      new InvalidInputError('expected an object', { file: 'a.jsonl', line: 3, field: 'role' }).message,
    ).toBe('a.jsonl, line 3, field role: expected an object');
    expect(config().message).toBe('ctxkit.yaml:4: summarize.trigger: expected a number');
  });
});

function config(): InvalidConfigError {
  return new InvalidConfigError('summarize.trigger', 'expected a number', {
    source: 'file:ctxkit.yaml#summarize.trigger',
    file: 'ctxkit.yaml',
    line: 4,
  });
}
