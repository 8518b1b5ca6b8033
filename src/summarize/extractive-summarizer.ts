import type { Summary } from '../core/edit.ts';
import { WorkSlices } from '../core/work-slices.ts';
import { type ExtractOptions, extractSections, extractSectionsInSlices } from './extract-sections.ts';
import { fitSummary, orderByPriority } from './fit-summary.ts';
import { mergeSections } from './merge-sections.ts';
import type { SummarizeInput, Summarizer } from './summarizer.ts';
import { countedReportInSlices } from './summary-report.ts';
import { DEFAULT_MAX_ITEMS_PER_SECTION, type SummarySections, sectionsFrom } from './summary-sections.ts';

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
      // In slices: the messages dropped from a client's history of hundreds of thousands are all read.
      const slices = new WorkSlices();
      const current = await extractSectionsInSlices(input.messages, extractOptions(input, maxItems), slices);
      const summary = summaryOf(input, current, maxItems);
      // No model: what it read and wrote, counted (what a model would have been billed for the same).
      if (input.onReport)
        input.onReport(
          await countedReportInSlices(
            EXTRACTIVE_SUMMARIZER_NAME,
            input,
            summary,
            performance.now() - started,
            slices,
          ),
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
  return summaryOf(input, extractSections(input.messages, extractOptions(input, maxItems)), maxItems);
}

function extractOptions(input: SummarizeInput, maxItems: number): ExtractOptions {
  return { toolResultMaxChars: input.toolResultMaxChars, maxItemsPerSection: maxItems };
}

/** The summary from the sections read out of the messages: merged into the previous one, fitted. */
function summaryOf(input: SummarizeInput, current: SummarySections, maxItems: number): Summary {
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
