/** picoclaw: "Current default when not explicitly configured: ContextWindow = MaxTokens * 4." */
export const CONTEXT_WINDOW_PER_MAX_OUTPUT = 4;

/**
 * ContextWindow and MaxTokens are distinct settings (picoclaw): the window is the model's input
 * capacity, max output the generation limit reserved from it. An explicit window wins; otherwise a
 * known max output implies a window of 4 × max output; otherwise it is unknown here (the caller looks
 * the model up or reports an error).
 */
export function windowFromSettings(settings: {
  contextWindow?: number | undefined;
  maxOutputTokens?: number | undefined;
}): number | undefined {
  if (settings.contextWindow !== undefined && settings.contextWindow > 0) return settings.contextWindow;
  if (settings.maxOutputTokens !== undefined && settings.maxOutputTokens > 0) {
    return settings.maxOutputTokens * CONTEXT_WINDOW_PER_MAX_OUTPUT;
  }
  return undefined;
}
