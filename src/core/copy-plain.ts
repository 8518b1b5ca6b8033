import { defineMember } from './define-member.ts';

/**
 * A deep copy of plain data (objects, arrays, primitives) that shares its strings: they are immutable,
 * and `structuredClone` copies every character of them, which for a session's messages (tool outputs of
 * tens of kilobytes) is most of what storing a copy costs. Anything else (a Date, a typed array, a Map)
 * is copied by `structuredClone`. An own `__proto__` key (JSON.parse makes them) stays an own key.
 */
export function copyPlain<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyPlain) as T;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return structuredClone(value);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copyPlain((value as Record<string, unknown>)[key]);
    if (key === '__proto__') defineMember(copy, key, item);
    else copy[key] = item;
  }
  return copy as T;
}
