/** Test helper: runs `run`, which must throw an InvalidInputError, and returns the error. */

import { expect } from 'vitest';
import { InvalidInputError } from '../../core/errors/index.ts';

export function catchInvalidInput(run: () => unknown): InvalidInputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return error as InvalidInputError;
  }
  throw new Error('expected an InvalidInputError');
}
