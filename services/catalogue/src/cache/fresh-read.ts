/**
 * Coalesces a read that must not be older than the request asking for it: a caller joins the
 * read that starts next (never one already in flight, which may have begun before the change it
 * has to see), so at most one read runs and one waits, however many requests arrive. Under load
 * one read serves every request that arrived while the previous one was running.
 */
export function freshRead<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const current: Promise<T> = read().finally(() => {
      if (running === current) running = undefined;
    });
    running = current;
    return current;
  };
  return () => {
    if (!running) return start();
    queued ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}
