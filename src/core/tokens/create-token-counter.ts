import { InvalidTokenCounterError } from '../errors/index.ts';
import { type CalibratedCounterOptions, CalibratedTokenCounter } from './calibrated-counter.ts';
import { createExactCounter, EXACT_ENCODINGS, type ExactEncoding } from './exact-counter.ts';
import { createHeuristicCounter } from './heuristic-counter.ts';
import type { TokenCounter } from './token-counter.ts';

/** A token counter as config describes it (plain, JSON-safe). */
export type TokenCounterSpec =
  | { kind: 'exact'; encoding: ExactEncoding }
  | { kind: 'heuristic'; charsPerToken?: number }
  | ({ kind: 'calibrated' } & CalibratedCounterOptions);

export const TOKEN_COUNTER_KINDS = ['exact', 'heuristic', 'calibrated'] as const;

export function createTokenCounter(spec: TokenCounterSpec): TokenCounter {
  switch (spec.kind) {
    case 'exact':
      if (!EXACT_ENCODINGS.includes(spec.encoding)) {
        throw new InvalidTokenCounterError('encoding', `unknown encoding "${String(spec.encoding)}"`, {
          allowed: EXACT_ENCODINGS,
        });
      }
      return createExactCounter(spec.encoding);
    case 'heuristic':
      return createHeuristicCounter(spec.charsPerToken);
    case 'calibrated': {
      const { kind: _kind, ...options } = spec;
      return new CalibratedTokenCounter(options);
    }
    default:
      throw new InvalidTokenCounterError(
        'kind',
        `unknown token counter kind "${String((spec as { kind?: unknown }).kind)}"`,
        { allowed: TOKEN_COUNTER_KINDS },
      );
  }
}
