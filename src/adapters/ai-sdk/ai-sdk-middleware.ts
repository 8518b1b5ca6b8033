/**
 * `ctxkitMiddleware`: a language model middleware for the Vercel AI SDK (`wrapLanguageModel`). Every call
 * of the wrapped model goes through a ctxkit session:
 *
 * 1. the prompt the AI SDK built (it resends the whole history on every step) is converted and `sync`ed
 *    into the session, which logs only what is new;
 * 2. `prepare` decides what the model sees (the system prompt and the call's tools counted) and the
 *    prompt is replaced by that view; every other call setting is left as it was;
 * 3. the model's reply is logged with the usage it reported (the estimate of the next call is anchored
 *    on it), from the generate result or the stream's `finish` part;
 * 4. a context overflow the provider reports anyway (thrown, or a stream's error before its first chunk)
 *    is recovered (`recover`), prepared again and retried once.
 *
 * `afterTurn` runs once per model call, after its reply and the results of its tool calls are logged:
 * right after a reply without tool calls, else when the next call brings the results.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Middleware,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  SharedV3Warning,
} from '@ai-sdk/provider';
import { InvalidSessionIdError } from '../../core/errors/index.ts';
import type { MessageInput } from '../../core/message.ts';
import type { ContextManager, PrepareRequest, PrepareResult } from '../../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import { isContextOverflow } from '../../providers/is-context-overflow.ts';
import type { ProviderOptions } from './ai-sdk-meta.ts';
import { fromAiSdkPrompt, toAiSdkPrompt } from './ai-sdk-prompt.ts';
import { fromAiSdkResponse, StreamResponseRecorder } from './ai-sdk-response.ts';
import { toolDefinitionsFromAiSdk } from './ai-sdk-tool-definitions.ts';

/** The provider-options key ctxkit reads per call: `providerOptions: { ctxkit: { sessionId } }`. */
export const CTXKIT_PROVIDER_OPTIONS_KEY = 'ctxkit';

/** How a call finds its session: a fixed id, or one read from the call (undefined: not found). */
export type SessionIdOption = string | ((params: LanguageModelV3CallOptions) => string | undefined);

export interface CtxkitMiddlewareOptions {
  manager: ContextManager;
  /**
   * The session every call of the wrapped model belongs to: an id (wrap the model per conversation, as
   * an AI SDK route handler does per request), or a function of the call's settings. Unset: each call's
   * `providerOptions.ctxkit.sessionId` (see {@link sessionIdFromProviderOptions}); a call without one
   * throws `InvalidSessionIdError`.
   */
  sessionId?: SessionIdOption;
  /**
   * The model name ctxkit resolves the window and the tokenizer from. Unset: the wrapped model's
   * `modelId`. Set it when that id is not a model name ctxkit knows (a deployment name, a proxy's alias).
   */
  model?: string;
  /** The model's context window in tokens; unset: the manager's (its option, the policy, the model profile). */
  contextWindow?: number;
  /** Tokens reserved for the reply when the call sets no `maxOutputTokens`; unset: the manager's. */
  maxOutputTokens?: number;
  /** Run `manager.afterTurn` once per model call (default true): cheap layers and background summaries. */
  afterTurn?: boolean;
  /**
   * Called with every prepared request before it is sent (the first, and the retry after an overflow):
   * its stats, pointers and events. Every event of every session also reaches `manager.on(listener)`.
   */
  onPrepared?: (prepared: PrepareResult, call: CtxkitCallInfo) => void | PromiseLike<void>;
}

export interface CtxkitCallInfo {
  sessionId: string;
  /** The call's settings as the AI SDK made them, before ctxkit replaced the prompt. */
  params: LanguageModelV3CallOptions;
  /** True for the request prepared again after the provider reported an overflow. */
  retry: boolean;
}

/** `providerOptions.ctxkit.sessionId` of a call, when it is a non-empty string. */
export function sessionIdFromProviderOptions(params: LanguageModelV3CallOptions): string | undefined {
  const value = params.providerOptions?.[CTXKIT_PROVIDER_OPTIONS_KEY]?.sessionId;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What a call prepared, kept for its model call (by the params object `transformParams` returned). */
interface PreparedCall {
  sessionId: string;
  request: PrepareRequest;
  systemProviderOptions: ProviderOptions | undefined;
  source: LanguageModelV3CallOptions;
  prepared: PrepareResult;
}

/** Stream parts that come before any content: an error after them is still "before the first chunk". */
const PREAMBLE: ReadonlySet<LanguageModelV3StreamPart['type']> = new Set([
  'stream-start',
  'response-metadata',
  'raw',
]);

export function ctxkitMiddleware(options: CtxkitMiddlewareOptions): LanguageModelV3Middleware {
  const { manager } = options;
  const runAfterTurn = options.afterTurn !== false;
  const calls = new WeakMap<LanguageModelV3CallOptions, PreparedCall>();
  /** Sessions whose last reply made tool calls: `afterTurn` runs once their results are logged. */
  const awaitingResults = new Set<string>();

  const sessionIdOf = (params: LanguageModelV3CallOptions): string => {
    const given = options.sessionId;
    const id = typeof given === 'string' ? given : (given ?? sessionIdFromProviderOptions)(params);
    if (id === undefined)
      throw new InvalidSessionIdError(
        undefined,
        `no session for this call: pass sessionId to ctxkitMiddleware, or providerOptions: { ${CTXKIT_PROVIDER_OPTIONS_KEY}: { sessionId } } to the call`,
      );
    return id;
  };

  const prepare = async (
    call: Omit<PreparedCall, 'prepared'>,
    retry: boolean,
  ): Promise<LanguageModelV3CallOptions> => {
    const prepared = await manager.prepare(call.sessionId, call.request);
    await options.onPrepared?.(prepared, { sessionId: call.sessionId, params: call.source, retry });
    const params: LanguageModelV3CallOptions = {
      ...call.source,
      prompt: toAiSdkPrompt({
        system: prepared.system,
        messages: prepared.messages,
        ...(call.systemProviderOptions !== undefined && {
          systemProviderOptions: call.systemProviderOptions,
        }),
      }),
    };
    calls.set(params, { ...call, prepared });
    return params;
  };

  /** Logs the reply with its usage; then `afterTurn`, now or once its tool calls have results. */
  const record = async (call: PreparedCall, reply: MessageInput | undefined): Promise<void> => {
    if (!reply) return;
    await manager.append(call.sessionId, [reply]);
    if (!runAfterTurn) return;
    if (reply.parts.some((part) => part.type === 'tool-call')) awaitingResults.add(call.sessionId);
    else await manager.afterTurn(call.sessionId);
  };

  /** After an overflow: recover, and the call prepared again when ctxkit says a retry can differ. */
  const recover = async (
    call: PreparedCall,
    error: unknown,
  ): Promise<LanguageModelV3CallOptions | undefined> => {
    const { retry } = await manager.recover(call.sessionId, error);
    return retry ? prepare(call, true) : undefined;
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params, model }) {
      const sessionId = sessionIdOf(params);
      const { system, systemProviderOptions, messages } = fromAiSdkPrompt(params.prompt);
      await manager.sync(sessionId, messages);
      // The last reply's tool results came with this history: its model call is done.
      if (awaitingResults.delete(sessionId)) {
        await manager.afterTurn(sessionId);
      }
      // Always said, so one call's reserve never carries over to the next (prepare remembers the last).
      const maxOutputTokens =
        params.maxOutputTokens ?? options.maxOutputTokens ?? positive(manager.policy.budget.maxOutputTokens);
      const request: PrepareRequest = {
        system,
        tools: toolDefinitionsFromAiSdk(params.tools),
        model: options.model ?? model.modelId,
        ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
        ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      };
      return prepare({ sessionId, request, systemProviderOptions, source: params }, false);
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const call = calls.get(params);
      if (!call) return doGenerate();
      let result: LanguageModelV3GenerateResult;
      let sent = call;
      try {
        result = await doGenerate();
      } catch (error) {
        if (!isContextOverflow(error)) throw error;
        const retried = await recover(call, error);
        if (!retried) throw error;
        sent = calls.get(retried) ?? call;
        try {
          result = await model.doGenerate(retried);
        } catch (again) {
          // Still over after one retry: this call fails as the provider said (the next one is recovered
          // again if it overflows too).
          throw again;
        }
      }
      await record(sent, fromAiSdkResponse(result.content, responseOptions(result, model)));
      const warning = readToolWarning(sent);
      return warning ? { ...result, warnings: [...result.warnings, warning] } : result;
    },

    async wrapStream({ doStream, params, model }) {
      const call = calls.get(params);
      if (!call) return doStream();
      const first = await openStream(doStream);
      if (!('overflow' in first)) return recorded(call, first.result, model);
      const retried = await recover(call, first.overflow);
      if (!retried) throw first.overflow;
      const sent = calls.get(retried) ?? call;
      const second = await openStream(() => model.doStream(retried));
      if ('overflow' in second) throw second.overflow;
      return recorded(sent, second.result, model);
    },
  };

  /** The stream as the caller reads it; its reply is logged when its `finish` part passes. */
  function recorded(
    call: PreparedCall,
    result: LanguageModelV3StreamResult,
    model: LanguageModelV3,
  ): LanguageModelV3StreamResult {
    const recorder = new StreamResponseRecorder();
    const warning = readToolWarning(call);
    let logged: Promise<void> | undefined;
    const stream = result.stream.pipeThrough(
      new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
        transform(part, controller) {
          recorder.record(part);
          if (part.type === 'stream-start' && warning) {
            controller.enqueue({ ...part, warnings: [...part.warnings, warning] });
            return;
          }
          if (part.type === 'finish' && !logged) {
            // Started before the caller sees `finish`, so the next step's sync comes after it.
            logged = record(call, recorder.message(model.modelId));
            // Awaited in flush; a reader that stops early must not leave it unhandled.
            logged.catch(() => undefined);
          }
          controller.enqueue(part);
        },
        async flush() {
          await logged;
        },
      }),
    );
    return { ...result, stream };
  }
}

const positive = (value: number): number | undefined => (value > 0 ? value : undefined);

function responseOptions(result: LanguageModelV3GenerateResult, model: LanguageModelV3) {
  return { usage: result.usage, model: result.response?.modelId ?? model.modelId };
}

/** A warning when the request points at offloaded content and the call offers no tool to read it. */
function readToolWarning(call: PreparedCall): SharedV3Warning | undefined {
  const pointers = call.prepared.pointers.length;
  if (pointers === 0 || call.source.tools?.some((tool) => tool.name === READ_OFFLOADED_TOOL))
    return undefined;
  return {
    type: 'other',
    message: `ctxkit: the request points at ${pointers} offloaded item(s) but the call has no ${READ_OFFLOADED_TOOL} tool; add ctxkitTools({ manager, sessionId }) to the call's tools so the model can read them back`,
  };
}

type Opened = { result: LanguageModelV3StreamResult } | { overflow: unknown };

/**
 * Starts a stream and reads it up to its first chunk of content: an overflow thrown by the call, or sent
 * as an error part before any content, is returned to be recovered; otherwise the stream as it came.
 */
async function openStream(start: () => PromiseLike<LanguageModelV3StreamResult>): Promise<Opened> {
  let result: LanguageModelV3StreamResult;
  try {
    result = await start();
  } catch (error) {
    if (isContextOverflow(error)) return { overflow: error };
    throw error;
  }
  const reader = result.stream.getReader();
  const head: LanguageModelV3StreamPart[] = [];
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      const part = next.value;
      if (part.type === 'error' && isContextOverflow(part.error)) {
        await reader.cancel().catch(() => undefined);
        return { overflow: part.error };
      }
      head.push(part);
      if (!PREAMBLE.has(part.type)) break;
    }
  } catch (error) {
    if (isContextOverflow(error)) return { overflow: error };
    throw error;
  }
  const stream = new ReadableStream<LanguageModelV3StreamPart>({
    start(controller) {
      for (const part of head) controller.enqueue(part);
      if (done) controller.close();
    },
    async pull(controller) {
      if (done) return;
      const next = await reader.read();
      if (next.done) {
        done = true;
        controller.close();
      } else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { result: { ...result, stream } };
}
