import { z } from 'zod';
import { isRecord } from '../core/is-record.ts';
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

/** The breakdown's figures, as the schema names them. */
const BREAKDOWN_FIELDS = Object.keys(storedTokenCountSchema.shape.breakdown.shape);

/**
 * What `storedTokenCountSchema` accepts, checked by hand: every message of every append carries one, and
 * the schema's parse built a copy of each only to say yes. `stored-token-count.test.ts` holds the two to
 * the same answers.
 */
export function isStoredTokenCount(value: unknown): value is StoredTokenCount {
  if (!isRecord(value)) return false;
  const { key, breakdown } = value;
  if (typeof key !== 'string' || key.length === 0 || !isRecord(breakdown)) return false;
  for (const field of BREAKDOWN_FIELDS) {
    const figure = breakdown[field];
    if (typeof figure !== 'number' || !Number.isFinite(figure) || figure < 0) return false;
  }
  return true;
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
