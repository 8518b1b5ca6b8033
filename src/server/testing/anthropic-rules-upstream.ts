/**
 * A stand-in for Anthropic's Messages API that refuses what the real one refuses, for tests that must
 * prove a proxy never sends it anything it would not take: the fake provider server (real HTTP, JSON and
 * the API's exact event sequence for `stream: true`) with
 *
 * - the API's request rules (anthropic-request-rules.ts): tool calls and results paired, no empty content
 *   or text block, a user message first, at most four `cache_control` breakpoints (a top-level one
 *   counted), none on a thinking block;
 * - its thinking signed and checked (thinking-signer.ts): every thinking block it answers with carries a
 *   signature made for its text, every redacted block data it issued, and a request is refused when a
 *   thinking block differs by a byte from what it issued, or when, with thinking on, the last assistant
 *   message of a tool loop does not start with its thinking;
 * - its context window: every request counted with a real tokenizer (anthropic-token-count.ts), and one
 *   over the window refused with the API's "prompt is too long" (or, when the input fits but not beside
 *   `max_tokens`, "input length and `max_tokens` exceed context limit").
 *
 * Refusals are the API's own bodies (`{"type":"error","error":{"type":"invalid_request_error",…}}`).
 * Every request is recorded with what it held and how it was answered. The model answers with what a
 * test sets (`answerWith`), its usage the counted input, so a client learns the tokenizer's ratio from it.
 */
import {
  type AnthropicTokenCounter,
  createAnthropicTokenCounter,
} from '../../testing/anthropic-token-count.ts';
import {
  type FakeProviderServer,
  type RecordedRequest,
  startFakeProviderServer,
} from '../../testing/fake-provider-server.ts';
import { anthropicErrors } from '../../testing/fake-provider-server-errors.ts';
import { anthropicReply, type FakeAnthropicBlock } from '../../testing/fake-provider-server-replies.ts';
import { createThinkingSigner, type ThinkingSigner } from '../../testing/thinking-signer.ts';

/** One Messages request the stand-in received, and its verdict. */
export interface AnthropicUpstreamRequest {
  body: Record<string, unknown>;
  /** The query string with its `?`, or empty. */
  search: string;
  /** Lower-case names, as the server got them. */
  headers: Record<string, string>;
  stream: boolean;
  /** The input as the stand-in counts it (Claude tokens). */
  inputTokens: number;
  maxTokens: number;
  /** The API's message when the request was refused; undefined when it was answered. */
  refusal: string | undefined;
}

export interface AnthropicRulesUpstream {
  readonly server: FakeProviderServer;
  /** `baseURL` for the Anthropic SDK, and `upstreamAnthropic` for the proxy. */
  readonly baseUrl: string;
  readonly window: number;
  readonly signer: ThinkingSigner;
  /** Every Messages request, oldest first (recomputed on each read). */
  readonly requests: readonly AnthropicUpstreamRequest[];
  /**
   * What the model answers with from now on: blocks, or blocks chosen from the request's body (to call a
   * tool the request offers). Thinking is signed as it leaves.
   */
  answerWith(answer: RulesAnswer): void;
  close(): Promise<void>;
}

export interface AnthropicRulesUpstreamOptions {
  /** The model's context window, in the stand-in's tokens. */
  window: number;
  /** Share one with another stand-in to have each accept the other's thinking. Default a fresh one. */
  signer?: ThinkingSigner;
  counter?: AnthropicTokenCounter;
}

export type RulesAnswer =
  | readonly FakeAnthropicBlock[]
  | ((body: Record<string, unknown>) => readonly FakeAnthropicBlock[]);

/** What the model answers before a test says otherwise. */
export const DEFAULT_RULES_ANSWER: readonly FakeAnthropicBlock[] = [{ type: 'text', text: 'Done.' }];

export async function startAnthropicRulesUpstream(
  options: AnthropicRulesUpstreamOptions,
): Promise<AnthropicRulesUpstream> {
  const signer = options.signer ?? createThinkingSigner();
  const count = options.counter ?? createAnthropicTokenCounter();
  let answer: RulesAnswer = DEFAULT_RULES_ANSWER;

  const server = await startFakeProviderServer({
    thinkingSigner: signer,
    fallback: (request) => {
      const input = count(request.body);
      const maxTokens = maxTokensOf(request);
      if (input > options.window) {
        const refused = anthropicErrors.promptTooLong({ tokens: input, limit: options.window });
        request.refusal = messageOf(refused.body);
        return refused;
      }
      if (input + maxTokens > options.window) {
        const refused = anthropicErrors.contextLimitExceeded({ input, maxTokens, limit: options.window });
        request.refusal = messageOf(refused.body);
        return refused;
      }
      const blocks =
        typeof answer === 'function' ? answer(isRecord(request.body) ? request.body : {}) : answer;
      return anthropicReply({
        content: [...blocks],
        model: modelOf(request),
        usage: { inputTokens: input, outputTokens: outputTokens(blocks) },
      });
    },
  });

  return {
    server,
    baseUrl: server.anthropicBaseUrl,
    window: options.window,
    signer,
    get requests() {
      return server.requests
        .filter((request) => request.format === 'anthropic')
        .map((request) => ({
          body: isRecord(request.body) ? request.body : {},
          search: request.search ?? '',
          headers: request.headers,
          stream: isRecord(request.body) && request.body.stream === true,
          inputTokens: count(request.body),
          maxTokens: maxTokensOf(request),
          refusal: request.refusal,
        }));
    },
    answerWith(next) {
      answer = next;
    },
    close: () => server.close(),
  };
}

function maxTokensOf(request: RecordedRequest): number {
  return isRecord(request.body) && typeof request.body.max_tokens === 'number' ? request.body.max_tokens : 0;
}

function modelOf(request: RecordedRequest): string | undefined {
  return isRecord(request.body) && typeof request.body.model === 'string' ? request.body.model : undefined;
}

/** A rough output figure: a quarter token per character of what the answer says. */
function outputTokens(blocks: readonly FakeAnthropicBlock[]): number {
  const text = blocks
    .map((block) =>
      block.type === 'text'
        ? block.text
        : block.type === 'thinking'
          ? block.thinking
          : block.type === 'tool_use'
            ? JSON.stringify(block.input)
            : '',
    )
    .join('');
  return Math.max(1, Math.ceil(text.length / 4));
}

function messageOf(body: unknown): string {
  return isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string'
    ? body.error.message
    : '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
