import { LRUCache } from 'lru-cache';

/** A 200 answer exactly as sent: the serialised body and its strong ETag. */
export interface CachedResponse {
  body: Buffer;
  etag: string;
}

/** Bytes counted per entry beyond its body and key (the entry object, the LRU's bookkeeping). */
const ENTRY_OVERHEAD_BYTES = 200;

export interface ResponseCache {
  /**
   * The cached answer for `key`, else `compute`'s (stored when defined). Concurrent callers for
   * a missing key share one `compute` (no stampede); a failure reaches all of them and is not
   * stored, nor is undefined (not found).
   */
  get: (key: string, compute: () => Promise<CachedResponse | undefined>) => Promise<CachedResponse | undefined>;
  /** Bytes held now (bodies, keys and per-entry overhead); never above maxBytes. */
  readonly bytes: number;
  readonly entries: number;
}

/** An in-process LRU bounded in bytes (lru-cache's maxSize), with one computation per missing key. */
export function createResponseCache({ maxBytes }: { maxBytes: number }): ResponseCache {
  const lru = new LRUCache<string, CachedResponse>({
    maxSize: maxBytes,
    // A string key costs up to 2 bytes a character in V8.
    sizeCalculation: (value, key) => value.body.length + key.length * 2 + ENTRY_OVERHEAD_BYTES,
  });
  const inFlight = new Map<string, Promise<CachedResponse | undefined>>();

  function get(key: string, compute: () => Promise<CachedResponse | undefined>): Promise<CachedResponse | undefined> {
    const hit = lru.get(key);
    if (hit) return Promise.resolve(hit);
    let pending = inFlight.get(key);
    if (!pending) {
      pending = compute()
        .then((response) => {
          // An answer larger than the whole cache is simply not kept (lru-cache skips it).
          if (response) lru.set(key, response);
          return response;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return pending;
  }

  return {
    get,
    get bytes() {
      return lru.calculatedSize;
    },
    get entries() {
      return lru.size;
    },
  };
}
