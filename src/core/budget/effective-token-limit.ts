/**
 * tiancai's compaction threshold, `Compactor.EffectiveTokenLimit()`:
 *   1. contextWindow − reserveTokens, when the window is set and positive;
 *   2. else maxTokens (a configured budget);
 *   3. else no token threshold (the caller falls back to a message count).
 */
export function effectiveTokenLimit(settings: {
  contextWindow?: number | undefined;
  reserveTokens?: number | undefined;
  maxContextTokens?: number | undefined;
}): number | undefined {
  const window = settings.contextWindow ?? 0;
  if (window > 0) return Math.max(0, window - (settings.reserveTokens ?? 0));
  const budget = settings.maxContextTokens ?? 0;
  return budget > 0 ? budget : undefined;
}

/** tiancai: "KeepRecentTokens is also clamped to at most half of the effective token limit." */
export function clampKeepRecentTokens(keepRecentTokens: number, tokenLimit: number | undefined): number {
  if (tokenLimit === undefined) return keepRecentTokens;
  return Math.min(keepRecentTokens, Math.floor(tokenLimit / 2));
}
