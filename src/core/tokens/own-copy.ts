/**
 * A string as one of its own: a slice of a longer string keeps that whole string alive for as long as
 * the slice is kept, and a text may be megabytes (a hostile request's). What a memo keeps, it keeps as a
 * copy. Prefixing makes a rope that slicing flattens into a fresh string (one memory copy, about 50 ×
 * faster than a JSON round trip); the slice then points into that fresh string, one character longer
 * than the text, and not into the original.
 */
export function ownCopy(text: string): string {
  return ` ${text}`.slice(1);
}
