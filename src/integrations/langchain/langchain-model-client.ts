/**
 * A LangChain chat model as a ctxkit `ModelClient`, so ctxkit's model-backed summarizer can write its
 * summaries with the model a `summarizationMiddleware` user already passes (`model: new ChatOpenAI(...)`,
 * or a `provider:model` string LangChain's `initChatModel` resolves).
 */
import type { BaseLanguageModel } from '@langchain/core/language_models/base';
import { AIMessage, type BaseMessage, SystemMessage } from '@langchain/core/messages';
import type {
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
} from '../../providers/model-client.ts';
import { findModelProfile } from '../../providers/model-profiles.ts';
import { fromLangChainMessage, toLangChainMessages } from './langchain-messages.ts';

/** A chat model, or the name `initChatModel` takes (`openai:gpt-4o-mini`), resolved on first use. */
export type LangChainModelLike = string | BaseLanguageModel;

/** What a LangChain model object says about itself, read defensively: integrations differ. */
interface ModelFacts {
  model?: unknown;
  modelName?: unknown;
  maxTokens?: unknown;
  profile?: unknown;
}

/** The model's name as the provider knows it (`gpt-4o`), when the object says. */
export function langChainModelName(model: unknown): string | undefined {
  if (typeof model === 'string') return model.includes(':') ? model.slice(model.indexOf(':') + 1) : model;
  if (typeof model !== 'object' || model === null) return undefined;
  const facts = model as ModelFacts;
  for (const name of [facts.model, facts.modelName]) if (typeof name === 'string' && name !== '') return name;
  return undefined;
}

/** The model's input window from its LangChain profile (`profile.maxInputTokens`), when it has one. */
export function langChainMaxInputTokens(model: unknown): number | undefined {
  if (typeof model !== 'object' || model === null) return undefined;
  let profile: unknown;
  try {
    profile = (model as ModelFacts).profile;
  } catch {
    return undefined;
  }
  if (typeof profile !== 'object' || profile === null) return undefined;
  const max = (profile as { maxInputTokens?: unknown }).maxInputTokens;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : undefined;
}

/** The reply cap the model object was configured with (`maxTokens`), when it has one. */
export function langChainMaxOutputTokens(model: unknown): number | undefined {
  if (typeof model !== 'object' || model === null) return undefined;
  const max = (model as ModelFacts).maxTokens;
  return typeof max === 'number' && Number.isInteger(max) && max > 0 ? max : undefined;
}

/** Input a summary request may take: the profile's window less its reply, with a margin, as ctxkit's own choice does. */
export function summaryInputBudget(model: LangChainModelLike, fallback: number): number {
  const name = langChainModelName(model);
  const profile = name === undefined ? undefined : findModelProfile(name);
  const window = langChainMaxInputTokens(model) ?? profile?.contextWindow;
  if (window === undefined) return fallback;
  const reply = profile?.maxOutputTokens ?? Math.floor(window / 4);
  return Math.max(1_000, Math.floor((window - Math.min(reply, window / 2)) * 0.8));
}

export function createLangChainModelClient(model: LangChainModelLike): ModelClient {
  let resolved: Promise<BaseLanguageModel> | undefined;
  const chatModel = (): Promise<BaseLanguageModel> => {
    if (typeof model !== 'string') return Promise.resolve(model);
    resolved ??= import('langchain').then(
      ({ initChatModel }) => initChatModel(model) as unknown as Promise<BaseLanguageModel>,
    );
    return resolved;
  };
  const complete = async (request: ModelRequest): Promise<ModelResponse> => {
    const messages: BaseMessage[] = [
      ...(request.system ? [new SystemMessage(request.system)] : []),
      ...toLangChainMessages(request.messages),
    ];
    const reply = (await (
      await chatModel()
    ).invoke(messages, {
      ...(request.signal && { signal: request.signal }),
    })) as unknown;
    const message = AIMessage.isInstance(reply)
      ? fromLangChainMessage(reply)
      : fromLangChainMessage(new AIMessage(typeof reply === 'string' ? reply : String(reply)));
    const usage = message.usage ?? { inputTokens: 0, outputTokens: 0 };
    const metadata = AIMessage.isInstance(reply) ? (reply.response_metadata as Record<string, unknown>) : {};
    const stop = metadata.finish_reason ?? metadata.stop_reason;
    return {
      message: { id: 'langchain-reply', seq: 0, meta: {}, ...message, usage },
      usage,
      stopReason: typeof stop === 'string' ? stop : 'stop',
      model: message.meta?.model ?? langChainModelName(model) ?? request.model,
    };
  };
  return {
    provider: 'langchain',
    complete,
    async *stream(request: ModelRequest): AsyncGenerator<ModelStreamEvent> {
      yield { type: 'response', response: await complete(request) };
    },
  };
}
