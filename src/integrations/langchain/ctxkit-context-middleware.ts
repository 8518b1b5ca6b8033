/**
 * ctxkit inside a LangChain.js v1 agent (`createAgent({ middleware: [ctxkitContextMiddleware(...)] })`):
 * what `summarizationMiddleware` does, done by ctxkit's engine. Around every model call (`wrapModelCall`):
 *
 * 1. the agent's messages (what it would have sent) are converted and `sync`ed into the session: the agent
 *    resends its whole history each call, and the session appends only what is new;
 * 2. after the previous reply and its tool results, `afterTurn` runs (cheap layers; a background summary
 *    only between turns, when the reply called no tool);
 * 3. `prepare` with the agent's system prompt and the bound tools' definitions gives the view to send: a
 *    message ctxkit did not change goes to the model as the agent's own object, a changed one (a result
 *    behind a pointer, cleared arguments) and what ctxkit adds (the summary) are converted back;
 * 4. the model's reply is appended with its `usage_metadata`, which anchors ctxkit's next estimate; the next
 *    sync recognizes it by content;
 * 5. a model error that means "context overflow" (`isContextOverflow`, or LangChain's
 *    `ContextOverflowError`) goes through `retryAfterOverflow`, which does what the policy says at each
 *    overflow in a row and prepares the call again, until the model answers or ctxkit can send nothing
 *    smaller; then that error is thrown as it came, as is any other error.
 *
 * The graph state keeps the whole history: the session log is the record and the view is computed per
 * call, so nothing is rewritten in the state (unlike `summarizationMiddleware`, which replaces it), other
 * middleware and the checkpointer see every message, and a session restored from ctxkit's store or from
 * the checkpointer gives the same view.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage, SystemMessage } from '@langchain/core/messages';
import { createMiddleware } from 'langchain';
import { readBackRoom } from '../../agent/read-offloaded-tool.ts';
import { canonicalJson } from '../../core/canonical-json.ts';
import { InvalidInputError } from '../../core/errors/index.ts';
import { type Message, type MessageInput, type Part, textOf } from '../../core/message.ts';
import { mergePolicy } from '../../core/policy/merge-policy.ts';
import type { Policy } from '../../core/policy/policy-schema.ts';
import { PRESETS } from '../../core/policy/presets/index.ts';
import { assignStableIds } from '../../core/stable-id.ts';
import type { PrepareRequest } from '../../engine/call-context.ts';
import { DEFAULT_SUMMARY_INPUT_TOKENS } from '../../engine/choose-summarizer.ts';
import { type ContextManager, createContextManager } from '../../engine/context-manager.ts';
import { READ_OFFLOADED_TOOL } from '../../engine/offload-results.ts';
import type { PrepareResult, PrepareStats } from '../../engine/prepare-call.ts';
import { isContextOverflow } from '../../providers/is-context-overflow.ts';
import { findModelProfile } from '../../providers/model-profiles.ts';
import { createModelSummarizer } from '../../summarize/model-summarizer.ts';
import {
  fromLangChainMessage,
  LANGCHAIN_SYSTEM_KIND,
  nameResults,
  toLangChainMessage,
} from './langchain-messages.ts';
import {
  createLangChainModelClient,
  type LangChainModelLike,
  langChainMaxInputTokens,
  langChainMaxOutputTokens,
  langChainModelName,
  summaryInputBudget,
} from './langchain-model-client.ts';
import { toolDefinitionsFromLangChain, toolNameOf } from './langchain-tools.ts';
import { ctxkitReadOffloadedTool } from './read-offloaded-langchain-tool.ts';
import { type LangChainSessionId, type LangChainSessionScope, resolveSessionId } from './session-id.ts';
import { type SummarizationOptions, summarizationPolicy } from './summarization-options.ts';

/** The middleware's name in LangChain's errors and traces. */
export const CTXKIT_MIDDLEWARE_NAME = 'CtxkitContextMiddleware';

export interface CtxkitContextMiddlewareOptions extends SummarizationOptions {
  /**
   * The manager whose sessions hold the agent's conversations. Default: one created here, in memory, from
   * `policy` (default `PRESETS.default`) with the summarization options below applied. A manager passed
   * in keeps its own policy and summarizer: the summarization options and `policy` are refused with it.
   */
  manager?: ContextManager;
  /** The session of a run: a fixed id or a function of it; default the run's `thread_id` (see `LangChainSessionId`). */
  sessionId?: LangChainSessionId;
  /**
   * `summarizationMiddleware`'s `model`: the chat model (or `provider:model` name) that writes summaries,
   * with ctxkit's structured prompt. Default: ctxkit's extractive summarizer (no model call).
   */
  model?: LangChainModelLike;
  /** The policy of the manager created here (default `PRESETS.default`); the summarization options apply on top. */
  policy?: Policy;
  /**
   * The model's context window for every call. Default: the manager's own setting, else the window of the
   * agent's model (ctxkit's profile of its name, else LangChain's `profile.maxInputTokens`).
   */
  contextWindow?: number;
  /** Tokens reserved for the reply. Default: the manager's setting, else the agent model's `maxTokens`, else ctxkit's. */
  maxOutputTokens?: number;
  /**
   * Add the `read_offloaded` tool the pointers name, bound to the same session (default true). Turn it off
   * when the agent adds `ctxkitReadOffloadedTool` itself.
   */
  readOffloadedTool?: boolean;
  /** Told about every prepared request (its stats, pointers and events), e.g. for a context gauge. */
  onPrepare?: (prepared: PrepareResult, sessionId: string) => void;
}

/** Options that configure the manager, so they cannot go with a manager passed in. */
const MANAGER_OPTIONS = [
  'model',
  'policy',
  'trigger',
  'keep',
  'trimTokensToSummarize',
  'summaryPrefix',
] as const;

/**
 * The LangChain agent middleware. The returned middleware carries its `manager` (the one passed in or
 * the one it created), for `history`, `stats` or `readOffloaded`.
 */
export function ctxkitContextMiddleware(options: CtxkitContextMiddlewareOptions = {}) {
  const manager = managerFor(options);
  const pending = new Set<string>();
  const lastStats = new Map<string, PrepareStats>();
  const converted = new WeakMap<BaseMessage, MessageInput>();
  const sessionOf = (scope: LangChainSessionScope) => resolveSessionId(options.sessionId, scope);

  const toInputs = (messages: readonly BaseMessage[]): MessageInput[] =>
    nameResults(
      messages.map((message, index) => {
        let input = converted.get(message);
        if (!input) {
          input = fromLangChainMessage(message, { field: `messages[${index}]` });
          converted.set(message, input);
        }
        return input;
      }),
    );

  const tools =
    options.readOffloadedTool === false
      ? []
      : [
          ctxkitReadOffloadedTool({
            manager,
            ...(options.sessionId !== undefined && { sessionId: options.sessionId }),
            maxChars: (sessionId) => {
              const stats = lastStats.get(sessionId);
              return stats ? readBackRoom(stats) : undefined;
            },
          }),
        ];

  const middleware = createMiddleware({
    name: CTXKIT_MIDDLEWARE_NAME,
    tools,
    wrapModelCall: async (request, handler) => {
      const sessionId = sessionOf({
        state: request.state,
        configurable: request.runtime.configurable,
        context: request.runtime.context,
      });
      const history = request.messages;
      const inputs = toInputs(history);
      await manager.sync(sessionId, inputs);
      if (pending.delete(sessionId)) await manager.afterTurn(sessionId);

      const boundTools = withoutDuplicateReadBack(request.tools);
      const call: PrepareRequest = {
        system: request.systemMessage.text,
        tools: toolDefinitionsFromLangChain(boundTools),
        ...windowFor(manager, request.model, options),
      };
      const originals = originalsById(inputs, history);

      const send = async (prepared: PrepareResult): Promise<AIMessage> => {
        lastStats.set(sessionId, prepared.stats);
        options.onPrepare?.(prepared, sessionId);
        const { notes, messages } = leadingNotes(prepared.messages, originals);
        return handler({
          ...request,
          messages: messages.map((message) => toModelMessage(message, originals)),
          tools: boundTools,
          ...systemFor(request.systemMessage, [prepared.system, ...notes].filter(Boolean).join('\n\n')),
        });
      };

      let prepared = await manager.prepare(sessionId, call);
      let reply: AIMessage | undefined;
      // Each overflow goes through the policy's protocol (`retryAfterOverflow`), until the model answers
      // or ctxkit can send nothing smaller; then the provider's error stands.
      while (reply === undefined) {
        try {
          reply = await send(prepared);
        } catch (error) {
          if (!isOverflow(error)) throw error;
          const next = await manager.retryAfterOverflow(sessionId, overflowFor(error), call);
          if (!next.retry) throw error;
          prepared = next.retry;
        }
      }
      await manager.append(sessionId, [fromLangChainMessage(reply)]);
      pending.add(sessionId);
      return reply;
    },
    afterAgent: async (state, runtime) => {
      // The run's last reply is in the session: its turn is over.
      const sessionId = sessionOf({
        state,
        configurable: runtime.configurable,
        context: runtime.context,
      });
      // The read-back tool sizes answers to the last request of a run; the next run prepares its own.
      lastStats.delete(sessionId);
      if (pending.delete(sessionId)) await manager.afterTurn(sessionId);
      return undefined;
    },
  });
  return Object.assign(middleware, { manager });
}

function managerFor(options: CtxkitContextMiddlewareOptions): ContextManager {
  if (options.manager) {
    const clash = MANAGER_OPTIONS.find((key) => options[key] !== undefined);
    if (clash) {
      throw new InvalidInputError(
        `"${clash}" configures the manager, and a manager passed in keeps its own policy and summarizer: set it there (createContextManager({ policy, summarizer })) or leave "manager" out`,
        { field: clash },
      );
    }
    return options.manager;
  }
  const base = options.policy ?? PRESETS.default;
  const policy = mergePolicy(
    base,
    summarizationPolicy(options as SummarizationOptions & Record<string, unknown>, base.clearing.trigger),
  );
  const model = options.model;
  if (model === undefined) return createContextManager({ policy });
  const summarizer = createModelSummarizer({
    client: createLangChainModelClient(model),
    model: langChainModelName(model) ?? 'langchain',
    maxInputTokens:
      policy.summarize.inputMaxTokens > 0
        ? policy.summarize.inputMaxTokens
        : summaryInputBudget(model, DEFAULT_SUMMARY_INPUT_TOKENS),
  });
  return createContextManager({ policy, summarizer });
}

/**
 * The window and model name for `prepare`, where the manager does not already know them: the middleware's
 * own options, else what the agent's model says about itself.
 */
function windowFor(
  manager: ContextManager,
  model: unknown,
  options: CtxkitContextMiddlewareOptions,
): Pick<PrepareRequest, 'model' | 'contextWindow' | 'maxOutputTokens'> {
  const { budget } = manager.policy;
  const out: Pick<PrepareRequest, 'model' | 'contextWindow' | 'maxOutputTokens'> = {};
  const name = manager.policy.model === undefined ? langChainModelName(model) : undefined;
  if (name !== undefined && findModelProfile(name)) out.model = name;
  if (options.contextWindow !== undefined) out.contextWindow = options.contextWindow;
  // LangChain's profile is a model profile: a policy that does not look windows up (picoclaw) skips it.
  else if (
    budget.contextWindow === 0 &&
    budget.detectWindow !== false &&
    out.model === undefined &&
    manager.policy.model === undefined
  ) {
    const max = langChainMaxInputTokens(model);
    if (max !== undefined) out.contextWindow = max;
  }
  if (options.maxOutputTokens !== undefined) out.maxOutputTokens = options.maxOutputTokens;
  else if (budget.maxOutputTokens === 0) {
    const max = langChainMaxOutputTokens(model);
    const window = out.contextWindow ?? (budget.contextWindow || undefined);
    if (max !== undefined && (window === undefined || max < window / 2)) out.maxOutputTokens = max;
  }
  return out;
}

/** The agent's system message with ctxkit's additions (the skills and memory indexes) appended. */
function systemFor(original: SystemMessage, prepared: string): { systemMessage?: SystemMessage } {
  const text = original.text;
  if (prepared === text) return {};
  if (text !== '' && prepared.startsWith(text))
    return { systemMessage: original.concat(prepared.slice(text.length)) };
  return { systemMessage: new SystemMessage(prepared) };
}

/**
 * System notes ctxkit puts first (a summary or reminder where the policy places it in "a system message",
 * digitorn): appended to the agent's system message instead, since some providers (Anthropic) take system
 * text only at the start. The agent's own system messages, if its history has any, stay where they are.
 */
function leadingNotes(
  messages: readonly Message[],
  originals: ReadonlyMap<string, BaseMessage>,
): { notes: string[]; messages: readonly Message[] } {
  let count = 0;
  while (count < messages.length) {
    const message = messages[count] as Message;
    const [logId = message.id] = message.id.split('~', 1);
    if (message.role !== 'user' || message.meta.kind !== LANGCHAIN_SYSTEM_KIND || originals.has(logId)) break;
    count++;
  }
  if (count === 0) return { notes: [], messages };
  return {
    notes: messages.slice(0, count).map((message) => textOf(message)),
    messages: messages.slice(count),
  };
}

/** A second `read_offloaded` (the agent's own beside the middleware's) would be bound twice. */
function withoutDuplicateReadBack<T>(tools: readonly T[]): T[] {
  let seen = false;
  return tools.filter((tool) => {
    if (toolNameOf(tool) !== READ_OFFLOADED_TOOL) return true;
    if (seen) return false;
    seen = true;
    return true;
  });
}

/** The agent's messages by the ids the session gives them (content ids, as `sync` computes them). */
function originalsById(
  inputs: readonly MessageInput[],
  history: readonly BaseMessage[],
): Map<string, BaseMessage> {
  const byId = new Map<string, BaseMessage>();
  assignStableIds(inputs.map(({ id: _id, ...rest }) => rest)).forEach((input, index) => {
    const original = history[index];
    if (original) byId.set(input.id, original);
  });
  return byId;
}

/**
 * A message of the prepared view as the model gets it: the agent's own object when ctxkit left it as it
 * was (a view message keeps its log id; an edited one is `<id>~<edits>`), else converted back.
 */
function toModelMessage(message: Message, originals: ReadonlyMap<string, BaseMessage>): BaseMessage {
  const [logId = message.id] = message.id.split('~', 1);
  const original = originals.get(logId) ?? originals.get(logId.replace(/#\d+$/, ''));
  if (original && logId === message.id) return original;
  if (message.role === 'assistant' && original && AIMessage.isInstance(original)) {
    return patchAssistant(message, original);
  }
  const rebuilt = toLangChainMessage(message, { reasoning: false });
  if (original?.id !== undefined) rebuilt.id = original.id;
  return rebuilt;
}

const isCallPart = (part: Part) => part.type === 'tool-call';

/**
 * An assistant message whose tool calls ctxkit changed (arguments offloaded or cleared, calls hidden):
 * when its text and reasoning are as the model wrote them, the original message with the new calls, so
 * its provider fields (reasoning signatures, metadata) reach the model as they came.
 */
function patchAssistant(message: Message, original: AIMessage): AIMessage {
  const rebuilt = toLangChainMessage(message, { reasoning: false }) as AIMessage;
  rebuilt.id = original.id;
  const before = fromLangChainMessage(original).parts.filter((part) => !isCallPart(part));
  const after = message.parts.filter((part) => !isCallPart(part));
  if (canonicalJson(before) !== canonicalJson(after)) return rebuilt;
  const { tool_calls: _calls, function_call: _function, ...kwargs } = original.additional_kwargs ?? {};
  return new AIMessage({
    content: withoutCallBlocks(original.content),
    tool_calls: rebuilt.tool_calls ?? [],
    ...(rebuilt.invalid_tool_calls?.length && { invalid_tool_calls: rebuilt.invalid_tool_calls }),
    additional_kwargs: kwargs,
    response_metadata: original.response_metadata,
    ...(original.usage_metadata && { usage_metadata: original.usage_metadata }),
    ...(original.id !== undefined && { id: original.id }),
    ...(original.name !== undefined && { name: original.name }),
  });
}

/** Content without the blocks that restate tool calls (Anthropic `tool_use`): the new calls replace them. */
function withoutCallBlocks(content: AIMessage['content']): AIMessage['content'] {
  if (typeof content === 'string') return content;
  return content.filter(
    (block) =>
      typeof block !== 'object' ||
      block === null ||
      !['tool_use', 'tool_call', 'tool_call_chunk', 'input_json_delta', 'function_call'].includes(
        String((block as { type?: unknown }).type),
      ),
  ) as AIMessage['content'];
}

/** LangChain's own overflow error, by name or code (it may be a copy from another @langchain/core). */
function isLangChainOverflow(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const record = error as { name?: unknown; lc_error_code?: unknown; cause?: unknown };
  if (record.name === 'ContextOverflowError' || record.lc_error_code === 'CONTEXT_OVERFLOW') return true;
  return isLangChainOverflow(record.cause, depth + 1);
}

function isOverflow(error: unknown): boolean {
  return isContextOverflow(error) || isLangChainOverflow(error);
}

/** What `recover` reads: the error itself, or (a `ContextOverflowError` worded unlike any provider) its code. */
function overflowFor(error: unknown): unknown {
  if (isContextOverflow(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: 'context_length_exceeded', message, cause: error };
}
