/** A JSON object, or any object that is neither an array nor null: what a parsed body's fields are read from. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
