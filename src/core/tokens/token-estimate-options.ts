import { InvalidTokenCounterError } from '../errors/index.ts';

/**
 * Role label and JSON structure around each message (`{"role":"tool","tool_call_id":…,"content":…}`).
 * OpenAI documents 3–4 tokens of framing per chat message; 4 keeps the estimate on the safe side.
 */
export const DEFAULT_MESSAGE_OVERHEAD_TOKENS = 4;

/**
 * tiancai: "images approximated as ~1200 tokens". picoclaw adds it flat, not through the character
 * heuristic, because the real cost depends on resolution and on the provider's image tokenizer.
 */
export const DEFAULT_MEDIA_TOKENS = 1_200;

/**
 * The `type` every tool call carries on the wire (OpenAI's `"type": "function"`; ctxkit's parts do not
 * store it, it is always this). picoclaw counts it ("ToolCalls — ID, type, function name, arguments");
 * off by default, where the per-message framing stands for it.
 */
export const TOOL_CALL_TYPE = 'function';
export const DEFAULT_COUNT_TOOL_CALL_TYPE = false;

export interface TokenEstimateOptions {
  /** Tokens added per message for its framing. Default {@link DEFAULT_MESSAGE_OVERHEAD_TOKENS}. */
  messageOverheadTokens?: number;
  /** Tokens per media item without its own `tokens` figure. Default {@link DEFAULT_MEDIA_TOKENS}. */
  mediaTokens?: number;
  /** Count each tool call's {@link TOOL_CALL_TYPE} as text. Default {@link DEFAULT_COUNT_TOOL_CALL_TYPE}. */
  countToolCallType?: boolean;
}

export type ResolvedTokenEstimateOptions = Required<TokenEstimateOptions>;

export function resolveTokenEstimateOptions(
  options: TokenEstimateOptions = {},
): ResolvedTokenEstimateOptions {
  const resolved = {
    messageOverheadTokens: options.messageOverheadTokens ?? DEFAULT_MESSAGE_OVERHEAD_TOKENS,
    mediaTokens: options.mediaTokens ?? DEFAULT_MEDIA_TOKENS,
  };
  for (const [field, value] of Object.entries(resolved)) {
    if (!Number.isFinite(value) || value < 0) {
      throw new InvalidTokenCounterError(field, `must be a finite number ≥ 0, got ${String(value)}`);
    }
  }
  const countToolCallType = options.countToolCallType ?? DEFAULT_COUNT_TOOL_CALL_TYPE;
  if (typeof countToolCallType !== 'boolean') {
    throw new InvalidTokenCounterError(
      'countToolCallType',
      `must be true or false, got ${String(countToolCallType)}`,
    );
  }
  return { ...resolved, countToolCallType };
}
