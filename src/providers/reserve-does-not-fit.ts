import { InvalidPolicyError } from '../core/errors/index.ts';

/**
 * Whether `error` is the window rule's (`chooseContextWindow`) refusal of a reply reserve that does not
 * fit the window it chose.
 */
export function reserveDoesNotFitWindow(error: unknown): error is InvalidPolicyError {
  return InvalidPolicyError.isInstance(error) && error.key === 'budget.maxOutputTokens';
}
