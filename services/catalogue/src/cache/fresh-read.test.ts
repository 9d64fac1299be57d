import { describe, expect, it } from 'vitest';
import { freshRead } from './fresh-read.ts';

describe('freshRead', () => {
  it('gives a caller a read that started after it asked, one read for all who waited', async () => {
    let reads = 0;
    const release: (() => void)[] = [];
    const read = freshRead(
      () =>
        new Promise<number>((resolve) => {
          const n = ++reads;
          release.push(() => resolve(n));
        }),
    );
    const first = read();
    // These arrive while read 1 is in flight: it may predate what they must see, so they share read 2.
    const later = [read(), read(), read()];
    expect(reads).toBe(1);
    release.shift()?.();
    expect(await first).toBe(1);
    await expect.poll(() => reads).toBe(2);
    release.shift()?.();
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
    // Idle again: the next caller starts its own read at once.
    const next = read();
    expect(reads).toBe(3);
    release.shift()?.();
    expect(await next).toBe(3);
  });
});
