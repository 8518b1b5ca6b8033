const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

// Controls (but line feed and tab) and the invisible format characters that reorder or hide text
// (bidi overrides, zero-width marks): a session name or a tool output holding one must not spoof what
// the page shows. Each is shown as its escape.
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Text safe anywhere in HTML or SVG: element content and quoted attribute values, with controls and
 * invisible format characters shown as `\uXXXX`.
 */
export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char)
    .replace(INVISIBLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

const SCRIPT_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON to embed in a `<script type="application/json">`: `<`, `>` and `&` as `\u` escapes, so no
 * content can close the element or open a comment; `JSON.parse` gives the value back unchanged.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => SCRIPT_ESCAPES[char] ?? char);
}
