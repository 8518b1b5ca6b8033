import type { BudgetRegions } from './budget/context-budget.ts';
import type { EditReason, LayerName } from './edit.ts';
import type { Usage } from './message.ts';
import type { EmergencyStep } from './policy/policy-schema.ts';
import type { SummaryReport } from './summary-report.ts';

/** Why an appended tool result is not shown to the model (see the `tool-result-hidden` event). */
export type ToolResultHiddenReason = 'no-call' | 'already-answered' | 'call-closed';

/** Everything the manager did, as typed events named noun-verb (docs/ARCHITECTURE.md, Records). JSON-safe. */
export type ContextEvent =
  | {
      type: 'compaction-started';
      sessionId: string;
      at: number;
      reason: EditReason;
      layer: LayerName;
      tokensBefore: number;
      messagesBefore: number;
    }
  | {
      type: 'compaction-finished';
      sessionId: string;
      at: number;
      reason: EditReason;
      layer: LayerName;
      tokensBefore: number;
      tokensAfter: number;
      messagesBefore: number;
      messagesAfter: number;
      editIds: string[];
      error?: string;
    }
  | {
      type: 'tool-output-normalized';
      sessionId: string;
      at: number;
      seq: number;
      charsBefore: number;
      charsAfter: number;
    }
  | {
      type: 'tool-output-spilled';
      sessionId: string;
      at: number;
      seq: number;
      blobRef: string;
      sha256: string;
      bytes: number;
    }
  | { type: 'tool-results-cleared'; sessionId: string; at: number; count: number; tokensFreed: number }
  | {
      /**
       * An index the policy shows (the skills or the memory index) could not be read for this call: the
       * request was prepared without it. `code` is the failure's (`EACCES`, `invalid_memory_path`, …).
       */
      type: 'index-unavailable';
      sessionId: string;
      at: number;
      index: 'skills' | 'memory';
      code: string;
      message: string;
    }
  | ({
      /**
       * The proactive check before a call (picoclaw's isOverContextBudget: message_tokens + tool_def_tokens
       * + MaxTokens > ContextWindow), on every call whether or not anything is then compacted: the regions
       * it added up and whether the request was `over`. Only for policies with `budget.proactiveCheck`.
       */
      type: 'budget-checked';
      sessionId: string;
      at: number;
      over: boolean;
    } & BudgetRegions)
  | {
      /**
       * An appended tool result the view leaves out, because providers reject a result that answers no
       * open call: `no-call` (no call with its id before it), `already-answered` (its call has a result
       * already), `call-closed` (its call's block ended, answered by a stand-in, before it came). It stays
       * in the log.
       */
      type: 'tool-result-hidden';
      sessionId: string;
      at: number;
      seq: number;
      callId: string;
      reason: ToolResultHiddenReason;
    }
  | { type: 'model-usage'; sessionId: string; at: number; usage: Usage; model?: string }
  | {
      type: 'context-overflowed';
      sessionId: string;
      at: number;
      /** Which overflow in a row since the last reported usage this is, windows adopted included. */
      attempt: number;
      error: string;
      retry: boolean;
      /** The window the error named, adopted for the model from now on (no emergency step ran). */
      adoptedWindow?: number;
    }
  | {
      /**
       * Emergency compaction asked for from outside (`emergencyCompact`; digitorn's session-compact
       * endpoint), the on-demand counterpart of `context-overflowed`: the emergency steps that ran, in
       * order, and what they freed. No model is called.
       */
      type: 'emergency-compacted';
      sessionId: string;
      at: number;
      steps: EmergencyStep[];
      compacted: boolean;
      tokensBefore: number;
      tokensAfter: number;
      messagesBefore: number;
      messagesAfter: number;
    }
  | {
      type: 'history-diverged';
      sessionId: string;
      at: number;
      keptThroughSeq: number;
      hidden: number;
      added: number;
    }
  | { type: 'summary-scheduled'; sessionId: string; at: number; throughSeq: number }
  | { type: 'summary-applied'; sessionId: string; at: number; throughSeq: number; tokens: number }
  | ({
      /** One summarizer call (its `SummaryReport`), for counting and pricing summaries. */
      type: 'summary-generated';
      sessionId: string;
      at: number;
      reason: EditReason;
      layer: LayerName;
    } & SummaryReport)
  | { type: 'session-restored'; sessionId: string; at: number; messages: number; edits: number };

export type ContextEventType = ContextEvent['type'];
export type ContextEventListener = (event: ContextEvent) => void;
