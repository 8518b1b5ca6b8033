/**
 * What a person sees before allowing a write or an edit: the lines that would change, a bounded excerpt
 * (a whole file can be megabytes). The terminal escape is the caller's: this is plain text.
 */

/** Lines of each side a preview shows, at most. */
export const PREVIEW_MAX_LINES = 12;
/** Characters of one preview line, at most. */
export const PREVIEW_MAX_LINE_CHARS = 160;

function excerpt(text: string, marker: string): string[] {
  const lines = text.replace(/\n$/, '').split('\n');
  const shown = lines.slice(0, PREVIEW_MAX_LINES).map((line) => {
    const cut = line.length > PREVIEW_MAX_LINE_CHARS ? `${line.slice(0, PREVIEW_MAX_LINE_CHARS - 1)}…` : line;
    return `${marker} ${cut}`;
  });
  if (lines.length > PREVIEW_MAX_LINES)
    shown.push(`${marker} … ${lines.length - PREVIEW_MAX_LINES} more lines`);
  return shown;
}

/** A new file's content (or a file's new content) as `+` lines. */
export function writePreview(content: string): string {
  return excerpt(content, '+').join('\n');
}

/** An edit as the `-` lines it removes and the `+` lines it puts in their place. */
export function editPreview(oldText: string, newText: string): string {
  return [...excerpt(oldText, '-'), ...excerpt(newText, '+')].join('\n');
}
