/**
 * Reads a Chat Completions stream (`chat.completion.chunk` objects, as the SDK yields them) into ctxkit's
 * stream events, and puts the chunks back together into the `chat.completion` body the same call would
 * have answered without streaming, so the final response is read by the very code `complete` uses.
 *
 * What servers stream, beyond OpenAI's own fields:
 * - reasoning as `delta.reasoning_content` (DeepSeek, vLLM before 0.10) or `delta.reasoning` (Ollama,
 *   OpenRouter, newer vLLM);
 * - tool calls as `delta.tool_calls[i]`: the first fragment has `index`, `id`, `function.name`, later ones
 *   only `index` and `function.arguments` pieces; some servers send a whole call in one fragment, a few
 *   leave out `index` or `id`;
 * - usage in a last chunk with empty `choices` (`stream_options.include_usage`), or on the finish chunk;
 *   DeepSeek's cache hits as `prompt_cache_hit_tokens` in it.
 */

import { isRecord } from '../core/is-record.ts';
import type { ModelStreamEvent } from './model-client.ts';

interface ToolCallDraft {
  id: string;
  name: string;
  args: string;
  /** `tool-call-start` was emitted (the name is known); arguments before it are sent with it. */
  started: boolean;
}

export interface OpenAIStreamState {
  id?: string;
  model?: string;
  created?: number;
  text: string;
  reasoning: string;
  sawReasoning: boolean;
  refusal: string;
  toolCalls: Map<number, ToolCallDraft>;
  finishReason?: string;
  /** The usage object as the server sent it (DeepSeek's extra fields included). */
  usage?: Record<string, unknown>;
}

export function createOpenAIStreamState(): OpenAIStreamState {
  return { text: '', reasoning: '', sawReasoning: false, refusal: '', toolCalls: new Map() };
}

/** Folds one chunk into the state; returns the events it carries. */
export function readOpenAIChunk(state: OpenAIStreamState, chunk: unknown): ModelStreamEvent[] {
  if (!isRecord(chunk)) return [];
  if (state.id === undefined && typeof chunk.id === 'string' && chunk.id !== '') state.id = chunk.id;
  if (state.model === undefined && typeof chunk.model === 'string' && chunk.model !== '')
    state.model = chunk.model;
  if (state.created === undefined && typeof chunk.created === 'number') state.created = chunk.created;
  if (isRecord(chunk.usage)) state.usage = chunk.usage;

  const choices = Array.isArray(chunk.choices) ? chunk.choices.filter(isRecord) : [];
  const choice = choices.find((candidate) => candidate.index === 0) ?? choices[0];
  if (!choice) return [];
  const events: ModelStreamEvent[] = [];
  const delta = isRecord(choice.delta) ? choice.delta : {};

  const reasoning = textOf(delta.reasoning_content) ?? textOf(delta.reasoning);
  if (reasoning !== undefined) {
    state.sawReasoning = true;
    if (reasoning !== '') {
      state.reasoning += reasoning;
      events.push({ type: 'reasoning-delta', text: reasoning });
    }
  }
  const content = textOf(delta.content);
  if (content) {
    state.text += content;
    events.push({ type: 'text-delta', text: content });
  }
  const refusal = textOf(delta.refusal);
  if (refusal) {
    state.refusal += refusal;
    events.push({ type: 'text-delta', text: refusal });
  }
  if (Array.isArray(delta.tool_calls)) {
    for (const fragment of delta.tool_calls)
      if (isRecord(fragment)) events.push(...readToolCall(state, fragment));
  }
  if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '')
    state.finishReason = choice.finish_reason;
  return events;
}

function readToolCall(state: OpenAIStreamState, fragment: Record<string, unknown>): ModelStreamEvent[] {
  const id = textOf(fragment.id) || undefined;
  const index =
    typeof fragment.index === 'number'
      ? fragment.index
      : (findIndexById(state, id) ?? (id === undefined ? lastIndex(state) : state.toolCalls.size));
  let draft = state.toolCalls.get(index);
  if (!draft) {
    draft = { id: id ?? '', name: '', args: '', started: false };
    state.toolCalls.set(index, draft);
  } else if (draft.id === '' && id !== undefined) draft.id = id;
  const fn = isRecord(fragment.function) ? fragment.function : {};
  const name = textOf(fn.name);
  if (name && draft.name === '') draft.name = name;
  const args = textOf(fn.arguments) ?? '';
  draft.args += args;

  if (draft.started)
    return args === '' ? [] : [{ type: 'tool-call-delta', callId: draft.id, argsDelta: args }];
  if (draft.name === '') return [];
  draft.started = true;
  if (draft.id === '') draft.id = `call_${crypto.randomUUID().replaceAll('-', '')}`;
  const events: ModelStreamEvent[] = [{ type: 'tool-call-start', callId: draft.id, name: draft.name }];
  if (draft.args !== '') events.push({ type: 'tool-call-delta', callId: draft.id, argsDelta: draft.args });
  return events;
}

function findIndexById(state: OpenAIStreamState, id: string | undefined): number | undefined {
  if (id === undefined) return undefined;
  for (const [index, draft] of state.toolCalls) if (draft.id === id) return index;
  return undefined;
}

function lastIndex(state: OpenAIStreamState): number {
  return state.toolCalls.size === 0 ? 0 : Math.max(...state.toolCalls.keys());
}

/** The finish reason arrived: the model is done (a usage chunk may still follow). */
export function openAIStreamFinished(state: OpenAIStreamState): boolean {
  return state.finishReason !== undefined;
}

/** The `chat.completion` body the streamed chunks add up to. */
export function completionOfStream(state: OpenAIStreamState): Record<string, unknown> {
  const calls = [...state.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, draft]) => draft);
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: state.text !== '' ? state.text : calls.length > 0 ? null : '',
    ...(state.sawReasoning && { reasoning_content: state.reasoning }),
    ...(state.refusal !== '' && { refusal: state.refusal }),
    ...(calls.length > 0 && {
      tool_calls: calls.map((draft) => ({
        id: draft.id || `call_${crypto.randomUUID().replaceAll('-', '')}`,
        type: 'function',
        function: { name: draft.name, arguments: draft.args },
      })),
    }),
  };
  return {
    ...(state.id !== undefined && { id: state.id }),
    object: 'chat.completion',
    ...(state.created !== undefined && { created: state.created }),
    ...(state.model !== undefined && { model: state.model }),
    choices: [{ index: 0, message, finish_reason: state.finishReason ?? null }],
    ...(state.usage !== undefined && { usage: state.usage }),
  };
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
