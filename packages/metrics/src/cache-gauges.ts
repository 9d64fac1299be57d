import { Gauge } from 'prom-client';

/** What a byte-bounded cache reports (the response caches of @fragrance/response-cache). */
export interface ObservedCache {
  readonly bytes: number;
  readonly entries: number;
}

/**
 * `<prefix>_bytes` and `<prefix>_entries` gauges of one in-process cache, read at scrape time;
 * the returned function names the cache (until then both read 0).
 */
export function cacheGauges(prefix: string, what: string): { observe: (cache: ObservedCache) => void; bytes: Gauge; entries: Gauge } {
  let observed: ObservedCache | undefined;
  const bytes = new Gauge({
    name: `${prefix}_bytes`,
    help: `Bytes held by the ${what} (bodies, headers, keys, per-entry overhead).`,
    collect() {
      this.set(observed?.bytes ?? 0);
    },
  });
  const entries = new Gauge({
    name: `${prefix}_entries`,
    help: `Answers held by the ${what}.`,
    collect() {
      this.set(observed?.entries ?? 0);
    },
  });
  return { observe: (cache) => void (observed = cache), bytes, entries };
}
