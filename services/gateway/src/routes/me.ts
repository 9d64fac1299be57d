import type { Router } from 'express';
import type { MeResponse } from '@fragrance/contracts';
import { ValidationError } from '@fragrance/http';
import { ownKeyRoutes } from './own-key.ts';

/** GET /v1/me: the calling key's owner and quota. Mounted behind apiKeyAuth in peek mode (free). */
export function meRoutes(): Router {
  return ownKeyRoutes((req, quota): MeResponse => {
    // No parameters here, and like every data route an unknown one is an error, not ignored.
    // Express's simple query parser gives a prototype-less object, so `__proto__` is a key too.
    const unknown = Object.keys(req.query);
    if (unknown.length > 0) throw new ValidationError(unknown.map((name) => ({ name, reason: 'is not a known parameter' })));
    return {
      owner: quota.owner,
      rate_limit_per_day: quota.limit,
      used_today: quota.used,
      quota_resets_at: new Date(quota.resetsAt).toISOString(),
    };
  });
}
