import { describe, expect, it } from 'vitest';
import { createResponseCache, type CachedResponse } from './response-cache.ts';

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
    // A computation still running while the other 49 callers arrive: it ends when the test says so.
    let finish = () => {};
    const running = new Promise<void>((resolve) => (finish = resolve));
    const slow = async () => {
      await running;
      return answer(10 + computed++);
    };
    const waiting = Promise.all(Array.from({ length: 50 }, () => cache.get('cold', 'g1', slow)));
    finish();
    const all = await waiting;
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

  it('peeks at the answer held under any generation, and keeps it when recomputing it fails', async () => {
    const cache = createResponseCache({ maxBytes: 1_000_000 });
    expect(cache.peek('k')).toBeUndefined();
    const before = Date.now();
    await cache.get('k', 'g1', () => Promise.resolve(answer(10)));
    const held = cache.peek('k');
    expect([held?.generation, held?.response.body.length]).toEqual(['g1', 10]);
    expect(held?.storedAt).toBeGreaterThanOrEqual(before);
    // Elasticsearch failing under a new generation: the old answer stays for the caller to judge.
    await expect(cache.get('k', 'g2', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(cache.peek('k')?.generation).toBe('g1');
  });

  it('counts a relayed answer’s headers against the bound', async () => {
    const withHeaders = createResponseCache({ maxBytes: 10_000 });
    const headers = { 'content-type': 'application/json; charset=utf-8', 'x-padding': 'p'.repeat(1_000) };
    await withHeaders.get('k', 'g1', () => Promise.resolve({ ...answer(100), headers }));
    const bare = createResponseCache({ maxBytes: 10_000 });
    await bare.get('k', 'g1', () => Promise.resolve(answer(100)));
    expect(withHeaders.bytes - bare.bytes).toBe(('content-type'.length + headers['content-type'].length + 'x-padding'.length + 1_000) * 2);
  });
});
