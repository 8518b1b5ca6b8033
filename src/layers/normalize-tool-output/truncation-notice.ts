import type { LimitedOutput } from './apply-output-limits.ts';

const WHERE: Record<Exclude<LimitedOutput['kept'], 'all'>, string> = {
  head: 'the start',
  tail: 'the end',
  head_tail: 'the start and end',
};

/**
 * tiancai's stats notice, appended when anything was cut: what part was kept and how much of it, in
 * all three units, so the agent knows the output is incomplete and by how much.
 */
export function truncationNotice(limited: LimitedOutput): string | undefined {
  if (limited.kept === 'all') return undefined;
  const { keptSize: kept, total } = limited;
  return (
    `[output truncated: kept ${WHERE[limited.kept]}, ${kept.lines} of ${total.lines} lines, ` +
    `${kept.chars} of ${total.chars} chars, ${kept.bytes} of ${total.bytes} bytes]`
  );
}

/** The notice goes on its own line after the body. */
export function appendNotice(body: string, notice: string): string {
  return body === '' || body.endsWith('\n') ? `${body}${notice}` : `${body}\n${notice}`;
}
