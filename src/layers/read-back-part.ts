import type { Message, ToolResultPart } from '../core/message.ts';
import { joinSplice, spliceLength } from '../core/tokens/spliced-units.ts';
import type { Splice } from '../core/tokens/token-counter.ts';
import { callAnsweredAt } from './tool-call-lookup.ts';

/**
 * A result of the read-back tool is a window on a blob: `[ref: characters S–E of T. Next:
 * read_offloaded({"ref":…,"offset":E,"limit":L}).]` then characters S–E (or, for a blob read whole,
 * just its text). Clipping its middle away, as head + tail clipping does, leaves a header that says
 * S–E and a Next offset at E: a model following it never reads what was cut. Such a result is clipped
 * from the end instead, and header and notice point at the exact offset where the shown text stops.
 */

/** The read-back tool's name (the engine's READ_OFFLOADED_TOOL; layers import nothing from the engine). */
export const READ_BACK_TOOL = 'read_offloaded';
/** Characters a part holds when its call asked for no limit (the agent's DEFAULT_READ_OFFLOADED_LIMIT). */
export const READ_BACK_DEFAULT_LIMIT = 20_000;

export interface ReadBackPart {
  tool: string;
  ref: string;
  /** Blob offsets (UTF-16, as the tool pages) of the shown text: [start, end) of `total`. */
  start: number;
  end: number;
  total: number;
  /** The limit the next read asks for. */
  limit: number;
  /** Where the blob's text begins and ends in the content (after the header, before a clip notice). */
  bodyStart: number;
  bodyEnd: number;
}

const CLIPPED = ', clipped to fit the context window';
const HEADER =
  /^\[([^\n\]]+): characters (\d+)–(\d+) of (\d+)(, clipped to fit the context window)?\.(?: Next: ([A-Za-z0-9_.:-]+)\((\{[^\n]*\})\)\.| This is the end\.)\]\n/;
/** The notice a clipped part ends with: which characters of the part are not shown. */
const NOTICE =
  /\n\[… characters (\d+)–(\d+) of [^\n]* clipped to fit the context window; read on with [^\n]*…\]$/;

/**
 * The read-back window `result` holds, or undefined when it is not one. `messages` and `index` (the
 * result's message) find the call's arguments for a blob read whole, which carries no header.
 */
export function readBackPartOf(
  result: ToolResultPart,
  messages?: readonly Message[],
  index?: number,
): ReadBackPart | undefined {
  if (result.isError) return undefined;
  const content = result.content;
  const header = HEADER.exec(content);
  if (header) {
    const [whole, ref = '', start = '', end = '', total = '', clipped, tool, args] = header;
    const part: ReadBackPart = {
      tool: tool ?? (result.name || READ_BACK_TOOL),
      ref,
      start: Number(start),
      end: Number(end),
      total: Number(total),
      limit: READ_BACK_DEFAULT_LIMIT,
      bodyStart: whole.length,
      bodyEnd: content.length,
    };
    // Clipped before: the header says where the shown text stops, the notice where the part ended.
    const shownEnd = part.end;
    if (clipped) {
      const notice = NOTICE.exec(content);
      if (!notice || Number(notice[1]) !== shownEnd) return undefined;
      part.end = Number(notice[2]);
      part.bodyEnd = notice.index;
    }
    // The header must describe this very text, or it is not the tool's answer.
    if (shownEnd - part.start !== part.bodyEnd - part.bodyStart || part.end > part.total) return undefined;
    if (args !== undefined) {
      const next = parseArgs(args);
      if (!next || next.ref !== ref || next.offset !== shownEnd) return undefined;
      if (next.limit !== undefined) part.limit = next.limit;
    }
    return part;
  }
  // A blob that fit one part comes back as it is: its call names the ref (a text that looks like a
  // part's header but is not one is left alone).
  if (result.name !== READ_BACK_TOOL || !messages || index === undefined) return undefined;
  if (/^\[[^\n\]]+: characters \d+–\d+ of \d+/.test(content)) return undefined;
  const call = callAnsweredAt(messages, index)?.part;
  if (!call || call.name !== READ_BACK_TOOL) return undefined;
  const args = parseArgs(call.args);
  if (!args || (args.offset ?? 0) !== 0) return undefined;
  return {
    tool: call.name,
    ref: args.ref,
    start: 0,
    end: content.length,
    total: content.length,
    limit: args.limit ?? READ_BACK_DEFAULT_LIMIT,
    bodyStart: 0,
    bodyEnd: content.length,
  };
}

/**
 * The part cut to at most `maxChars` characters (header and notice included) by keeping the start of
 * its text, or undefined when it fits or cannot be made shorter. Header and notice say which characters
 * are shown and name the call that reads on from the first one left out.
 */
export function clipReadBackPart(content: string, part: ReadBackPart, maxChars: number): string | undefined {
  const splice = readBackSplice(content, part, maxChars);
  return splice === undefined ? undefined : joinSplice(content, splice);
}

/** `clipReadBackPart` as a splice of `content` (header, the kept start of the body, notice). */
export function readBackSplice(content: string, part: ReadBackPart, maxChars: number): Splice | undefined {
  if (content.length <= maxChars) return undefined;
  const body = content.slice(part.bodyStart, part.bodyEnd);
  const build = (keep: number): Splice => {
    const cut = cutIndex(body, keep);
    const stop = part.start + cut;
    const next = `${part.tool}(${JSON.stringify({ ref: part.ref, offset: stop, limit: part.limit })})`;
    const header = `[${part.ref}: characters ${part.start}–${stop} of ${part.total}${CLIPPED}. Next: ${next}.]\n`;
    const notice = `\n[… characters ${stop}–${part.end} of ${part.ref} (${part.end - stop}) clipped to fit the context window; read on with ${next} …]`;
    return [header, { from: part.bodyStart, to: part.bodyStart + cut }, notice];
  };
  let keep = Math.max(0, maxChars - spliceLength(build(0)));
  let clipped = build(keep);
  for (let round = 0; round < 3 && spliceLength(clipped) > maxChars && keep > 0; round++) {
    keep = Math.max(0, keep - (spliceLength(clipped) - maxChars));
    clipped = build(keep);
  }
  return spliceLength(clipped) < content.length ? clipped : undefined;
}

/** Where to stop keeping `keep` characters: at a line end when one is in the kept half, never inside a surrogate pair. */
function cutIndex(body: string, keep: number): number {
  let cut = Math.min(body.length, Math.max(0, keep));
  if (cut >= body.length) return body.length;
  const newline = body.lastIndexOf('\n', cut - 1);
  if (newline >= 0 && newline + 1 >= cut / 2) return newline + 1;
  const code = body.charCodeAt(cut);
  if (code >= 0xdc00 && code <= 0xdfff) cut--;
  return cut;
}

function parseArgs(args: string): { ref: string; offset?: number; limit?: number } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(args);
  } catch {
    return undefined;
  }
  if (typeof value === 'string') return { ref: value.trim() };
  if (value === null || typeof value !== 'object') return undefined;
  const { ref, offset, limit } = value as Record<string, unknown>;
  if (typeof ref !== 'string' || ref.trim() === '') return undefined;
  return {
    ref: ref.trim(),
    ...(Number.isInteger(offset) ? { offset: offset as number } : {}),
    ...(Number.isInteger(limit) && (limit as number) > 0 ? { limit: limit as number } : {}),
  };
}
