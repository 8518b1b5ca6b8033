import type { Summary } from '../core/edit.ts';
import type { Message } from '../core/message.ts';
import type { SummaryReport } from '../core/summary-report.ts';

/**
 * The sections every summary fills, in this order (docs/ARCHITECTURE.md: intent, decisions, files, errors, plan, next).
 * `facts` is digitorn's "key facts": what the agent learned (ids, values, constraints) that belongs to no
 * other section; the model-backed summarizer fills it, the extractive one only carries it over.
 */
export const SUMMARY_SECTIONS = [
  'intent',
  'requests',
  'decisions',
  'facts',
  'files',
  'commands',
  'errors',
  'plan',
  'state',
  'next',
] as const;

export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

export interface SummarizeInput {
  /** The agent-visible messages being summarized, oldest first (already projected: edits applied). */
  messages: Message[];
  /** The summary these messages continue from, to merge (not re-summarize). */
  previous?: Summary;
  /** Log seq of the newest message covered by the new summary. */
  throughSeq: number;
  /** Hard cap on the summary, in tokens of `countTokens`. */
  maxTokens: number;
  /** Tool results are cut to this many characters (runes) in the summarizer's input (tiancai: 1,800). */
  toolResultMaxChars: number;
  /** Extra instructions from a manual `/compact <instructions>`. */
  instructions?: string;
  /** Where the summarized transcript was offloaded, to name in the summary (deepagents). */
  historyRef?: string;
  /** The token counter of the session, as a function: summarizers stay independent of counter types. */
  countTokens: (text: string) => number;
  signal?: AbortSignal;
  /**
   * Told once per summarizer call (a model summarizer's fallback is a call of its own), with its tokens:
   * the provider's usage for a model call, counted with `countTokens` otherwise. The engine turns each
   * report into a `summary-generated` event.
   */
  onReport?: (report: SummaryReport) => void;
}

export interface Summarizer {
  /** `extractive`, or `model:<name>`: recorded as the summary's producer. */
  readonly name: string;
  /** Whether a call costs a model request (replay counts those). */
  readonly usesModel: boolean;
  summarize(input: SummarizeInput): Promise<Summary>;
}
