/** The value at `path` in `root` (keys and indexes, one per level); undefined where the path leaves it. */
export function valueAtPath(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
