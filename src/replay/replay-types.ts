import type { EditReason, LayerName } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message } from '../core/message.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';

/**
 * The contract between whatever replays a recorded session (ctxkit under a policy, or a peer system:
 * LangChain, deepagents, the AI SDK) and the metrics that score it. A replayer produces, for every
 * recorded assistant message, the request that system would have sent the model right before it; the
 * metrics compare those requests with each other and with the session.
 */
export interface ReplayedRequest {
  /** Index, in the recorded session's messages, of the assistant message this call produced. */
  messageIndex: number;
  /** The system prompt as sent (summaries placed in it included). */
  system: string;
  /** The messages as sent, converted to ctxkit's model. */
  messages: Message[];
  tools: ToolDefinition[];
  /** Tokens reserved for the reply on this call. */
  maxOutputTokens: number;
  /** Wall time spent inside the system under test to produce this request (not the model's). */
  timeMs: number;
  /** Model calls the system made for itself before this call (summaries, digests). */
  summaryCalls: number;
  /** ctxkit only: what the manager did while preparing this call. */
  events?: ContextEvent[];
  /** ctxkit only: tokens by category as the manager counted them. */
  categories?: TokenCategories;
  /** ctxkit only: where clearing and summarization fire on this call, in input tokens. */
  thresholds?: ReplayThresholds;
  /**
   * Edits the system applied to its view since the previous call (ctxkit: every edit committed by
   * append, afterTurn and prepare). Absent: 0.
   */
  edits?: number;
  /**
   * Compactions since the previous call: rewrites of the conversation's prefix (a summary, a drop, a
   * reset, trimmed turns). Absent: counted from `events` (`compaction-finished` of those layers), else 0.
   */
  compactions?: number;
  /** ctxkit only: rounds of fitting the final guard ran because the request as sent did not fit (0: none). */
  guardRounds?: number;
  /**
   * Set when the system refused to produce this request (it threw, e.g. ctxkit's ContextBudgetError):
   * `messages` is then empty and the call counts as an overflow (the agent could not have made it).
   */
  error?: string;
}

/** Tokens of a request by category: the system prompt, tool definitions, the summary, the conversation. */
export interface TokenCategories {
  system: number;
  tools: number;
  summary: number;
  history: number;
}

/** Input tokens at which a policy clears old tool results and summarizes (absent: it never does). */
export interface ReplayThresholds {
  clearing?: number;
  summarize?: number;
}

/** A compaction layer that edited the view before a call (from a `compaction-finished` event). */
export interface CallEvent {
  layer: LayerName;
  reason: EditReason;
  /** Agent-visible history tokens before and after, as the system estimated them. */
  tokensBefore: number;
  tokensAfter: number;
  error?: string;
}

/** Where a fact of the session can still be found at the end. */
export type FactPlace = 'view' | 'summary' | 'pointer' | 'lost';

export type FactKind = 'path' | 'command' | 'error' | 'request';

export interface SessionFact {
  kind: FactKind;
  /** The fact as extracted (a path, a command line, an error line, a request's text). */
  text: string;
  /** Index of the message it was extracted from. */
  messageIndex: number;
}

/**
 * What the agent still has access to when the session ends, besides the last request: the summary text
 * (if the system keeps one apart) and contents behind pointers it can follow (offloaded blobs, transcripts).
 */
export interface FinalMemory {
  summary: string;
  /** Content the agent can read back through a pointer present in the final view or summary. */
  pointers: { ref: string; content: string }[];
  /**
   * Everything the system's own read tool can fetch by ref at the end (ctxkit's blobs, deepagents' files),
   * named or not: the recovery bill counts a blob as pointed to at a call when that call's request names
   * its ref. Absent: nothing can be read back, every missing need is re-run.
   */
  readable?: { ref: string; content: string }[];
}

export interface CallMetrics {
  call: number;
  messageIndex: number;
  /** Exact tokens of the whole request (system + tools + messages) with the metrics' tokenizer. */
  inputTokens: number;
  /** inputTokens / (window − maxOutputTokens). */
  pressure: number;
  /** Leading tokens identical to the previous call's request: what a prompt cache would reuse. */
  sharedPrefixTokens: number;
  /** Input tokens billed at list price, and with prompt-cache pricing (reads × read price, writes × write price). */
  billed: number;
  billedWithCache: number;
  overflow: boolean;
  /** Tool calls without results and results without calls in this request (must be 0). */
  orphans: number;
  edits: number;
  compactions: number;
  summaryCalls: number;
  timeMs: number;
  /**
   * `inputTokens` by category (they sum to it). ctxkit: its own split, scaled to the measured total;
   * others: the system prompt and tool definitions as measured, the rest history.
   */
  categories?: TokenCategories;
  /** What edited the view since the previous call (`compaction-finished` events with edits), in order. */
  events?: CallEvent[];
  /**
   * Working-set coverage (replay/working-set.ts): (result, token) pairs the recorded agent used here that
   * only an earlier result told it, how many the request holds, and the results it would read back.
   */
  workingSet?: { needed: number; seen: number; readBacks: number };
  /** What those read-backs cost, in list-price input tokens (one round trip each). */
  readBackBill?: number;
  /** Read-backs that could not be sent: the request with the content would not fit the window. */
  oversizedReadBacks?: number;
  /**
   * The recovery bill's round trips (replay/recovery-bill.ts): read-backs of pointed-to blobs sized as
   * the read tool answers, re-runs of forgotten results, the tokens each brings in, and their cost.
   */
  recovery?: { readBacks: number; reRuns: number; readBackTokens: number; reRunTokens: number; cost: number };
}

export interface RetentionSummary {
  total: number;
  kept: number;
  /** kept / total (1 when there are no facts). */
  share: number;
  byPlace: Record<FactPlace, number>;
  byKind: Record<FactKind, { total: number; kept: number }>;
  /** The facts counted lost, oldest first, at most {@link MAX_LOST_FACTS_LISTED} (for reports). */
  lost?: SessionFact[];
}

export const MAX_LOST_FACTS_LISTED = 100;

export interface SessionReplay {
  session: string;
  /** `ctxkit:<policy>` or the peer's name. */
  system: string;
  contextWindow: number;
  maxOutputTokens: number;
  /** ctxkit only: where the policy clears and summarizes, in input tokens. */
  thresholds?: ReplayThresholds;
  calls: CallMetrics[];
  totals: {
    calls: number;
    inputTokens: number;
    billed: number;
    billedWithCache: number;
    /** Working-set pairs needed and seen over all calls (coverage = seen ÷ needed). */
    workingSetNeeded: number;
    workingSetSeen: number;
    readBacks: number;
    oversizedReadBacks: number;
    readBackBill: number;
    /** billedWithCache plus the read-backs: what the agent pays to see what it needed. */
    effectiveBill: number;
    /** Recovery round trips over all calls: read-backs of pointed-to blobs and tool re-runs. */
    recoveryReadBacks: number;
    recoveryReRuns: number;
    /** What they cost, in list-price input tokens. */
    recoveryCost: number;
    /**
     * billedWithCache plus the recovery round trips: what forgetting costs priced in, a pointer worth only
     * what reading it back costs and a forgotten result a tool run again.
     */
    recoveryBill: number;
    /**
     * Anthropic's prompt cache priced by its rules, per marking (`none`, `end`, `ctxkit`), when the
     * replay asked for it (see `ReplayMetricsOptions.anthropicCache`).
     */
    anthropicBills?: { none?: number; end?: number; ctxkit?: number };
    overflows: number;
    orphans: number;
    compactions: number;
    summaryCalls: number;
    timeMsP50: number;
    timeMsP99: number;
  };
  retention: RetentionSummary;
}

/** Prompt-cache prices relative to the list input price (settable). */
export interface CachePricing {
  readMultiplier: number;
  writeMultiplier: number;
}

export const DEFAULT_CACHE_PRICING: CachePricing = { readMultiplier: 0.1, writeMultiplier: 1.25 };
