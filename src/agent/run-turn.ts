/**
 * The agent loop (seed 000's `maxSteps`, DESIGN "Agent"): one user message in, at most `maxSteps` model
 * calls out. Every call goes through `prepare`, so the request always fits; the answer and each tool
 * result are appended (ctxkit normalizes large results as they arrive); a provider's overflow goes
 * through `retryAfterOverflow`, which does what the policy says at each overflow in a row; `afterTurn`
 * runs when the turn ends, whatever ended it. Tools the model asks for run one after another, in the
 * order asked, so a tool that asks the person something never talks over another.
 */
import { ModelCallAbortedError, ModelCallError } from '../core/errors/index.ts';
import type { ContextEvent } from '../core/events.ts';
import type { Message, MessageInput, ToolCallPart, Usage } from '../core/message.ts';
import type { PrepareRequest } from '../engine/call-context.ts';
import type { ContextManager } from '../engine/context-manager.ts';
import type { ModelClient, ModelResponse } from '../providers/model-client.ts';
import { stoppedForContextWindow } from '../providers/stop-reasons.ts';
import type { AgentEvent, TurnResult, TurnStopReason } from './agent-events.ts';
import type { AgentTool, AgentToolContext, ConfirmRequest } from './agent-tool.ts';

/** Model calls per turn when the caller does not say (seed 000: `max_steps`, default 15). */
export const DEFAULT_MAX_STEPS = 15;

export interface AgentConfig {
  manager: ContextManager;
  client: ModelClient;
  model: string;
  /** The system prompt the caller wants; ctxkit appends its indexes (skills, memory) to it. */
  system?: string;
  tools?: readonly AgentTool[];
  /** Default DEFAULT_MAX_STEPS. */
  maxSteps?: number;
  /** The model's window and output reserve for every call (else the manager's policy and profiles decide). */
  contextWindow?: number;
  maxOutputTokens?: number;
  temperature?: number;
  /** Asked before a tool changes the workspace; without it every such change is refused. */
  confirm?: (request: ConfirmRequest) => Promise<boolean>;
  onEvent?: (event: AgentEvent) => void;
}

export interface TurnOptions {
  /** Cancels the call or tool in flight; the turn then ends with `aborted`, the session intact. */
  signal?: AbortSignal;
}

const ZERO_USAGE: Usage = { inputTokens: 0, outputTokens: 0 };

/** Runs one turn of the agent on a session: the user's message, then model calls and tools until done. */
export async function runTurn(
  config: AgentConfig,
  sessionId: string,
  userText: string,
  options: TurnOptions = {},
): Promise<TurnResult> {
  const { manager } = config;
  const emit = config.onEvent ?? (() => {});
  const signal = options.signal ?? new AbortController().signal;
  const forward = (events: readonly ContextEvent[]) => {
    for (const event of events) emit({ type: 'context', event });
  };
  const appendAll = async (messages: MessageInput[]) =>
    forward((await manager.append(sessionId, messages)).events);

  await appendAll([{ role: 'user', parts: [{ type: 'text', text: userText }] }]);
  const tools = config.tools ?? [];
  const byName = new Map(tools.map((tool) => [tool.definition.name, tool]));
  const definitions = tools.map((tool) => tool.definition);
  const maxSteps = Math.max(1, config.maxSteps ?? DEFAULT_MAX_STEPS);
  let usage = ZERO_USAGE;
  let text = '';
  let steps = 0;
  let stopReason: TurnStopReason = 'step_limit';
  // The window this turn's calls are prepared for: the caller's, until a provider says it is smaller.
  const window = { contextWindow: config.contextWindow, maxOutputTokens: config.maxOutputTokens };
  try {
    while (steps < maxSteps) {
      if (signal.aborted) {
        stopReason = 'aborted';
        break;
      }
      steps++;
      const response = await callModel(config, window, sessionId, steps, definitions, signal, emit, forward);
      if (!response) {
        stopReason = 'aborted';
        break;
      }
      usage = addUsage(usage, response.usage);
      await appendAll([response.message]);
      emit({ type: 'step-end', step: steps, usage: response.usage, stopReason: response.stopReason });
      text = textOf(response.message);
      if (stoppedForContextWindow(response.stopReason)) {
        // The answer is real but cut short by the window itself: the policy's emergency steps free room
        // now for the next turn. No overflow is counted: the request fitted, the next one starts afresh.
        forward((await manager.emergencyCompact(sessionId)).events);
        await answerOpenCalls(response.message, appendAll);
        stopReason = 'window_full';
        break;
      }
      const calls = response.message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
      if (calls.length === 0) {
        stopReason = 'answered';
        break;
      }
      const context: AgentToolContext = {
        sessionId,
        signal,
        confirm: config.confirm ?? (async () => false),
      };
      for (const call of calls) {
        const result = signal.aborted
          ? { content: 'Cancelled by the user before it ran.', isError: true }
          : await runTool(byName.get(call.name), call, context);
        emit({ type: 'tool-result', callId: call.callId, name: call.name, ...result });
        // Each result goes in as it comes: a crash mid-step loses no finished work, and every call the
        // model made is answered (a cancelled one says so), so no call is ever left open.
        await appendAll([
          { role: 'tool', parts: [{ type: 'tool-result', callId: call.callId, name: call.name, ...result }] },
        ]);
      }
      if (signal.aborted) {
        stopReason = 'aborted';
        break;
      }
    }
  } finally {
    // However the loop stopped (an answer, the step limit, an abort, a full window), the turn is over.
    const after = await manager.afterTurn(sessionId, { turnEnded: true });
    forward(after.events);
  }
  return { stopReason, steps, text, usage };
}

/**
 * One model call, streamed: prepare and send; on a reported overflow, what the policy says at that
 * overflow in a row (`retryAfterOverflow`: a smaller window the provider named, compaction, a reset),
 * sent again until ctxkit can send nothing smaller; then the provider's error stands.
 * Returns undefined when the person aborted it (nothing of the partial answer is kept: the model is
 * asked again next turn).
 */
async function callModel(
  config: AgentConfig,
  window: { contextWindow: number | undefined; maxOutputTokens: number | undefined },
  sessionId: string,
  step: number,
  tools: AgentTool['definition'][],
  signal: AbortSignal,
  emit: (event: AgentEvent) => void,
  forward: (events: readonly ContextEvent[]) => void,
): Promise<ModelResponse | undefined> {
  const { manager, client } = config;
  const request: PrepareRequest = {
    ...(config.system !== undefined && { system: config.system }),
    tools,
    model: config.model,
    ...(window.contextWindow !== undefined && { contextWindow: window.contextWindow }),
    ...(window.maxOutputTokens !== undefined && { maxOutputTokens: window.maxOutputTokens }),
  };
  let prepared = await manager.prepare(sessionId, request);
  let events: readonly ContextEvent[] = prepared.events;
  for (;;) {
    forward(events);
    emit({ type: 'step-start', step, stats: prepared.stats });
    try {
      let response: ModelResponse | undefined;
      for await (const event of client.stream({
        model: config.model,
        system: prepared.system,
        messages: prepared.messages,
        tools,
        maxOutputTokens: prepared.stats.maxOutputTokens,
        ...(config.temperature !== undefined && { temperature: config.temperature }),
        signal,
      })) {
        switch (event.type) {
          case 'text-delta':
          case 'reasoning-delta':
            emit(event);
            break;
          case 'response':
            response = event.response;
            break;
          default:
            break;
        }
      }
      if (!response) throw new ModelCallError(`${client.provider}: the stream ended without a response`);
      for (const part of response.message.parts) {
        if (part.type === 'tool-call')
          emit({ type: 'tool-call', callId: part.callId, name: part.name, args: part.args });
      }
      return response;
    } catch (error) {
      if (signal.aborted || ModelCallAbortedError.isInstance(error)) return undefined;
      const next = await manager.retryAfterOverflow(sessionId, error, ({ adoptedWindow }) => {
        if (adoptedWindow === undefined) return request;
        // The provider named a smaller window (a server loaded with less than its profile says): the
        // session uses it from now on. The loop sends the reply reserve itself: one that would leave
        // less than half of that window for the input is cut to a quarter of it.
        request.contextWindow = adoptedWindow;
        if (request.maxOutputTokens !== undefined && request.maxOutputTokens * 2 > adoptedWindow)
          request.maxOutputTokens = Math.max(1, Math.floor(adoptedWindow / 4));
        return request;
      });
      if (!next.overflow) throw error;
      if (next.adoptedWindow !== undefined) {
        window.contextWindow = next.adoptedWindow;
        window.maxOutputTokens = request.maxOutputTokens;
        emit({ type: 'window-learned', contextWindow: next.adoptedWindow });
      }
      if (!next.retry) {
        forward(next.events);
        throw error;
      }
      emit({
        type: 'overflow-recovered',
        step,
        error: error instanceof Error ? error.message : String(error),
      });
      prepared = next.retry;
      events = next.events;
    }
  }
}

/** Tool calls of an answer that will not run (the window filled mid-answer) are answered as such. */
async function answerOpenCalls(
  message: Message,
  appendAll: (messages: MessageInput[]) => Promise<void>,
): Promise<void> {
  const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call');
  for (const call of calls) {
    await appendAll([
      {
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            callId: call.callId,
            name: call.name,
            content: 'Not run: the context window filled up before the call was complete. Ask for it again.',
            isError: true,
          },
        ],
      },
    ]);
  }
}

async function runTool(
  tool: AgentTool | undefined,
  call: ToolCallPart,
  context: AgentToolContext,
): Promise<{ content: string; isError: boolean }> {
  if (!tool) return { content: `Unknown tool "${call.name}": use one of the tools offered.`, isError: true };
  let args: unknown;
  try {
    args = call.args.trim() === '' ? {} : (JSON.parse(call.args) as unknown);
  } catch (error) {
    return {
      content: `The arguments are not valid JSON (${error instanceof Error ? error.message : String(error)}); call ${call.name} again with a JSON object.`,
      isError: true,
    };
  }
  try {
    return await tool.run(args, context);
  } catch (error) {
    // A tool's own failure is the model's to read and act on, not the end of the turn.
    return {
      content: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
}

function textOf(message: Message): string {
  return message.parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

function addUsage(total: Usage, usage: Usage): Usage {
  const sum = (a: number | undefined, b: number | undefined) =>
    a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
  const cacheRead = sum(total.cacheReadTokens, usage.cacheReadTokens);
  const cacheWrite = sum(total.cacheWriteTokens, usage.cacheWriteTokens);
  const reasoning = sum(total.reasoningTokens, usage.reasoningTokens);
  return {
    inputTokens: total.inputTokens + usage.inputTokens,
    outputTokens: total.outputTokens + usage.outputTokens,
    ...(cacheRead !== undefined && { cacheReadTokens: cacheRead }),
    ...(cacheWrite !== undefined && { cacheWriteTokens: cacheWrite }),
    ...(reasoning !== undefined && { reasoningTokens: reasoning }),
  };
}
