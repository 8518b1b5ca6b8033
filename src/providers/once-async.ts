/**
 * `create`, run on the first call, its promise shared by every later call. A failed attempt is not kept:
 * the next call tries again, so that one passing failure (too many open files while the SDK loads) does
 * not break a client for the rest of a long session.
 */
export function onceAsync<T>(create: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    if (pending === undefined) {
      const attempt = create();
      pending = attempt;
      attempt.catch(() => {
        if (pending === attempt) pending = undefined;
      });
    }
    return pending;
  };
}
