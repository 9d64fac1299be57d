import type { Response } from 'express';
import { serializeList } from 'structured-headers';

/** The name of the daily quota in the IETF RateLimit fields (RateLimit-Policy and RateLimit). */
export const DAILY_POLICY = 'daily';
/** …and of the token bucket, named only in a burst 429 (its size is the key's own, not looked up here). */
export const BURST_POLICY = 'burst';
/** …and a publishable key's per-visitor bucket, named only in its 429. */
export const VISITOR_POLICY = 'visitor';
/** The daily quota's nominal window; a quota day in a DST zone may have 23 or 25 hours (`t` is exact). */
const DAY_SECONDS = 86_400;

/** What the quota headers say: the key's daily limit, what is left of it, seconds until the reset. */
export interface QuotaHeaderValues {
  limit: number;
  remaining: number;
  resetInSeconds: number;
  /** Counted without Redis: the remaining count is an estimate (the `approximate` parameter). */
  approximate?: boolean;
}

/**
 * A Boolean Structured Field parameter on the daily item of `RateLimit` (`"daily";r=…;t=…;approximate`)
 * while the gateway admits without Redis: RateLimit clients ignore parameters they do not know.
 */
const APPROXIMATE = ';approximate';

/** The largest magnitude of a Structured Field Integer (RFC 9651 §3.3.1). */
const SF_INTEGER_MAX = 999_999_999_999_999;

/**
 * One list member `"<policy>";<a>=<x>;<b>=<y>` with integer parameters, as structured-headers
 * serialises it. Every request carries two such fields, so the common case (integers, which the
 * quota always is) is a template string instead of a Map and a generic serialiser per request;
 * anything else goes to the library, which serialises (or refuses) it exactly as before.
 */
function policyItem(policy: string, a: string, x: number, b: string, y: number): string {
  if (Number.isInteger(x) && Number.isInteger(y) && Math.abs(x) <= SF_INTEGER_MAX && Math.abs(y) <= SF_INTEGER_MAX)
    return `"${policy}";${a}=${x};${b}=${y}`;
  return serializeList([
    [
      policy,
      new Map([
        [a, x],
        [b, y],
      ]),
    ],
  ]);
}

/**
 * The daily quota in two vocabularies at once: the IETF RateLimit header fields draft
 * (draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy: "daily";q=…;w=86400` and
 * `RateLimit: "daily";r=…;t=…`, Structured Field lists) and the older `RateLimit-Limit`,
 * `RateLimit-Remaining`, `RateLimit-Reset` trio that existing clients read. `burstRetryAfterSeconds`
 * (a burst or visitor 429 only) adds `"burst";r=0;t=…` (or `"visitor";…`) first, so `t` agrees with that response's Retry-After.
 */
export function setRateLimitHeaders(
  res: Response,
  quota: QuotaHeaderValues,
  burstRetryAfterSeconds?: number,
  burstPolicy: typeof BURST_POLICY | typeof VISITOR_POLICY = BURST_POLICY,
): void {
  // Decided without Redis (degraded admission): `r` is this instance's estimate, and says so.
  const approximate = quota.approximate === true ? APPROXIMATE : '';
  res.setHeader('RateLimit-Limit', String(quota.limit));
  res.setHeader('RateLimit-Remaining', String(quota.remaining));
  res.setHeader('RateLimit-Reset', String(quota.resetInSeconds));
  res.setHeader('RateLimit-Policy', policyItem(DAILY_POLICY, 'q', quota.limit, 'w', DAY_SECONDS));
  const daily = policyItem(DAILY_POLICY, 'r', quota.remaining, 't', quota.resetInSeconds) + approximate;
  res.setHeader(
    'RateLimit',
    burstRetryAfterSeconds === undefined ? daily : `${policyItem(burstPolicy, 'r', 0, 't', burstRetryAfterSeconds)}, ${daily}`,
  );
}
