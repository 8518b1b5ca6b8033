/**
 * ctxkit's prompt-cache breakpoints on a prompt the AI SDK sends to Anthropic, as the AI SDK spells them:
 * `providerOptions.anthropic.cacheControl` on the parts (and system messages) where Anthropic's cache
 * should write an entry. The prompt is read as @ai-sdk/anthropic turns it into blocks (tools, then each
 * system message, then every part of every other message, empty text left out), the positions chosen by
 * `placeCacheBreakpoints` with what the middleware remembers of the conversation's earlier calls, and the
 * marks written on copies of the chosen parts. A call whose prompt, tools or settings carry any cache
 * control of their own is sent as it is: its sender chose its marks.
 */
import { hash } from 'node:crypto';
import { CACHE_ESTIMATE_CHARS_PER_TOKEN } from '../../adapters/place-anthropic-cache-marks.ts';
import type { CachePrefixMemory } from '../../core/cache/cache-prefix-memory.ts';
import { type CacheBlock, placeCacheBreakpoints } from '../../core/cache/place-cache-breakpoints.ts';
import { minCacheableTokensFor } from '../../core/cache/prompt-cache-rules.ts';
import { isRecord } from '../../core/is-record.ts';

/** The mark @ai-sdk/anthropic turns into `cache_control: { type: 'ephemeral' }`: a 5-minute entry. */
export const AI_SDK_ANTHROPIC_CACHE_CONTROL: Readonly<{ type: 'ephemeral' }> = Object.freeze({
  type: 'ephemeral',
});

/** Parts Anthropic lets carry a mark: thinking may not, and a part type not listed is not relied on. */
const CACHEABLE_PARTS = new Set(['text', 'file', 'tool-call', 'tool-result']);

type Record_ = Record<string, unknown>;

interface BlockRef {
  message: number;
  /** The part's index in its message's content; -1 for a system message (its content is its text). */
  part: number;
}

export interface AiSdkCacheMarks<Prompt> {
  prompt: Prompt;
  /** Records the call in the memory: once its answer has begun (an entry exists from then). */
  remember(): void;
}

/** Whether the call marks anything itself: its settings, its tools, a message or a part. */
export function callHasCacheControl(call: {
  prompt: readonly unknown[];
  tools?: readonly unknown[] | undefined;
  providerOptions?: unknown;
}): boolean {
  if (carriesMark(call.providerOptions)) return true;
  if (call.tools?.some((tool) => isRecord(tool) && carriesMark(tool.providerOptions))) return true;
  for (const message of call.prompt) {
    if (!isRecord(message)) continue;
    if (carriesMark(message.providerOptions)) return true;
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isRecord(part)) continue;
      if (carriesMark(part.providerOptions)) return true;
      // A tool result's output may carry its own options (AI SDK 7).
      if (isRecord(part.output) && carriesMark(part.output.providerOptions)) return true;
    }
  }
  return false;
}

/**
 * The prompt with ctxkit's marks, for a model of `modelId` whose calls offer `tools`: at most four, on
 * parts that may carry one, where the prefix reaches the model's minimum.
 */
export function markAiSdkPromptForAnthropicCache<Prompt extends readonly unknown[]>(
  prompt: Prompt,
  options: {
    tools?: readonly unknown[] | undefined;
    modelId: string;
    memory: CachePrefixMemory;
    nowMs?: number;
  },
): AiSdkCacheMarks<Prompt> {
  const blocks: CacheBlock[] = [];
  const refs: (BlockRef | undefined)[] = [];
  const prefixKeys: string[] = [];
  let prefixKey = '';
  const add = (json: string, cacheable: boolean, ref: BlockRef | undefined) => {
    prefixKey = hash('sha1', `${prefixKey}${json}`, 'base64').slice(0, 16);
    prefixKeys.push(prefixKey);
    blocks.push({ tokens: Math.ceil(json.length / CACHE_ESTIMATE_CHARS_PER_TOKEN), cacheable });
    refs.push(ref);
  };
  // A tool's mark is set on the tool, which the call's settings hold: the prompt's first mark covers them.
  for (const tool of options.tools ?? []) add(JSON.stringify(tool) ?? '', false, undefined);
  let fixedBlocks = blocks.length;
  let systemDone = false;
  prompt.forEach((message, index) => {
    if (!isRecord(message)) return;
    if (message.role === 'system') {
      const text = typeof message.content === 'string' ? message.content : '';
      add(JSON.stringify(text), text !== '', { message: index, part: -1 });
      if (!systemDone) fixedBlocks = blocks.length;
      return;
    }
    systemDone = true;
    if (!Array.isArray(message.content)) return;
    message.content.forEach((part, position) => {
      if (!isRecord(part) || typeof part.type !== 'string') return;
      // @ai-sdk/anthropic leaves empty text out of the request.
      if (part.type === 'text' && part.text === '') return;
      const { providerOptions: _options, ...content } = part;
      add(JSON.stringify(content) ?? '', CACHEABLE_PARTS.has(part.type), { message: index, part: position });
    });
  });
  const nowMs = options.nowMs ?? Date.now();
  const previous = options.memory.recall(prefixKeys, nowMs);
  const breakpoints = placeCacheBreakpoints({
    blocks,
    fixedBlocks,
    minTokens: minCacheableTokensFor(options.modelId),
    ...(previous !== undefined && {
      sharedWithPrevious: previous.shared,
      previousBreakpoints: previous.breakpoints,
      writtenPositions: previous.written,
    }),
  });
  const marked = [...prompt] as unknown[];
  for (const at of breakpoints) {
    const ref = refs[at];
    if (!ref) continue;
    const message = marked[ref.message] as Record_;
    if (ref.part < 0) {
      marked[ref.message] = { ...message, providerOptions: withMark(message.providerOptions) };
      continue;
    }
    const content = [...(message.content as unknown[])];
    const part = content[ref.part] as Record_;
    content[ref.part] = { ...part, providerOptions: withMark(part.providerOptions) };
    marked[ref.message] = { ...message, content };
  }
  return {
    prompt: marked as unknown as Prompt,
    remember: () =>
      options.memory.remember(prefixKeys, breakpoints, fixedBlocks, options.nowMs ?? Date.now()),
  };
}

function withMark(providerOptions: unknown): Record_ {
  const options = isRecord(providerOptions) ? providerOptions : {};
  const anthropic = isRecord(options.anthropic) ? options.anthropic : {};
  return { ...options, anthropic: { ...anthropic, cacheControl: { ...AI_SDK_ANTHROPIC_CACHE_CONTROL } } };
}

function carriesMark(providerOptions: unknown): boolean {
  if (!isRecord(providerOptions)) return false;
  return Object.values(providerOptions).some(
    (options) =>
      isRecord(options) &&
      ((options.cacheControl !== undefined && options.cacheControl !== null) ||
        (options.cache_control !== undefined && options.cache_control !== null)),
  );
}
