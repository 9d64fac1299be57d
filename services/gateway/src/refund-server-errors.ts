import onHeaders from 'on-headers';
import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { createRefunder, type RecentAdmissions } from '@fragrance/api-keys';
import { quotaOf, unitsOf } from './api-key-auth.ts';
import type { DegradedAdmission } from './degraded-admission.ts';
import { timedRedisCall } from './metrics.ts';
import { setRateLimitHeaders } from './rate-limit-headers.ts';

/**
 * A request that fails on our side (5xx) is given back: customers pay for answers, not outages.
 * The answer already says so: its RateLimit-Remaining (and RateLimit's r) counts the request as not made.
 */
export function refundServerErrors({
  redis,
  prefix,
  degraded,
  recent,
}: {
  redis: Redis;
  prefix: string;
  degraded: DegradedAdmission | undefined;
  recent: RecentAdmissions | undefined;
}): RequestHandler {
  const refundQuota = createRefunder({ redis, prefix, ...(recent ? { recent } : {}) });
  const refund = (quota: Parameters<typeof refundQuota>[0], units?: number) => timedRedisCall('refund', () => refundQuota(quota, units));
  return (req, res, next) => {
    onHeaders(res, () => {
      const quota = quotaOf(res);
      if (!quota || res.statusCode < 500) return;
      const units = unitsOf(res);
      setRateLimitHeaders(res, {
        ...quota,
        remaining: Math.min(quota.limit, quota.remaining + units),
        approximate: quota.local !== undefined,
      });
      // Admitted without Redis and not replayed yet: taken out of the journal, nothing to give back.
      const journalId = quota.local?.journalId;
      if (journalId !== undefined && degraded?.journal.void(journalId)) return;
      res.once('finish', () => {
        refund(quota, units).catch((error: unknown) => req.log?.warn({ err: error }, 'could not refund a failed request'));
      });
    });
    next();
  };
}
