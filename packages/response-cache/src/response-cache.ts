import { LRUCache } from 'lru-cache';

/**
 * A 200 answer exactly as sent: the serialised body, its strong ETag and, where the answer is
 * relayed (the gateway's edge cache), the upstream's own headers that go with it.
 */
export interface CachedResponse {
  body: Buffer;
  etag: string;
  headers?: Readonly<Record<string, string>>;
}

/** Bytes an answer's headers take in the cache (names and values, up to 2 bytes a character). */
function headerBytes(headers: Readonly<Record<string, string>> | undefined): number {
  let bytes = 0;
  for (const name in headers) bytes += (name.length + (headers[name]?.length ?? 0)) * 2;
  return bytes;
}

/** Bytes counted per entry beyond its body and key (the entry object, the LRU's bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * How a lookup was answered: `hit` (held for this generation), `miss` (not held), `stale` (held
 * for an older generation, recomputed and replaced), `shared` (joined a computation in flight).
 */
export type CacheOutcome = 'hit' | 'miss' | 'stale' | 'shared';

export interface CacheLookup {
  response: CachedResponse | undefined;
  outcome: CacheOutcome;
}

/** An answer as held, whatever its generation (for stale-if-error: ResponseCache.peek). */
export interface HeldResponse {
  generation: string;
  response: CachedResponse;
  /** When it was computed (ms since the epoch). */
  storedAt: number;
}

export interface ResponseCache {
  /**
   * The cached answer for `key` under `generation`, else `compute`'s (stored when defined,
   * replacing an answer of another generation). Concurrent callers for a missing key share one
   * `compute` (no stampede); a failure reaches all of them and is not stored, nor is undefined
   * (not found).
   */
  get: (key: string, generation: string, compute: () => Promise<CachedResponse | undefined>) => Promise<CacheLookup>;
  /**
   * The answer held for `key` under whatever generation it was computed, without computing or
   * touching its recency: the caller decides whether it may still be served (stale-if-error).
   */
  peek: (key: string) => HeldResponse | undefined;
  /** Bytes held now (bodies, keys and per-entry overhead); never above maxBytes. */
  readonly bytes: number;
  readonly entries: number;
}

type Entry = HeldResponse;

/**
 * An in-process LRU bounded in bytes (lru-cache's maxSize), with one computation per missing key.
 * Entries are keyed by the request alone and carry their generation, so a generation change
 * replaces an answer instead of leaving the old one to age out.
 */
export function createResponseCache({ maxBytes }: { maxBytes: number }): ResponseCache {
  const lru = new LRUCache<string, Entry>({
    maxSize: maxBytes,
    // A string costs up to 2 bytes a character in V8.
    sizeCalculation: (entry, key) =>
      entry.response.body.length + headerBytes(entry.response.headers) + (key.length + entry.generation.length) * 2 + ENTRY_OVERHEAD_BYTES,
  });
  const inFlight = new Map<string, Promise<CachedResponse | undefined>>();

  function get(key: string, generation: string, compute: () => Promise<CachedResponse | undefined>): Promise<CacheLookup> {
    const held = lru.get(key);
    if (held?.generation === generation) return Promise.resolve({ response: held.response, outcome: 'hit' });
    const flightKey = `${generation}\n${key}`;
    const pending = inFlight.get(flightKey);
    if (pending) return pending.then((response) => ({ response, outcome: 'shared' }));
    const computing = compute()
      .then((response) => {
        // An answer larger than the whole cache is simply not kept (lru-cache skips it).
        if (response) lru.set(key, { generation, response, storedAt: Date.now() });
        return response;
      })
      .finally(() => inFlight.delete(flightKey));
    inFlight.set(flightKey, computing);
    const outcome: CacheOutcome = held ? 'stale' : 'miss';
    return computing.then((response) => ({ response, outcome }));
  }

  return {
    get,
    peek: (key) => lru.peek(key),
    get bytes() {
      return lru.calculatedSize;
    },
    get entries() {
      return lru.size;
    },
  };
}
