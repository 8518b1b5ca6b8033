import type { Summary } from '../core/edit.ts';
import { extractSections } from './extract-sections.ts';
import { fitSummary, orderByPriority } from './fit-summary.ts';
import { mergeSections } from './merge-sections.ts';
import type { SummarizeInput, Summarizer } from './summarizer.ts';
import { countedReport } from './summary-report.ts';
import { DEFAULT_MAX_ITEMS_PER_SECTION, sectionsFrom } from './summary-sections.ts';

export const EXTRACTIVE_SUMMARIZER_NAME = 'extractive';

export interface ExtractiveSummarizerOptions {
  /** Items kept per section before the token budget is applied. */
  maxItemsPerSection?: number;
}

/**
 * The offline summarizer: no model, deterministic, fast. It reads the user's requests, the agent's
 * decisions, files, commands, errors, plan items and latest state straight out of the messages, merges
 * them into the previous summary, and renders within `maxTokens`, keeping the highest-priority items.
 * `instructions` (a manual `/compact <focus>`) have nothing to steer here and are ignored.
 */
export function createExtractiveSummarizer(options: ExtractiveSummarizerOptions = {}): Summarizer {
  const maxItems = options.maxItemsPerSection ?? DEFAULT_MAX_ITEMS_PER_SECTION;
  return {
    name: EXTRACTIVE_SUMMARIZER_NAME,
    usesModel: false,
    async summarize(input: SummarizeInput): Promise<Summary> {
      input.signal?.throwIfAborted();
      const started = performance.now();
      const summary = summarizeExtractively(input, maxItems);
      // No model: what it read and wrote, counted (what a model would have been billed for the same).
      input.onReport?.(
        countedReport(EXTRACTIVE_SUMMARIZER_NAME, input, summary, performance.now() - started),
      );
      return summary;
    },
  };
}

/** The extractive summary, synchronously (the replay and the drop layer's reminder can use it directly). */
export function summarizeExtractively(
  input: SummarizeInput,
  maxItems = DEFAULT_MAX_ITEMS_PER_SECTION,
): Summary {
  const current = extractSections(input.messages, {
    toolResultMaxChars: input.toolResultMaxChars,
    maxItemsPerSection: maxItems,
  });
  const merged = mergeSections(sectionsFrom(input.previous?.sections), current, maxItems);
  const header = input.historyRef ? { historyRef: input.historyRef } : {};
  const fitted = fitSummary({
    sections: merged,
    order: orderByPriority(merged),
    header,
    maxTokens: input.maxTokens,
    countTokens: input.countTokens,
  });
  return {
    text: fitted.text,
    sections: fitted.sections,
    throughSeq: input.throughSeq,
    tokens: fitted.tokens,
    ...(input.historyRef ? { historyRef: input.historyRef } : {}),
    producer: EXTRACTIVE_SUMMARIZER_NAME,
  };
}
