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
  /** Hash: a publishable key's token bucket for one visitor (client address). */
  visitorBucket: (id: string, address: string) => `${prefix}quota:${id}:visitor:${address}`,
  /** String: the usage key a request admitted under this edge id was counted on (short TTL). */
  admitted: (id: string, admissionId: string) => `${prefix}admitted:${id}:${admissionId}`,
  /** Never written: what the admission script reads along when its caller names no key. */
  nothingToRead: () => `${prefix}admission:read-along:none`,
});

/**
 * How long an admission id is remembered. HAProxy retries one request for at most
 * (1 + retries) × timeout server (4 × 30 s in the cluster); refunds come within the gateway's
 * upstream timeout. Memory: one short key per admitted request for this long.
 */
export const ADMISSION_ID_TTL_SECONDS = 180;

/** An edge request id the admitter accepts: short and plain (it becomes part of a Redis key). */
export const ADMISSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Usage day counters live this long (billing needs ≥ 90 days; a bit over a year is kept). */
export const USAGE_RETENTION_DAYS = 400;
