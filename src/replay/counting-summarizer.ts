import { createExtractiveSummarizer } from '../summarize/extractive-summarizer.ts';
import type { Summarizer } from '../summarize/summarizer.ts';

/** A summarizer that counts its calls, for the replay's "model calls spent on summaries". */
export interface CountingSummarizer extends Summarizer {
  readonly calls: number;
}

/**
 * Wraps `inner` (default: the extractive summarizer, offline and deterministic). With `usesModel`, it
 * stands in for a model summarizer: the engine takes the paths it takes with one (model digests,
 * tiancai), and each call is a model call in the metrics, though the text is extractive.
 */
export function countingSummarizer(
  options: { inner?: Summarizer; usesModel?: boolean } = {},
): CountingSummarizer {
  const inner = options.inner ?? createExtractiveSummarizer();
  let calls = 0;
  return {
    name: inner.name,
    usesModel: options.usesModel ?? inner.usesModel,
    get calls() {
      return calls;
    },
    summarize(input) {
      calls++;
      return inner.summarize(input);
    },
  };
}
