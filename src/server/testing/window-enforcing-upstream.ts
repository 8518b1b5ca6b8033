/**
 * An upstream for proxy tests that holds a small context window the way a provider does: the fake
 * provider server (real HTTP, both wire formats, SSE for `stream: true`) with a fallback that measures
 * every model request (ctxkit's replay measure, exact o200k, as `scripted-coding-model.ts` measures)
 * against `window − max_tokens`. A request over it is refused with the provider's own overflow error and
 * counted; any other is answered, in the request's format, with a short text (or the reply a test set
 * with `answerWith`) whose usage is the measured input.
 *
 * The window is also served where local servers say it (Ollama `/api/show` `num_ctx` for each model
 * named), so a proxy that asks the upstream learns the window it is held to.
 *
 * Anthropic requests are held to the API's rules too (the fake server's strict checks): tool calls paired
 * with their results, no empty content, at most four cache breakpoints, and thinking exactly as this
 * upstream signed it (`signer`; a client replaying a recorded session signs its thinking with it).
 */
import { fromAnthropicMessages } from '../../adapters/anthropic-messages.ts';
import { fromOpenAIChat } from '../../adapters/openai-chat.ts';
import type { Message, Part } from '../../core/message.ts';
import { createExactCounter } from '../../core/tokens/exact-counter.ts';
import type { ToolDefinition } from '../../core/tool-definition.ts';
import { RequestMeasurer } from '../../replay/measure-request.ts';
import {
  type FakeProviderServer,
  type HttpReply,
  type RecordedRequest,
  startFakeProviderServer,
} from '../../testing/fake-provider-server.ts';
import { anthropicErrors, openAIErrors } from '../../testing/fake-provider-server-errors.ts';
import {
  anthropicReplyFromMessage,
  openAIReplyFromMessage,
} from '../../testing/fake-provider-server-replies.ts';
import { createThinkingSigner, type ThinkingSigner } from '../../testing/thinking-signer.ts';

export type ModelWireFormat = 'openai' | 'anthropic';

/** A model request as the window judges it. */
export interface MeasuredWireRequest {
  format: ModelWireFormat;
  /** Tools, system prompt and messages, counted as `RequestMeasurer` counts them. */
  input: number;
  /** `max_tokens` (or `max_completion_tokens`); 0 when the request sets none. */
  maxTokens: number;
}

export interface UpstreamRequestFigure extends MeasuredWireRequest {
  /** The request left less than its `max_tokens` in the window, and was refused as an overflow. */
  overWindow: boolean;
  /** The credential headers it came with (a test checks the client's key arrives only there). */
  authorization: string | undefined;
  apiKey: string | undefined;
  rawBody: string;
  /** Every other header, joined: to check no credential travels anywhere else. */
  otherHeaders: string;
}

export interface WindowEnforcingUpstream {
  readonly server: FakeProviderServer;
  readonly window: number;
  /** Signs the thinking of its Anthropic answers; thinking it did not sign is refused. */
  readonly signer: ThinkingSigner;
  /** One entry per model request received (window routes excluded), oldest first. */
  readonly requests: readonly UpstreamRequestFigure[];
  /**
   * What the model answers with from now on: a recorded assistant message's parts, so a client that
   * appends the reply it got continues the recorded conversation. `undefined`: the short default text.
   */
  answerWith(parts: readonly Part[] | undefined): void;
  close(): Promise<void>;
}

/** The default answer: short, so the history grows by what the recorded session adds, not by replies. */
export const DEFAULT_ANSWER = 'Noted.';
/** What a default answer reports as its output. */
const ANSWER_OUTPUT_TOKENS = 3;

export async function startWindowEnforcingUpstream(options: {
  window: number;
  /** Models whose window the upstream serves (Ollama `/api/show` `num_ctx`). */
  models: readonly string[];
  measurer?: RequestMeasurer;
}): Promise<WindowEnforcingUpstream> {
  const measurer = options.measurer ?? new RequestMeasurer(createExactCounter('o200k'));
  const signer = createThinkingSigner();
  const requests: UpstreamRequestFigure[] = [];
  let answerParts: readonly Part[] | undefined;

  const reply = (request: RecordedRequest): HttpReply => {
    const format = request.format === 'anthropic' ? 'anthropic' : 'openai';
    const measured = measureWireRequest(measurer, format, request.body);
    const overWindow = measured.input + measured.maxTokens > options.window;
    requests.push({
      ...measured,
      overWindow,
      authorization: request.headers.authorization,
      apiKey: request.headers['x-api-key'],
      rawBody: request.rawBody,
      otherHeaders: Object.entries(request.headers)
        .filter(([name]) => name !== 'authorization' && name !== 'x-api-key')
        .map(([name, value]) => `${name}: ${value}`)
        .join('\n'),
    });
    if (overWindow) {
      // The figures the providers put in their messages: what was asked for, and the limit.
      return format === 'anthropic'
        ? anthropicErrors.promptTooLong({
            tokens: measured.input + measured.maxTokens,
            limit: options.window,
          })
        : openAIErrors.contextLengthExceeded({
            limit: options.window,
            requested: measured.input + measured.maxTokens,
          });
    }
    const parts = answerParts ?? [{ type: 'text', text: DEFAULT_ANSWER }];
    const message = {
      parts: [...parts],
      usage: { inputTokens: measured.input, outputTokens: ANSWER_OUTPUT_TOKENS },
    };
    // The server turns the plain reply into its stream form when the request asked to stream.
    return format === 'anthropic' ? anthropicReplyFromMessage(message) : openAIReplyFromMessage(message);
  };

  const server = await startFakeProviderServer({
    thinkingSigner: signer,
    fallback: reply,
    servedWindows: {
      ollamaShow: Object.fromEntries(
        options.models.map((model) => [model, { numCtx: options.window, contextLength: 131_072 }]),
      ),
    },
  });
  return {
    server,
    window: options.window,
    signer,
    requests,
    answerWith(parts) {
      answerParts = parts;
    },
    close: () => server.close(),
  };
}

/** Measures a Chat Completions or Messages body as the window judges it. */
export function measureWireRequest(
  measurer: RequestMeasurer,
  format: ModelWireFormat,
  body: unknown,
): MeasuredWireRequest {
  const request = isRecord(body) ? body : {};
  const maxTokens = Number(request.max_tokens ?? request.max_completion_tokens ?? 0) || 0;
  const parsed = format === 'anthropic' ? readAnthropic(request) : readOpenAI(request);
  return { format, input: measurer.measure(parsed).total, maxTokens };
}

interface ReadRequest {
  system: string;
  messages: Message[];
  tools: ToolDefinition[];
}

function readAnthropic(body: Record<string, unknown>): ReadRequest {
  const transcript = fromAnthropicMessages(body);
  const tools = arrayOf(body.tools).map((tool) => ({
    name: String(tool.name),
    ...(typeof tool.description === 'string' && { description: tool.description }),
    ...(isRecord(tool.input_schema) && { parameters: tool.input_schema }),
  }));
  return { system: transcript.system.join('\n\n'), messages: transcript.messages, tools };
}

function readOpenAI(body: Record<string, unknown>): ReadRequest {
  const transcript = fromOpenAIChat(Array.isArray(body.messages) ? body.messages : []);
  const tools = arrayOf(body.tools).map((tool) => {
    const fn = isRecord(tool.function) ? tool.function : {};
    return {
      name: String(fn.name),
      ...(typeof fn.description === 'string' && { description: fn.description }),
      ...(isRecord(fn.parameters) && { parameters: fn.parameters }),
    };
  });
  return { system: transcript.system.join('\n\n'), messages: transcript.messages, tools };
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
