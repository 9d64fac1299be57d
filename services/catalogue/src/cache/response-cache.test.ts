import { describe, expect, it } from 'vitest';
import { createResponseCache, type CachedResponse } from './response-cache.ts';
import { freshRead } from './fresh-read.ts';

const answer = (bytes: number): CachedResponse => ({ body: Buffer.alloc(bytes, 97), etag: '"x"' });

describe('response cache (in process)', () => {
  it('never holds more bytes than its bound, and skips an answer larger than the whole cache', async () => {
    const maxBytes = 20_000;
    const cache = createResponseCache({ maxBytes });
    for (let i = 0; i < 500; i++) {
      await cache.get(`key-${i}`, 'g1', () => Promise.resolve(answer(100 + ((i * 37) % 900))));
      expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    }
    expect(cache.entries).toBeGreaterThan(10);
    const entries = cache.entries;
    const huge = (await cache.get('huge', 'g1', () => Promise.resolve(answer(maxBytes * 2)))).response;
    expect(huge?.body.length).toBe(maxBytes * 2); // still answered…
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes); // …not kept
    expect(cache.entries).toBeLessThanOrEqual(entries);
  });

  it('computes a missing key once for concurrent callers, and keeps neither failures nor "not found"', async () => {
    const cache = createResponseCache({ maxBytes: 1_000_000 });
    let computed = 0;
    const slow = () => new Promise<CachedResponse>((resolve) => setTimeout(() => resolve(answer(10 + computed++)), 20));
    const all = await Promise.all(Array.from({ length: 50 }, () => cache.get('cold', 'g1', slow)));
    expect(computed).toBe(1);
    expect(new Set(all.map((lookup) => lookup.response)).size).toBe(1);
    expect(all.map((lookup) => lookup.outcome).sort()).toEqual(['miss', ...Array.from({ length: 49 }, () => 'shared')]);

    let failures = 0;
    const failing = () => Promise.reject(new Error(`boom ${++failures}`));
    await expect(Promise.all([cache.get('bad', 'g1', failing), cache.get('bad', 'g1', failing)])).rejects.toThrow('boom 1');
    await expect(cache.get('bad', 'g1', failing)).rejects.toThrow('boom 2');

    let lookups = 0;
    const missing = () => Promise.resolve((lookups++, undefined));
    expect((await cache.get('gone', 'g1', missing)).response).toBeUndefined();
    expect((await cache.get('gone', 'g1', missing)).response).toBeUndefined();
    expect(lookups).toBe(2);
  });

  it('answers a hit only for the generation it was computed under, and replaces a stale answer', async () => {
    const cache = createResponseCache({ maxBytes: 1_000_000 });
    expect((await cache.get('k', 'g1', () => Promise.resolve(answer(10)))).outcome).toBe('miss');
    const hit = await cache.get('k', 'g1', () => Promise.reject(new Error('not called')));
    expect([hit.outcome, hit.response?.body.length]).toEqual(['hit', 10]);
    const stale = await cache.get('k', 'g2', () => Promise.resolve(answer(20)));
    expect([stale.outcome, stale.response?.body.length]).toEqual(['stale', 20]);
    expect(cache.entries).toBe(1); // replaced, not kept beside the old one
    expect((await cache.get('k', 'g2', () => Promise.reject(new Error('not called')))).response?.body.length).toBe(20);
  });
});

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
    await new Promise((r) => setTimeout(r, 0));
    expect(reads).toBe(2);
    release.shift()?.();
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
    // Idle again: the next caller starts its own read at once.
    const next = read();
    expect(reads).toBe(3);
    release.shift()?.();
    expect(await next).toBe(3);
  });
});
