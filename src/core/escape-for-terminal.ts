/**
 * Text from input (file names, tool names, tool output, config values, error messages that quote
 * them) made safe to print: every character a terminal would act on or hide is shown as a visible
 * escape instead, so a session cannot clear the screen, move the cursor, set the title, open a
 * hyperlink or reorder the line it is printed on.
 *
 * - C0 controls, DEL and C1 controls (`\x9b` is a CSI on many terminals): `\x1b`, `\x9b`, `\x7f`;
 *   tab, newline and carriage return as `\t`, `\n`, `\r`.
 * - Invisible format characters (Unicode Cf: bidi overrides and isolates, zero-width spaces, the BOM,
 *   tag characters) and the line and paragraph separators: `\u{202e}`. The zero-width joiner stays:
 *   emoji are built with it.
 * - Unpaired surrogates (not text at all): `\u{d800}`.
 *
 * A backslash is left as it is (paths on Windows), so the escapes are for reading, not for undoing.
 */

/** What {@link escapeForTerminal} replaces; `u` so that a pair of surrogates is one character. */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const ZERO_WIDTH_JOINER = '\u200d';

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function visible(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

export interface EscapeOptions {
  /** Keep newlines (and tabs) as they are: for text printed as several lines, like an error message. */
  multiline?: boolean;
}

/** `text` with every control and invisible format character shown as a visible escape. */
export function escapeForTerminal(text: string, options: EscapeOptions = {}): string {
  return text.replace(UNSAFE, (char) => {
    if (char === ZERO_WIDTH_JOINER) return char;
    if (options.multiline && (char === '\n' || char === '\t')) return char;
    return visible(char);
  });
}

/** Whether {@link escapeForTerminal} would change `text`. */
export function needsEscape(text: string): boolean {
  return escapeForTerminal(text) !== text;
}

/**
 * JSON for a terminal: `JSON.stringify` already writes C0 controls as `\u001b`; this also writes
 * DEL, the C1 controls, U+2028/U+2029 and the format characters as `\u` escapes. Still valid JSON,
 * and `JSON.parse` gives back exactly the same value.
 */
export function stringifyForTerminal(value: unknown, indent = 2): string {
  return escapeJsonForTerminal(JSON.stringify(value, null, indent));
}

/**
 * JSON text made safe to print (a log line): what `JSON.stringify` leaves raw that a terminal acts on or
 * hides is written as `\u` escapes. Still valid JSON with exactly the same value.
 */
export function escapeJsonForTerminal(json: string): string {
  return json.replace(/[\u007f-\u009f\u2028\u2029\p{Cf}]/gu, (char) => {
    if (char === ZERO_WIDTH_JOINER) return char;
    let escaped = '';
    for (let index = 0; index < char.length; index++) {
      escaped += `\\u${char.charCodeAt(index).toString(16).padStart(4, '0')}`;
    }
    return escaped;
  });
}

/** Input quoted in a message: `"…"`, escaped as {@link escapeForTerminal} does. */
export function quoted(text: string): string {
  return `"${escapeForTerminal(text)}"`;
}
