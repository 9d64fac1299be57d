import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between attempts (default 50 ms). */
  intervalMs?: number;
  /** Names what was awaited in the timeout error. */
  description?: string;
}

/**
 * Calls `condition` until it returns something truthy and resolves to that value, instead of
 * sleeping a fixed time and hoping. A throwing condition counts as "not yet"; the timeout error
 * carries the last throw as its cause.
 */
export async function waitFor<T>(condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<NonNullable<T>> {
  const { timeoutMs = 10_000, intervalMs = 50, description = 'condition' } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      throw new Error(`${description} not met within ${timeoutMs} ms`, lastError === undefined ? {} : { cause: lastError });
    }
    await sleep(intervalMs);
  }
}
