import { type Edit, isPrefixEdit } from '../core/edit.ts';
import { CtxkitError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message, Transcript } from '../core/message.ts';
import type { Policy } from '../core/policy/policy-schema.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { projectView } from '../core/view/project-view.ts';
import type { PrepareRequest } from '../engine/call-context.ts';
import { type ContextManagerOptions, createContextManager } from '../engine/context-manager.ts';
import type { Summarizer } from '../summarize/summarizer.ts';
import { appendThenAfterTurn } from './append-then-after-turn.ts';
import { countingSummarizer } from './counting-summarizer.ts';
import { collectPointers, requestText } from './locate-facts.ts';
import type { FinalMemory, ReplayedRequest, ReplayThresholds } from './replay-types.ts';

/**
 * How summaries are made in a replay. `policy`: as the manager would choose offline (the extractive
 * summarizer, no model calls), except that a policy naming a summary model gets the extractive text in
 * its place and each call counts as a model call. `model`: every summary counts as a model call, as in
 * an agent whose own model writes them.
 */
export type ReplaySummaries = 'policy' | 'model';

export interface CtxkitReplayOptions {
  contextWindow: number;
  maxOutputTokens: number;
  model?: string;
  /** Default: the transcript's system prompts joined by a blank line. */
  system?: string;
  /** Tool definitions sent on every call (transcripts do not record them). Default none. */
  tools?: ToolDefinition[];
  summaries?: ReplaySummaries;
  /** Replaces the summarizer (tests); counted like the default one. */
  summarizer?: Summarizer;
  /** Called after each model call is prepared, with its number and the number of calls in all. */
  onCall?: (call: number, calls: number) => void;
  /** Where the replayed session is kept (default: memory). The CLI passes the embedded SQLite stores. */
  stores?: Pick<ContextManagerOptions, 'store' | 'blobs' | 'memory' | 'trace'>;
  /** The replayed session's id in those stores (default `replay`); unique per run on a shared store. */
  sessionId?: string;
}

export interface CtxkitReplay {
  requests: ReplayedRequest[];
  finalMemory: FinalMemory;
}

/** Epoch the replay's clock starts at when messages carry no time: deterministic ids and edits. */
export const REPLAY_CLOCK_START = Date.UTC(2025, 0, 1);
/** How far the replay's clock moves per model call when messages carry no time. */
export const REPLAY_CALL_SPACING_MS = 30_000;

const DEFAULT_sessionId = 'replay';

/** Counted as compactions: edits that rewrite the conversation's prefix, and compress-text. */
const isCompaction = (edit: Edit): boolean => isPrefixEdit(edit) || edit.type === 'compress-text';

/**
 * Replays a recorded session through a ContextManager (memory stores) as the agent lived it: before
 * each recorded assistant message, append what came since and prepare the call. `afterTurn` runs where
 * the library guide (docs/library.md) tells an agent to call it: once the previous call's reply and its tool results are
 * appended, before the user's next message (see `appendThenAfterTurn`); a background summary is
 * awaited there, so a replay is deterministic. Each request's `timeMs` is the manager's own work since
 * the previous request: append, afterTurn and prepare.
 */
export async function replayWithCtxkit(
  transcript: Transcript,
  policy: Policy,
  options: CtxkitReplayOptions,
): Promise<CtxkitReplay> {
  let now = REPLAY_CLOCK_START;
  const standIn = options.summaries === 'model' || policy.summarize.model !== undefined;
  const summarizer = countingSummarizer({
    ...(options.summarizer ? { inner: options.summarizer } : {}),
    ...(standIn ? { usesModel: true } : {}),
  });
  const manager = createContextManager({
    policy: options.model !== undefined ? { ...policy, model: options.model } : policy,
    summarizer,
    clock: () => now,
    ...options.stores,
  });
  const sessionId = options.sessionId ?? DEFAULT_sessionId;
  const events: ContextEvent[] = [];
  manager.on((event) => events.push(event));

  const system = options.system ?? transcript.system.join('\n\n');
  const tools = options.tools ?? [];
  const prepareRequest = {
    system,
    tools,
    contextWindow: options.contextWindow,
    maxOutputTokens: options.maxOutputTokens,
    ...(options.model !== undefined ? { model: options.model } : {}),
  };
  const messages = transcript.messages;
  const callIndices = messages.flatMap((message, index) =>
    message.role === 'assistant' && index > 0 ? [index] : [],
  );

  const requests: ReplayedRequest[] = [];
  let thresholds: ReplayThresholds | undefined;
  let finalMemory: FinalMemory = { summary: '', pointers: [] };
  let from = 0;
  let spent = 0;
  let summaryCallsBefore = 0;
  let editsBefore = 0;
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      spent += performance.now() - started;
    }
  };

  for (const [call, index] of callIndices.entries()) {
    const appended = messages.slice(from, index);
    from = index;
    now = Math.max(now + REPLAY_CALL_SPACING_MS, latestTime(appended) ?? 0);
    await timed(() => appendThenAfterTurn(manager, sessionId, appended, call > 0));
    // Once, untimed: they depend on the policy and the window only.
    thresholds ??= await thresholdsOf(manager, prepareRequest, sessionId);
    let request: ReplayedRequest;
    try {
      const prepared = await timed(() => manager.prepare(sessionId, prepareRequest));
      request = {
        messageIndex: index,
        system: prepared.system,
        messages: prepared.messages,
        tools,
        maxOutputTokens: prepared.stats.maxOutputTokens,
        timeMs: 0,
        summaryCalls: 0,
        ...(prepared.stats.guard ? { guardRounds: prepared.stats.guard.rounds } : {}),
        categories: {
          system: prepared.stats.tokens.system,
          tools: prepared.stats.tokens.tools,
          summary: prepared.stats.tokens.summary,
          history: prepared.stats.tokens.history,
        },
      };
    } catch (error) {
      if (!CtxkitError.isInstance(error)) throw error;
      request = {
        messageIndex: index,
        system,
        messages: [],
        tools,
        maxOutputTokens: options.maxOutputTokens,
        timeMs: 0,
        summaryCalls: 0,
        error: `${error.code}: ${error.message}`,
      };
    }
    const { log, edits } = await manager.history(sessionId);
    const fresh = edits.slice(editsBefore);
    editsBefore = edits.length;
    request.timeMs = spent;
    request.summaryCalls = summarizer.usesModel ? summarizer.calls - summaryCallsBefore : 0;
    request.events = events.splice(0);
    request.edits = fresh.length;
    request.compactions = fresh.filter(isCompaction).length;
    if (thresholds) request.thresholds = thresholds;
    requests.push(request);
    summaryCallsBefore = summarizer.calls;
    spent = 0;
    options.onCall?.(call + 1, callIndices.length);

    if (call === callIndices.length - 1) {
      finalMemory = await memoryAtEnd(
        manager,
        request,
        projectView(log, edits).summary?.text ?? '',
        sessionId,
      );
      break;
    }
  }
  return { requests, finalMemory };
}

let warmedUp = false;

/**
 * Runs a tiny session once per process before the timed replays, so the first measured call does not
 * pay one-time costs (tokenizer tables, module initialization, JIT) that a long-running agent pays once.
 */
export async function warmUpReplay(policy: Policy): Promise<void> {
  if (warmedUp) return;
  warmedUp = true;
  const call = { type: 'tool-call' as const, callId: 'w1', name: 'bash', args: '{"command":"ls"}' };
  const messages: Message[] = [
    { id: 'w0', seq: 0, role: 'user', parts: [{ type: 'text', text: 'warm up' }], meta: {} },
    { id: 'w1', seq: 1, role: 'assistant', parts: [call], meta: {} },
    {
      id: 'w2',
      seq: 2,
      role: 'tool',
      parts: [
        { type: 'tool-result', callId: 'w1', name: 'bash', content: 'src\npackage.json', isError: false },
      ],
      meta: {},
    },
    { id: 'w3', seq: 3, role: 'assistant', parts: [{ type: 'text', text: 'done' }], meta: {} },
  ];
  await replayWithCtxkit({ system: ['warm up'], messages }, policy, {
    contextWindow: 8_000,
    maxOutputTokens: 1_000,
  });
}

/** Where the manager clears and summarizes at this window, in input tokens (none if it cannot tell). */
async function thresholdsOf(
  manager: ReturnType<typeof createContextManager>,
  request: PrepareRequest,
  sessionId: string,
): Promise<ReplayThresholds | undefined> {
  try {
    const { clearing, summarize } = (await manager.stats(sessionId, request)).thresholds;
    return {
      ...(clearing ? { clearing: clearing.tokens } : {}),
      ...(summarize ? { summarize: summarize.tokens } : {}),
    };
  } catch (error) {
    if (CtxkitError.isInstance(error)) return undefined;
    throw error;
  }
}

function latestTime(messages: readonly Message[]): number | undefined {
  let latest: number | undefined;
  for (const message of messages) {
    const at = message.meta.createdAt;
    if (at !== undefined && Number.isFinite(at)) latest = Math.max(latest ?? at, at);
  }
  return latest;
}

async function memoryAtEnd(
  manager: ReturnType<typeof createContextManager>,
  final: ReplayedRequest,
  summary: string,
  sessionId: string,
): Promise<FinalMemory> {
  const refs = (await manager.blobs.list(sessionId)).map((blob) => blob.ref);
  // Every blob is readable by its ref (the recovery bill asks which ones each request names).
  const readable: { ref: string; content: string }[] = [];
  for (const ref of refs) {
    try {
      readable.push({ ref, content: await manager.readOffloaded(sessionId, ref) });
    } catch {
      // Listed but unreadable (deleted, corrupt): no read tool could fetch it either.
    }
  }
  const contents = new Map(readable.map((blob) => [blob.ref, blob.content]));
  const pointers = await collectPointers([requestText(final), summary], refs, async (ref) => {
    const content = contents.get(ref);
    if (content === undefined) throw new Error(`unreadable ${ref}`);
    return content;
  });
  return { summary, pointers, readable };
}
