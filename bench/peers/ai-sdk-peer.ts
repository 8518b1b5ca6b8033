/**
 * The AI SDK (`ai@7`): the full history kept as `ModelMessage`s and, before every model call,
 * `pruneMessages` applied as its reference page shows (ai-sdk.dev/docs/reference/ai-sdk-ui/prune-messages):
 * `reasoning: 'before-last-message'`, `toolCalls: 'before-last-2-messages'`, `emptyMessages: 'remove'`.
 * The SDK has no notion of a window: nothing here looks at `contextWindow`, as nothing in the SDK would.
 * Tool calls the session never answered get the same placeholder result the LangChain tools return.
 */
import { performance } from 'node:perf_hooks';
import { type ModelMessage, pruneMessages } from 'ai';
import { fromOpenAIChat } from '../../src/adapters/openai-chat.ts';
import { type Message, type Transcript, textOf } from '../../src/core/message.ts';
import type { ReplayedRequest } from '../../src/replay/replay-types.ts';
import { type PeerReplay, type PeerReplayOptions, systemPromptOf } from './peer-types.ts';
import { ArgsText, argsObject, NO_RECORDED_RESULT, RecordedSession } from './recorded-session.ts';

export const AI_SDK_PEER = 'ai-sdk-prune';

export const PRUNE_OPTIONS = {
  reasoning: 'before-last-message',
  toolCalls: 'before-last-2-messages',
  emptyMessages: 'remove',
} as const;

export async function replayWithAiSdkPrune(
  transcript: Transcript,
  options: PeerReplayOptions,
): Promise<PeerReplay> {
  const session = new RecordedSession(transcript);
  const args = new ArgsText();
  const system = systemPromptOf(transcript);
  const tools = session.toolDefinitions();
  const notes: string[] = [];
  const history: ModelMessage[] = [];
  const requests: ReplayedRequest[] = [];
  for (let ordinal = 0; ordinal < session.calls; ordinal++) {
    if (ordinal > 0) {
      for (const part of session.assistant(ordinal - 1).parts) {
        if (part.type !== 'tool-call') continue;
        const recorded = session.takeResult(ordinal - 1, part.callId);
        if (recorded === undefined) notes.push(`call ${part.callId} (${part.name}) has no recorded result`);
        history.push(toolResult(part.callId, part.name, recorded ?? NO_RECORDED_RESULT));
      }
    }
    for (const input of session.inputsBefore(ordinal)) history.push({ role: 'user', content: textOf(input) });
    const started = performance.now();
    const sent = pruneMessages({ messages: history, ...PRUNE_OPTIONS });
    const timeMs = performance.now() - started;
    const converted = fromOpenAIChat([
      ...(system ? [{ role: 'system', content: system }] : []),
      ...toOpenAIJson(sent, args),
    ]);
    requests.push({
      messageIndex: session.assistantIndexes[ordinal] ?? -1,
      system: converted.system.join('\n\n'),
      messages: converted.messages,
      tools,
      maxOutputTokens: options.maxOutputTokens,
      timeMs,
      summaryCalls: 0,
    });
    history.push(toAssistant(session.assistant(ordinal), args));
  }
  return {
    requests,
    finalMemory: { summary: '', pointers: [] },
    config: { package: 'ai', pruneMessages: PRUNE_OPTIONS, window: 'not used: pruneMessages has no window' },
    notes,
  };
}

function toolResult(toolCallId: string, toolName: string, value: string): ModelMessage {
  return {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId, toolName, output: { type: 'text', value } }],
  };
}

function toAssistant(message: Message, args: ArgsText): ModelMessage {
  const content: Exclude<Extract<ModelMessage, { role: 'assistant' }>['content'], string> = [];
  for (const part of message.parts) {
    if (part.type === 'reasoning') content.push({ type: 'reasoning', text: part.text });
    else if (part.type === 'text') content.push({ type: 'text', text: part.text });
    else if (part.type === 'tool-call') {
      args.remember(part.args);
      content.push({
        type: 'tool-call',
        toolCallId: part.callId,
        toolName: part.name,
        input: argsObject(part.args),
      });
    }
  }
  return { role: 'assistant', content };
}

/** ModelMessages → OpenAI chat JSON, for ctxkit's adapter. */
function toOpenAIJson(messages: readonly ModelMessage[], args: ArgsText): unknown[] {
  const out: unknown[] = [];
  for (const message of messages) {
    if (message.role === 'system') out.push({ role: 'system', content: message.content });
    else if (message.role === 'user') {
      const text =
        typeof message.content === 'string'
          ? message.content
          : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      out.push({ role: 'user', content: text });
    } else if (message.role === 'assistant') {
      const parts =
        typeof message.content === 'string'
          ? [{ type: 'text' as const, text: message.content }]
          : message.content;
      const text: string[] = [];
      const reasoning: string[] = [];
      const calls: unknown[] = [];
      for (const part of parts) {
        if (part.type === 'text') text.push(part.text);
        else if (part.type === 'reasoning') reasoning.push(part.text);
        else if (part.type === 'tool-call') {
          calls.push({
            id: part.toolCallId,
            type: 'function',
            function: { name: part.toolName, arguments: args.text(part.input) },
          });
        }
      }
      out.push({
        role: 'assistant',
        content: text.length === 0 && calls.length > 0 ? null : text.join('\n'),
        ...(reasoning.length > 0 ? { reasoning_content: reasoning.join('\n') } : {}),
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
    } else {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        const output = part.output;
        const value =
          output.type === 'text' || output.type === 'error-text' ? output.value : JSON.stringify(output);
        out.push({ role: 'tool', tool_call_id: part.toolCallId, content: value });
      }
    }
  }
  return out;
}
