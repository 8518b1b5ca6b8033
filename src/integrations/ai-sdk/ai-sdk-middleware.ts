/**
 * `ctxkitMiddleware`: a language model middleware for the Vercel AI SDK's `wrapLanguageModel`, of AI SDK 6
 * (`LanguageModelV3`) and of AI SDK 7 (`LanguageModelV4`) alike. Every call of the wrapped model goes
 * through a ctxkit session:
 *
 * 1. the prompt the AI SDK built (it resends the whole history on every step) is converted and `sync`ed
 *    into the session, which logs only what is new;
 * 2. `prepare` decides what the model sees (the system prompt and the call's tools counted) and the
 *    prompt is replaced by that view; every other call setting is left as it was;
 * 3. the model's reply is logged with the usage it reported (the estimate of the next call is anchored
 *    on it), from the generate result or the stream's `finish` part;
 * 4. a context overflow the provider reports anyway (thrown, or a stream's error before its first chunk)
 *    goes through `retryAfterOverflow`, which does what the policy says at each overflow in a row (a
 *    smaller window the provider named, compaction, a reset) and prepares the call again, until the
 *    call answers or ctxkit can send nothing smaller.
 *
 * `afterTurn` runs once per model call, after its reply and the results of its tool calls are logged:
 * right after a reply without tool calls, else when the next call brings the results. ctxkit starts
 * what is due at a turn's end (a background summary) only when a reply called no tool.
 *
 * Which specification a call speaks is the wrapped model's (`model.specificationVersion`: AI SDK 7 hands
 * every model to a middleware as V4, AI SDK 6 as V3): the prompt is read as it comes and written back in
 * that version, and the reply is logged as that version's AI SDK puts it in its next prompt.
 */
import { createCachePrefixMemory } from '../../core/cache/cache-prefix-memory.ts';
import { InvalidInputError, InvalidSessionIdError } from '../../core/errors/index.ts';
import type { MessageInput } from '../../core/message.ts';
import type { ContextManager, PrepareRequest, PrepareResult } from '../../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import { callHasCacheControl, markAiSdkPromptForAnthropicCache } from './ai-sdk-cache-marks.ts';
import type { ProviderOptions } from './ai-sdk-meta.ts';
import { openStream, streamPartOf } from './ai-sdk-open-stream.ts';
import { fromAiSdkPrompt } from './ai-sdk-prompt.ts';
import { fromAiSdkResponse, StreamResponseRecorder } from './ai-sdk-response.ts';
import type {
  AiSdkCallOptions,
  AiSdkGenerateResult,
  AiSdkModelInfo,
  AiSdkSpecificationVersion,
} from './ai-sdk-spec.ts';
import { toolDefinitionsFromAiSdk } from './ai-sdk-tool-definitions.ts';
import { toAiSdkPrompt } from './ai-sdk-write-prompt.ts';

/** The provider-options key ctxkit reads per call: `providerOptions: { ctxkit: { sessionId } }`. */
export const CTXKIT_PROVIDER_OPTIONS_KEY = 'ctxkit';

/** How a call finds its session: a fixed id, or one read from the call (undefined: not found). */
export type SessionIdOption = string | ((params: AiSdkCallOptions) => string | undefined);

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
  /**
   * Anthropic's prompt cache (default true): for a model of the `anthropic` provider, a call that marks no
   * `cacheControl` of its own gets ctxkit's breakpoints on its stable prefix (at most four, see
   * `placeCacheBreakpoints`), so what the previous call wrote is read at a tenth of the price. `false`
   * sends the prompt unmarked.
   */
  promptCache?: boolean;
}

export interface CtxkitCallInfo {
  sessionId: string;
  /** The call's settings as the AI SDK made them, before ctxkit replaced the prompt. */
  params: AiSdkCallOptions;
  /** True for the request prepared again after the provider reported an overflow. */
  retry: boolean;
}

/** `providerOptions.ctxkit.sessionId` of a call, when it is a non-empty string. */
export function sessionIdFromProviderOptions(params: AiSdkCallOptions): string | undefined {
  const value = params.providerOptions?.[CTXKIT_PROVIDER_OPTIONS_KEY]?.sessionId;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A wrapped model as `wrapGenerate` and `wrapStream` get it: its calls take `P` and give `R` or `S`. */
export interface AiSdkWrappedModel<P, R, S> extends AiSdkModelInfo {
  doGenerate(options: P): PromiseLike<R>;
  doStream(options: P): PromiseLike<S>;
}

/**
 * The middleware `ctxkitMiddleware` returns, for the `wrapLanguageModel` of AI SDK 6 or 7. Its functions
 * are generic in the call's settings (`P`) and results (`R`, `S`): each AI SDK's `wrapLanguageModel`
 * instantiates them with its own specification's types, and each gives back the same type it was given.
 */
export interface CtxkitMiddleware {
  /** What AI SDK 6 requires of a middleware; AI SDK 7 takes any value. */
  readonly specificationVersion: 'v3';
  transformParams<P extends object>(options: {
    type: 'generate' | 'stream';
    params: P;
    model: AiSdkModelInfo;
  }): PromiseLike<P>;
  wrapGenerate<P extends object, R extends { warnings: readonly unknown[] }, S>(options: {
    doGenerate: () => PromiseLike<R>;
    doStream: () => PromiseLike<S>;
    params: P;
    model: AiSdkWrappedModel<P, R, S>;
  }): PromiseLike<R>;
  wrapStream<P extends object, R, S extends { stream: ReadableStream<unknown> }>(options: {
    doGenerate: () => PromiseLike<R>;
    doStream: () => PromiseLike<S>;
    params: P;
    model: AiSdkWrappedModel<P, R, S>;
  }): PromiseLike<S>;
}

/** What a call prepared, kept for its model call (by the params object `transformParams` returned). */
interface PreparedCall {
  sessionId: string;
  version: AiSdkSpecificationVersion;
  /** The provider the prompt is written for (the model's, before the dot). */
  provider: string;
  request: PrepareRequest;
  systemProviderOptions: ProviderOptions | undefined;
  source: AiSdkCallOptions;
  prepared: PrepareResult;
  /** Records the prompt's cache marks once the call is answered (absent: the call carries none of ctxkit's). */
  cacheSent?: () => void;
}

/*
 * Views of what the AI SDK hands the middleware, as ctxkit reads it. The middleware's functions are
 * generic so that each AI SDK instantiates them with its own specification's types; what ctxkit reads of
 * those is the same in both versions (`ai-sdk-spec.test.ts` checks that both versions' values fit).
 */
const settingsOf = (params: object): AiSdkCallOptions => params as AiSdkCallOptions;
const resultOf = (result: object): AiSdkGenerateResult => result as AiSdkGenerateResult;

export function ctxkitMiddleware(options: CtxkitMiddlewareOptions): CtxkitMiddleware {
  const { manager } = options;
  const runAfterTurn = options.afterTurn !== false;
  const calls = new WeakMap<object, PreparedCall>();
  const cacheMemory = options.promptCache === false ? undefined : createCachePrefixMemory();
  /** Sessions whose last reply made tool calls: `afterTurn` runs once their results are logged. */
  const awaitingResults = new Set<string>();

  const sessionIdOf = (params: AiSdkCallOptions): string => {
    const given = options.sessionId;
    const id = typeof given === 'string' ? given : (given ?? sessionIdFromProviderOptions)(params);
    if (id === undefined)
      throw new InvalidSessionIdError(
        undefined,
        `no session for this call: pass sessionId to ctxkitMiddleware, or providerOptions: { ${CTXKIT_PROVIDER_OPTIONS_KEY}: { sessionId } } to the call`,
      );
    return id;
  };

  /** The call's settings with the prepared view as its prompt, in the call's own version. */
  const prepare = async <P extends object>(
    source: P,
    call: Omit<PreparedCall, 'prepared'>,
    retry: boolean,
    prepared?: PrepareResult,
  ): Promise<P> => {
    prepared ??= await manager.prepare(call.sessionId, call.request);
    await options.onPrepared?.(prepared, { sessionId: call.sessionId, params: call.source, retry });
    let prompt = toAiSdkPrompt(
      {
        system: prepared.system,
        messages: prepared.messages,
        ...(call.systemProviderOptions !== undefined && {
          systemProviderOptions: call.systemProviderOptions,
        }),
      },
      { specificationVersion: call.version, provider: call.provider },
    );
    let cacheSent: (() => void) | undefined;
    if (cacheMemory && call.provider === 'anthropic' && !callHasCacheControl(call.source)) {
      const marked = markAiSdkPromptForAnthropicCache(prompt, {
        tools: call.source.tools,
        modelId: call.request.model ?? '',
        memory: cacheMemory,
      });
      prompt = marked.prompt;
      cacheSent = marked.remember;
    }
    const params = { ...source, prompt };
    const { cacheSent: _previous, ...rest } = call as PreparedCall;
    calls.set(params, { ...rest, prepared, ...(cacheSent && { cacheSent }) });
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

  /**
   * After an overflow: what the policy says at this overflow in a row (`retryAfterOverflow`), and the
   * call prepared again when ctxkit can send something smaller; undefined when the error stands.
   */
  const recover = async <P extends object>(
    params: P,
    call: PreparedCall,
    error: unknown,
  ): Promise<P | undefined> => {
    const next = await manager.retryAfterOverflow(call.sessionId, error, call.request);
    return next.retry ? prepare(params, call, true, next.retry) : undefined;
  };

  return {
    specificationVersion: 'v3',

    async transformParams({ params, model }) {
      // The prompt's version is the model's, not read from the prompt: AI SDK 7 converts every model with
      // `asLanguageModelV4` before any middleware runs, so a V3 provider's model still gets a V4 prompt
      // here, and a prompt holding no version-specific part would not tell.
      const version = versionOf(model);
      const source = settingsOf(params);
      const sessionId = sessionIdOf(source);
      const { system, systemProviderOptions, messages } = fromAiSdkPrompt(source.prompt);
      await manager.sync(sessionId, messages);
      // The last reply's tool results came with this history: its model call is done.
      if (awaitingResults.delete(sessionId)) {
        await manager.afterTurn(sessionId);
      }
      // Always said, so one call's reserve never carries over to the next (prepare remembers the last).
      const maxOutputTokens =
        source.maxOutputTokens ?? options.maxOutputTokens ?? positive(manager.policy.budget.maxOutputTokens);
      const request: PrepareRequest = {
        system,
        tools: toolDefinitionsFromAiSdk(source.tools),
        model: options.model ?? model.modelId,
        ...(options.contextWindow !== undefined && { contextWindow: options.contextWindow }),
        ...(maxOutputTokens !== undefined && { maxOutputTokens }),
      };
      const provider = model.provider.split('.')[0] ?? model.provider;
      return prepare(params, { sessionId, version, provider, request, systemProviderOptions, source }, false);
    },

    async wrapGenerate({ doGenerate, params, model }) {
      const call = calls.get(params);
      if (!call) return doGenerate();
      const { result, sent } = await generate(call, params, doGenerate, (retried) =>
        model.doGenerate(retried),
      );
      const { content, usage, response } = resultOf(result);
      await record(
        sent,
        fromAiSdkResponse(content, {
          usage,
          model: response?.modelId ?? model.modelId,
          specificationVersion: sent.version,
        }),
      );
      const warning = readToolWarning(sent);
      return warning ? { ...result, warnings: [...result.warnings, warning] } : result;
    },

    async wrapStream({ doStream, params, model }) {
      const call = calls.get(params);
      if (!call) return doStream();
      let sent = call;
      let opened = await openStream(doStream);
      // Each overflow goes through the policy's protocol, until a stream opens or the error stands.
      while ('overflow' in opened) {
        const retried = await recover(params, sent, opened.overflow);
        if (!retried) throw opened.overflow;
        sent = calls.get(retried) ?? sent;
        opened = await openStream(() => model.doStream(retried));
      }
      sent.cacheSent?.();
      return recorded(sent, opened.result, model);
    },
  };

  /** The call's result, and the call it came from: the retry after an overflow when there was one. */
  async function generate<P extends object, R>(
    call: PreparedCall,
    params: P,
    first: () => PromiseLike<R>,
    again: (retried: P) => PromiseLike<R>,
  ): Promise<{ result: R; sent: PreparedCall }> {
    let sent = call;
    let send = first;
    // Each overflow goes through the policy's protocol, until a call answers or the error stands.
    for (;;) {
      try {
        const result = await send();
        sent.cacheSent?.();
        return { result, sent };
      } catch (error) {
        const retried = await recover(params, sent, error);
        if (!retried) throw error;
        sent = calls.get(retried) ?? sent;
        send = () => again(retried);
      }
    }
  }

  /** The stream as the caller reads it; its reply is logged when its `finish` part passes. */
  function recorded<S extends { stream: ReadableStream<unknown> }>(
    call: PreparedCall,
    result: S,
    model: AiSdkModelInfo,
  ): S {
    const recorder = new StreamResponseRecorder(call.version);
    const warning = readToolWarning(call);
    let logged: Promise<void> | undefined;
    const stream = result.stream.pipeThrough(
      new TransformStream<unknown, unknown>({
        transform(chunk, controller) {
          const part = streamPartOf(chunk);
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
          controller.enqueue(chunk);
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

/** The specification version of the model a call goes to: the one its prompt is written in. */
function versionOf(model: AiSdkModelInfo): AiSdkSpecificationVersion {
  const version = model.specificationVersion;
  if (version === 'v3' || version === 'v4') return version;
  throw new InvalidInputError(
    `ctxkitMiddleware works with AI SDK 6 (LanguageModelV3) and AI SDK 7 (LanguageModelV4) models; model ${model.modelId} speaks ${String(version)}: wrap it with the wrapLanguageModel of AI SDK 6 or 7`,
    { field: 'model.specificationVersion' },
  );
}

/**
 * A warning when the request points at offloaded content and the call offers no tool to read it, as both
 * versions spell an `other` warning.
 */
function readToolWarning(call: PreparedCall): { type: 'other'; message: string } | undefined {
  const pointers = call.prepared.pointers.length;
  if (pointers === 0 || call.source.tools?.some((tool) => tool.name === READ_OFFLOADED_TOOL))
    return undefined;
  return {
    type: 'other',
    message: `ctxkit: the request points at ${pointers} offloaded item(s) but the call has no ${READ_OFFLOADED_TOOL} tool; add ctxkitTools({ manager, sessionId }) to the call's tools so the model can read them back`,
  };
}
