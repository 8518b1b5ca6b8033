/**
 * The fast approximation used above `renderMaxChars`, where the emulator would cost too much (or past
 * its work budget, see `terminal-work-budget.ts`): removes escape sequences (CSI, OSC, DCS/APC/PM/SOS and
 * two-byte ESC sequences) by regular expression and keeps the last frame of each `\r`-rewritten line.
 * Unlike the emulator it does not overlay a shorter frame on a longer one, apply cursor movement or erase
 * sequences, or expand tabs.
 *
 * Linear in the text whatever its shape: every escape-sequence match starts at an ESC and stops at the
 * next one, and frames are found by one scan over line and carriage-return positions (a regular
 * expression for them retried from every position of a long line, or of a long run of `\r`: quadratic).
 */
const ESCAPE_SEQUENCE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~])/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const OTHER_CONTROLS = /[\x00-\x08\x0e-\x1f\x7f]/g;

export function stripTerminalControls(text: string): string {
  return keepLastFrames(text.replace(ESCAPE_SEQUENCE, ''))
    .replace(/[\v\f]/g, '\n')
    .replace(OTHER_CONTROLS, '');
}

/**
 * Drops every frame a carriage return overwrites, and the carriage returns. Within a line, the frame
 * before a `\r` is kept only when no frame follows the `\r` directly: `a\rb` is `b`, but `a\r\rb` keeps
 * both (an empty frame overwrote nothing) and a trailing `\r` (or `\r\n`) leaves its line as it was.
 * One pass over the positions of `\r` and `\n`.
 */
export function keepLastFrames(text: string): string {
  let cr = text.indexOf('\r');
  if (cr === -1) return text;
  const kept: string[] = [];
  let copyFrom = 0;
  let frameStart = 0;
  let newline = text.indexOf('\n');
  for (; cr !== -1; cr = text.indexOf('\r', cr + 1)) {
    while (newline !== -1 && newline < cr) {
      frameStart = Math.max(frameStart, newline + 1);
      newline = text.indexOf('\n', newline + 1);
    }
    const after = text.charCodeAt(cr + 1);
    const overwritten = cr + 1 < text.length && after !== 13 && after !== 10;
    kept.push(text.slice(copyFrom, overwritten ? frameStart : cr));
    copyFrom = cr + 1;
    frameStart = cr + 1;
  }
  kept.push(text.slice(copyFrom));
  return kept.join('');
}
