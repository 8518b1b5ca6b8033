import type { Usage } from './message.ts';

/** One summarizer call, for counting and pricing summaries. JSON-safe. */
export interface SummaryReport {
  /** The summarizer's `name`: `extractive`, `model:<name>`. */
  summarizer: string;
  /** The model asked (model summarizers), as the provider named it when it answered. */
  model?: string;
  /** What the call read: the provider's prompt tokens, or the counted input (messages and previous summary). */
  inputTokens: number;
  /** What it wrote: the provider's completion tokens, or the counted summary. */
  outputTokens: number;
  /** `provider`: the provider's reported usage; `counted`: the session's token counter. */
  tokenSource: 'provider' | 'counted';
  /** The provider's whole usage (cache reads and writes, reasoning), when it reported one. */
  usage?: Usage;
  durationMs: number;
  /** The newest log seq the summary was to cover. */
  throughSeq: number;
  /** Set when the call failed (no summary came of it; tokens are what the provider billed, if it said). */
  error?: string;
}
