import { z } from 'zod';
import type { TokenBreakdown } from '../core/tokens/token-breakdown.ts';

// Flat figures (overhead, media) are configurable and need not be whole.
const count = z.number().nonnegative();

/** A token count as the stores keep it beside a message (see `StoredTokenCount`). */
export const storedTokenCountSchema = z.object({
  key: z.string().min(1),
  breakdown: z.object({
    text: count,
    reasoning: count,
    toolCalls: count,
    toolResults: count,
    media: count,
    overhead: count,
    total: count,
  }),
});

export function isStoredTokenCount(value: unknown): value is StoredTokenCount {
  return storedTokenCountSchema.safeParse(value).success;
}

/** The stored text of a count back as one; undefined when it is not one. */
export function parseStoredTokenCount(text: string): StoredTokenCount | undefined {
  try {
    const parsed = storedTokenCountSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** An exact token count of a logged message, made under `key` (counter and framing, see `MessageTokenCache.countKey`). */
export interface StoredTokenCount {
  key: string;
  breakdown: TokenBreakdown;
}
