/** Steps of reading a JSON text by hand, for what parses a large one in parts. */
import { inWholeText, jsonSyntaxError } from './json-syntax-error.ts';

export const QUOTE = 0x22;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const OPEN_ARRAY = 0x5b;
export const CLOSE_ARRAY = 0x5d;
export const OPEN_OBJECT = 0x7b;
export const CLOSE_OBJECT = 0x7d;
const BACKSLASH = 0x5c;

function isSpace(char: number): boolean {
  return char === 0x20 || char === 0x0a || char === 0x0d || char === 0x09;
}

/** The first index from `from` that is not JSON whitespace. */
export function skipSpace(text: string, from: number): number {
  let at = from;
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** `to`, moved back over the whitespace before it. */
export function trimSpace(text: string, to: number): number {
  let at = to;
  while (at > 0 && isSpace(text.charCodeAt(at - 1))) at--;
  return at;
}

/** The index of the quote closing the string whose content starts at `from`, before `limit`. */
export function stringEnd(text: string, from: number, limit: number): number {
  let at = from;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1 || quote >= limit) throw jsonSyntaxError('Unterminated string in JSON', text, from - 1);
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** The member `"key": value` starting at `from` (or after whitespace): its key, where its value starts. */
export function memberKey(text: string, from: number): { key: string; valueStart: number } {
  const start = skipSpace(text, from);
  if (text.charCodeAt(start) !== QUOTE)
    throw jsonSyntaxError("Expected property name or '}' in JSON", text, start);
  const keyEnd = stringEnd(text, start + 1, text.length) + 1;
  let key: string;
  try {
    key = JSON.parse(text.slice(start, keyEnd)) as string;
  } catch (error) {
    throw inWholeText(error, text, start);
  }
  const colon = skipSpace(text, keyEnd);
  if (text.charCodeAt(colon) !== COLON)
    throw jsonSyntaxError("Expected ':' after property name in JSON", text, colon);
  return { key, valueStart: skipSpace(text, colon + 1) };
}

/** `JSON.parse`'s words for a container's next element not after a comma. */
export function expectedComma(array: boolean): string {
  return `Expected ',' or '${array ? ']' : '}'}' after ${array ? 'array element' : 'property value'} in JSON`;
}
