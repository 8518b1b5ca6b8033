import type { EditReason } from '../core/edit.ts';
import type { ContextEvent } from '../core/events.ts';
import type { MemorySink } from '../core/memory-sink.ts';
import type { Message } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { SkillSource } from '../core/skills/skill-source.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import type { ModelClient } from '../providers/model-client.ts';
import type { BlobStore } from '../store/blob-store.ts';
import type { SessionStore } from '../store/session-store.ts';
import type { TraceStore } from '../store/trace-store.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import type { PrepareRequest } from './call-context.ts';
import type { PrepareResult } from './prepare-call.ts';

export interface ContextManagerOptions {
  policy: Policy;
  /**
   * The model's context window in tokens, overriding the policy's `budget.contextWindow` (so callers need
   * not spread the nested policy). A positive integer; `InvalidPolicyError` otherwise.
   */
  contextWindow?: number;
  /**
   * Tokens reserved for the reply, overriding the policy's `budget.maxOutputTokens`. A positive integer
   * below the context window (this option's or the policy's); `InvalidPolicyError` otherwise.
   */
  maxOutputTokens?: number;
  /** Fixes the token counter for every call; unset = chosen per model from the policy (`tokens.counter`). */
  counter?: TokenCounter;
  /**
   * Default: a model summarizer for `summarize.model` (digitorn's summary_brain) when the policy sets
   * one, else for `model` below, else the extractive summarizer (offline, deterministic).
   */
  summarizer?: Summarizer;
  /** The agent's own model, used for model-backed summaries when the policy names no summary model. */
  model?: { client: ModelClient; name: string };
  /** Where API keys named by the policy are read (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  fetch?: typeof fetch;
  store?: SessionStore;
  /**
   * Several processes serve these sessions from one store, each holding a session while it works on it
   * (ctxkit serve's fleet). A summary a call starts in the background is then finished and applied within
   * that call: the process may not hold the session at its next call, and nothing of a session may live in
   * one process's memory alone. Default false.
   */
  sharedStore?: boolean;
  blobs?: BlobStore;
  /**
   * Where summaries of trimmed turns and cleared context go (cowagent's daily memory file). A sink that
   * keeps an index (`createFileMemorySink`) also puts MEMORY.md in every request (policy
   * `indexes.memory`); `readMemory` reads a note.
   */
  memory?: MemorySink;
  /**
   * The agent's skills (`createFsSkillSource`, `createMemorySkillSource`): every skill's name and
   * description enters every request (policy `indexes.skills`), a skill's body only when the agent reads
   * it (deepagents's progressive disclosure; the `read_skill` tool over `manager.skills`).
   */
  skills?: SkillSource;
  /** Epoch ms; passed in so tests and replays control time. */
  clock?: () => number;
  /**
   * Where every event is recorded for people and scorers (model usage, compactions, session events):
   * append-only, never fed back to the model. `flushTrace()` waits for what is queued.
   */
  trace?: TraceStore;
}

export interface AppendResult {
  messages: Message[];
  events: ContextEvent[];
}

export interface SyncOptions {
  /**
   * The content ids of `history` as `assignStableIds` gives them, when the caller has computed them
   * already (the proxy does, to recognize the conversation): not computed a second time. They must be
   * exactly those ids; a wrong one makes the history look edited.
   */
  contentIds?: readonly string[];
}

export interface SyncResult extends AppendResult {
  diverged: boolean;
}

export interface CompactOptions {
  strategy?: 'summarize' | 'drop';
  instructions?: string;
  reason?: EditReason;
}

export interface AfterTurnOptions {
  /**
   * Whether the turn ended, when the caller knows it and the log does not show it yet: a reply that
   * called no tool, to be logged later (a proxy logs a reply with the client's next request). By
   * default the log tells: it ends a turn with a reply that calls no tool.
   */
  turnEnded?: boolean;
}

export interface AfterTurnResult {
  /**
   * Whether the log stands between turns: its last message is a reply without tool calls (or the user's
   * next message). Only then does the compaction due at a turn's end start; between the calls of one
   * turn only the cheap layers run.
   */
  turnEnded: boolean;
  /** True when a background summarization was started. */
  scheduled: boolean;
  /** Resolves when that summarization has finished (its result is used from the next prepare on). */
  done: Promise<void>;
  events: ContextEvent[];
}

export interface RecoverResult {
  /** Whether to send the call again: the next `prepare` comes out smaller than what overflowed. */
  retry: boolean;
  /** The window the error named, adopted for the model from now on (the next `prepare` uses it). */
  adoptedWindow?: number;
  /** The policy's last resort cleared the whole context (cowagent): nothing is resent this turn. */
  cleared: boolean;
  events: ContextEvent[];
}

/**
 * The request to prepare the retry after an overflow with, given the window the error named when it was
 * adopted and the session's policy: undefined when the caller cannot send a retry (its own reply reserve
 * does not fit that window). Called while the session is held: it must not call the manager for the
 * same session.
 */
export type RetryRequestFor = (retry: {
  adoptedWindow: number | undefined;
  policy: Policy;
}) => PrepareRequest | undefined | Promise<PrepareRequest | undefined>;

/** After an overflow: the request to send instead, or none when the provider's error stands. */
export interface OverflowRetry {
  /** Whether the error was a context overflow at all (anything else is the caller's to pass on). */
  overflow: boolean;
  /** The request prepared again, smaller than the one that overflowed; undefined: pass the error on. */
  retry: PrepareResult | undefined;
  /** The window the error named, adopted for the model from now on. */
  adoptedWindow?: number;
  /** The policy's last resort cleared the whole context (cowagent): the turn ends with the error. */
  cleared: boolean;
  /** What recovery and the new `prepare` emitted, in order. */
  events: ContextEvent[];
}
