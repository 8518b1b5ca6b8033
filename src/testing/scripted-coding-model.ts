/**
 * A model for the fake provider server that works like a coding agent from a script, and judges what it
 * is sent as a provider would: for end-to-end runs of the agent (`ctxkit chat`) without an LLM.
 *
 * - Each user message starts with `[turn N]`; turn N of the script is a list of steps, each step the
 *   tool calls the model makes, then the answer. Where the model is in a turn is read off the request
 *   itself (the tool-call messages after that user message), never from memory, so a client killed and
 *   resumed mid-session gets the reply that comes next.
 * - Every request is measured (ctxkit's replay measure, exact o200k) against `window − max_tokens`: one
 *   over is answered with the provider's real overflow error and counted, as a real server would refuse
 *   it. `forceOverflow(n)` makes the next n requests overflow regardless, to test recovery.
 * - A request carrying ctxkit's summary prompt is answered like a careful summarizer: every file path and
 *   every plan item (`- [ ]` / `- [x]`) in what it was given, in the summary's own format.
 * - Usage reports the measured input, so ctxkit's estimate anchors on true figures.
 */
import { fromAnthropicMessages } from '../adapters/anthropic-messages.ts';
import { fromOpenAIChat } from '../adapters/openai-chat.ts';
import type { Message, Part } from '../core/message.ts';
import type { TokenCounter } from '../core/tokens/token-counter.ts';
import type { ToolDefinition } from '../core/tool-definition.ts';
import { RequestMeasurer } from '../replay/measure-request.ts';
import { SUMMARY_SYSTEM_PROMPT } from '../summarize/summary-prompt.ts';
import { SECTION_TITLES } from '../summarize/summary-sections.ts';
import type { HttpReply, RecordedRequest, ScriptedReply } from './fake-provider-server.ts';
import { anthropicErrors, openAIErrors } from './fake-provider-server-errors.ts';
import { replyFromMessage } from './fake-provider-server-message-reply.ts';

export interface ScriptedToolCall {
  name: string;
  args: Record<string, unknown>;
}

export interface CodingTurn {
  /** The tool calls of each step, in order; a step's calls go out together in one assistant message. */
  steps: ScriptedToolCall[][];
  answer: string;
}

export interface ScriptedModelFigures {
  requests: number;
  /** Requests whose measured input left less than their `max_tokens` in the window. */
  overWindow: number;
  /** Overflow errors sent because `forceOverflow` asked. */
  forcedOverflows: number;
  summaryRequests: number;
  maxInputTokens: number;
  /** Measured input of each agent request, in order (summary requests excluded). */
  inputs: number[];
  /** The last summary written, and every file path and plan item it named. */
  lastSummary: string | undefined;
}

export interface ScriptedCodingModel {
  reply: ScriptedReply;
  figures: ScriptedModelFigures;
  forceOverflow(count?: number): void;
}

const TURN_MARK = /^\[turn (\d+)\]/;
/** Paths as a summarizer would copy them: a directory part and an extension. */
const PATH = /(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z]{1,5}\b/g;
const PLAN_LINE = /^\s*[-*]\s+\[([ xX])\]\s+(.+)$/gm;

export function scriptedCodingModel(options: {
  turns: readonly CodingTurn[];
  window: number;
  counter: TokenCounter;
  /** Turns whose first request is refused as an overflow, once each (a forced overflow mid-session). */
  overflowOnTurns?: readonly number[];
}): ScriptedCodingModel {
  const measurer = new RequestMeasurer(options.counter);
  const figures: ScriptedModelFigures = {
    requests: 0,
    overWindow: 0,
    forcedOverflows: 0,
    summaryRequests: 0,
    maxInputTokens: 0,
    inputs: [],
    lastSummary: undefined,
  };
  let forced = 0;
  let callNumber = 0;
  const overflowTurns = new Set(options.overflowOnTurns ?? []);

  const reply = (request: RecordedRequest): HttpReply | Promise<HttpReply> => {
    figures.requests++;
    const parsed = parseRequest(request);
    const measured = measurer.measure(parsed).total;
    const overflow = () =>
      request.format === 'anthropic'
        ? anthropicErrors.promptTooLong({ tokens: measured + parsed.maxTokens, limit: options.window })
        : openAIErrors.contextLengthExceeded({
            limit: options.window,
            requested: measured + parsed.maxTokens,
          });
    if (measured + parsed.maxTokens > options.window) {
      figures.overWindow++;
      return overflow();
    }
    if (forced > 0) {
      forced--;
      figures.forcedOverflows++;
      return overflow();
    }
    figures.maxInputTokens = Math.max(figures.maxInputTokens, measured);
    const usage = { inputTokens: measured, outputTokens: 40 };
    if (parsed.system.startsWith(SUMMARY_SYSTEM_PROMPT.slice(0, 60))) {
      figures.summaryRequests++;
      const summary = summarize(parsed.messages);
      figures.lastSummary = summary;
      return respond(request, [{ type: 'text', text: summary }], usage);
    }
    const position = positionOf(parsed.messages);
    if (position.step === 0 && overflowTurns.delete(position.turn)) {
      figures.forcedOverflows++;
      return overflow();
    }
    figures.inputs.push(measured);
    return respond(request, nextParts(options.turns, position, ++callNumber), usage);
  };

  return {
    reply,
    figures,
    forceOverflow(count = 1) {
      forced += count;
    },
  };
}

function respond(
  request: RecordedRequest,
  parts: Part[],
  usage: { inputTokens: number; outputTokens: number },
) {
  const answer = replyFromMessage({ parts, usage });
  return typeof answer === 'function' ? answer(request) : answer;
}

interface ParsedRequest {
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
  maxTokens: number;
}

function parseRequest(request: RecordedRequest): ParsedRequest {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const maxTokens = Number(body.max_tokens ?? body.max_completion_tokens ?? 0) || 0;
  if (request.format === 'anthropic') {
    const transcript = fromAnthropicMessages(body);
    const tools = Array.isArray(body.tools)
      ? (body.tools as { name: string; description?: string; input_schema?: Record<string, unknown> }[]).map(
          (tool) => ({
            name: tool.name,
            ...(tool.description !== undefined && { description: tool.description }),
            ...(tool.input_schema !== undefined && { parameters: tool.input_schema }),
          }),
        )
      : [];
    return { system: transcript.system.join('\n\n'), messages: transcript.messages, tools, maxTokens };
  }
  const transcript = fromOpenAIChat(Array.isArray(body.messages) ? body.messages : []);
  const tools = Array.isArray(body.tools)
    ? (
        body.tools as {
          function: { name: string; description?: string; parameters?: Record<string, unknown> };
        }[]
      ).map(({ function: fn }) => ({
        name: fn.name,
        ...(fn.description !== undefined && { description: fn.description }),
        ...(fn.parameters !== undefined && { parameters: fn.parameters }),
      }))
    : [];
  return { system: transcript.system.join('\n\n'), messages: transcript.messages, tools, maxTokens };
}

/** Where the conversation is: the turn its newest `[turn N]` message opened, and the steps taken since. */
function positionOf(messages: readonly Message[]): { turn: number; step: number } {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== 'user') continue;
    const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const match = TURN_MARK.exec(text.trimStart());
    if (!match?.[1]) continue;
    const step = messages
      .slice(index + 1)
      .filter(
        (later) => later.role === 'assistant' && later.parts.some((part) => part.type === 'tool-call'),
      ).length;
    return { turn: Number(match[1]), step };
  }
  return { turn: -1, step: 0 };
}

/** The reply that comes next in the script at that position. */
function nextParts(
  turns: readonly CodingTurn[],
  position: { turn: number; step: number },
  call: number,
): Part[] {
  const turnIndex = position.turn;
  const stepsTaken = position.step;
  const turn = turns[turnIndex];
  if (!turn) return [{ type: 'text', text: 'I have no script for this message.' }];
  const step = turn.steps[stepsTaken];
  if (!step) return [{ type: 'text', text: turn.answer }];
  // The request number keeps call ids unique when a resumed client asks for the same step again.
  return step.map((toolCall, index) => ({
    type: 'tool-call' as const,
    callId: `call_${turnIndex}_${stepsTaken}_${index}_${call}`,
    name: toolCall.name,
    args: JSON.stringify(toolCall.args),
  }));
}

/** A summary in ctxkit's format naming every path and plan item it was given (the newest state of each item). */
function summarize(messages: readonly Message[]): string {
  const text = messages
    .flatMap((message) => message.parts)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');
  const files = [...new Set(text.match(PATH) ?? [])];
  const plan = new Map<string, boolean>();
  for (const match of text.matchAll(PLAN_LINE)) {
    const item = match[2]?.trim();
    if (item) plan.set(item, match[1] !== ' ');
  }
  const list = (items: string[]) =>
    items.length > 0 ? items.map((item) => `- ${item}`).join('\n') : '- none';
  return [
    `## ${SECTION_TITLES.intent}`,
    'Finish the coding task the user set.',
    `## ${SECTION_TITLES.files}`,
    list(files),
    `## ${SECTION_TITLES.plan}`,
    list([...plan].map(([item, done]) => `[${done ? 'x' : ' '}] ${item}`)),
    `## ${SECTION_TITLES.state}`,
    'Work in progress.',
  ].join('\n');
}
