import { clipIndexLines } from './clip-index-lines.ts';

/** The tool the agent reads memory notes with (`src/agent/read-memory-tool.ts`). */
export const READ_MEMORY_TOOL = 'read_memory';
/** The index's own file, readable whole through the tool when the request holds only part of it. */
export const MEMORY_INDEX_PATH = 'MEMORY.md';
/**
 * Share of a clipped index kept from its head: the heading and the oldest notes. The rest comes from the
 * tail, where ctxkit appends each new note, so the newest notes stay in view.
 */
export const MEMORY_INDEX_HEAD_FRACTION = 0.25;

const OPEN_TAG = '<memory_index>';
const CLOSE_TAG = '</memory_index>';

const PREAMBLE = [
  '## Memory',
  '',
  `Your long-term memory index (${MEMORY_INDEX_PATH}) is below, one line per note: its title, the file it is in and its size. A note's text is not in this conversation: read it with the ${READ_MEMORY_TOOL} tool, passing the path the index gives it (e.g. {"path": "memory/2025-03-14.md"}).`,
  '',
  OPEN_TAG,
].join('\n');

export interface RenderedIndex {
  /** The section as appended to the system prompt; '' when there is nothing to show. */
  text: string;
  /** Lines of the source left out to respect the cap. */
  omitted: number;
}

/**
 * The memory index as the request shows it (deepagents: "The memory index MEMORY.md … Individual notes
 * enter only when read"): MEMORY.md inside a tagged block after a line saying how to read a note,
 * clipped to `maxTokens` with a notice. An empty index shows nothing. A line of the index that would
 * close the block is neutralized, so the index cannot end its own section.
 */
export function renderMemoryIndex(
  index: string,
  options: { maxTokens: number; count: (text: string) => number },
): RenderedIndex {
  const lines = index
    .replace(/\r\n?/g, '\n')
    .trimEnd()
    .split('\n')
    // Any spelling a reader could take for the closing tag (`</memory_index>`, `</ MEMORY_INDEX >`, …).
    .map((line) => visibleControls(line).replace(/<\s*\/(\s*memory_index)/gi, '<\\/$1'));
  if (lines.length === 1 && lines[0]?.trim() === '') return { text: '', omitted: 0 };
  const framing = options.count(`${PREAMBLE}\n${CLOSE_TAG}`);
  if (framing >= options.maxTokens) return { text: '', omitted: lines.length };
  const clipped = clipIndexLines(lines, {
    maxTokens: options.maxTokens - framing,
    headFraction: MEMORY_INDEX_HEAD_FRACTION,
    count: options.count,
    notice: (omitted, total) =>
      `[… ${omitted} of ${total} lines of the index are not shown; ${READ_MEMORY_TOOL} {"path": "${MEMORY_INDEX_PATH}"} reads all of it …]`,
  });
  if (clipped.lines.length === 0) return { text: '', omitted: clipped.omitted };
  return { text: `${PREAMBLE}\n${clipped.lines.join('\n')}\n${CLOSE_TAG}`, omitted: clipped.omitted };
}

// C0 and C1 controls but the tab, and the bidirectional overrides: nothing a note's title or text holds
// (written from tool output, say) may reach the prompt as a control; each is shown as its escape.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function visibleControls(line: string): string {
  return line.replace(CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
