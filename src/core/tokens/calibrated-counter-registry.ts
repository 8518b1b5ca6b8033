import { InvalidTokenCounterError } from '../errors/index.ts';
import {
  type CalibratedCounterOptions,
  CalibratedTokenCounter,
  type CalibrationAnchor,
  type CalibrationState,
  type CalibrationUpdate,
} from './calibrated-counter.ts';

/** Settings shared by every counter the registry creates; the model is supplied per lookup. */
export type CalibrationDefaults = Omit<CalibratedCounterOptions, 'model' | 'state'>;

/**
 * One calibrated counter per model name, created on first use, so each model learns its own multiplier
 * (Claude's tokenizer and Llama's do not agree). Names are taken as given: callers that want
 * `openai/gpt-4o` and `gpt-4o` to share a multiplier normalize them first.
 */
export class CalibratedCounterRegistry {
  readonly #defaults: CalibrationDefaults;
  readonly #counters = new Map<string, CalibratedTokenCounter>();

  constructor(defaults: CalibrationDefaults = {}, states: Record<string, CalibrationState> = {}) {
    this.#defaults = { ...defaults };
    for (const [model, state] of Object.entries(states)) {
      this.#counters.set(model, new CalibratedTokenCounter({ ...this.#defaults, model, state }));
    }
  }

  get(model: string): CalibratedTokenCounter {
    if (model.length === 0) throw new InvalidTokenCounterError('model', 'must be a non-empty model name');
    let counter = this.#counters.get(model);
    if (counter === undefined) {
      counter = new CalibratedTokenCounter({ ...this.#defaults, model });
      this.#counters.set(model, counter);
    }
    return counter;
  }

  has(model: string): boolean {
    return this.#counters.has(model);
  }

  observe(model: string, anchor: CalibrationAnchor): CalibrationUpdate {
    return this.get(model).observe(anchor);
  }

  models(): string[] {
    return [...this.#counters.keys()];
  }

  /** Every model's evidence, JSON-safe; pass it back to the constructor to resume. */
  snapshot(): Record<string, CalibrationState> {
    const states: Record<string, CalibrationState> = {};
    for (const [model, counter] of this.#counters) states[model] = counter.state();
    return states;
  }
}
