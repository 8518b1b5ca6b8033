/**
 * Sets `key` on `out` as `JSON.parse` makes a member: an own data property. Assignment would not: a
 * `__proto__` key from a client's JSON would replace the object's prototype and vanish from its keys.
 */
export function defineMember(out: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
}
