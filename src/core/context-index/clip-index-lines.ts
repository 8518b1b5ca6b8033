/**
 * An index (the memory index, the skills index) is in every request, so it has a cap: past it, whole
 * lines are kept from the head and the tail and one notice line between them says how many were left
 * out and how to read them all. Lines are never cut: half an entry reads as a different entry.
 */

export interface ClipIndexOptions {
  /** Tokens the kept lines and the notice may take. */
  maxTokens: number;
  /** Share of the room kept from the head; the rest from the tail (1: head only). */
  headFraction: number;
  count: (text: string) => number;
  /** The notice put where lines were left out. */
  notice: (omitted: number, total: number) => string;
}

export interface ClippedIndex {
  /** The lines shown, the notice among them; empty when not even the notice fits the cap. */
  lines: string[];
  /** Lines left out (0 when everything fit). */
  omitted: number;
}

export function clipIndexLines(lines: readonly string[], options: ClipIndexOptions): ClippedIndex {
  const costs = lines.map((line) => options.count(`${line}\n`));
  const total = costs.reduce((sum, cost) => sum + cost, 0);
  if (total <= options.maxTokens) return { lines: [...lines], omitted: 0 };
  // The longest notice this index can need: `omitted` has at most as many digits as the total.
  const room = options.maxTokens - options.count(`${options.notice(lines.length, lines.length)}\n`);
  // Not even the notice fits: nothing is shown, rather than a notice past the cap.
  if (room < 0) return { lines: [], omitted: lines.length };
  const headFraction = Math.min(1, Math.max(0, options.headFraction));
  const headRoom = Math.floor(room * headFraction);
  let head = 0;
  let used = 0;
  while (head < lines.length && used + (costs[head] ?? 0) <= headRoom) used += costs[head++] ?? 0;
  let tail = lines.length;
  // A head-only index (headFraction 1) ends with its notice: no line may follow it.
  if (headFraction < 1)
    while (tail > head && used + (costs[tail - 1] ?? 0) <= room) used += costs[--tail] ?? 0;
  const omitted = tail - head;
  return {
    lines: [...lines.slice(0, head), options.notice(omitted, lines.length), ...lines.slice(tail)],
    omitted,
  };
}
