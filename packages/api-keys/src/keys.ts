/** Redis key names of the api-keys store, all under one prefix (default `fcs:`). */
export const redisKeys = (prefix: string) => ({
  /** Hash: the key's record, addressed by the SHA-256 of the plaintext. */
  record: (hash: string) => `${prefix}apikey:${hash}`,
  /** Hash: key id → SHA-256, for the operator CLI (list, revoke, set-quota, usage). */
  index: () => `${prefix}apikey:index`,
  /** String counter: requests admitted on one quota day; doubles as the billing meter. */
  usage: (id: string, day: string) => `${prefix}usage:${id}:${day}`,
  /** Hash: the key's token bucket. */
  bucket: (id: string) => `${prefix}quota:${id}:bucket`,
});

export const DEFAULT_PREFIX = 'fcs:';

/** Usage day counters live this long (billing needs ≥ 90 days; a bit over a year is kept). */
export const USAGE_RETENTION_DAYS = 400;
