/**
 * Stop reasons that say the model stopped because its context window was full: the request fitted, but
 * input plus the output so far reached the window before the answer was done (Anthropic's
 * `model_context_window_exceeded`, OpenAI Responses' `context_window_exceeded`). Unlike an overflow error
 * the call succeeded and the partial answer is real; the next call needs the room compaction makes.
 * `length` / `max_tokens` are not among them: those are the output cap, which says nothing about the window.
 */
export const CONTEXT_WINDOW_STOP_REASONS: ReadonlySet<string> = new Set([
  'model_context_window_exceeded',
  'context_window_exceeded',
]);

/** Did the model stop because the context window was full? Any spelling (case, hyphens, spaces). */
export function stoppedForContextWindow(stopReason: string | null | undefined): boolean {
  if (typeof stopReason !== 'string') return false;
  const key = stopReason
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  return CONTEXT_WINDOW_STOP_REASONS.has(key);
}
