import { Router } from 'express';
import type { MeResponse } from '@fragrance/contracts';
import { AppError } from '@fragrance/http';
import { quotaOf } from '../api-key-auth.ts';

/** GET /v1/me: the calling key's owner and quota. Mounted behind apiKeyAuth in peek mode (free). */
export function meRoutes(): Router {
  const router = Router();
  router.get('/', (_req, res) => {
    const quota = quotaOf(res);
    if (!quota) throw new AppError(500, 'internal_error', 'Internal Server Error', 'Missing authentication.');
    const body: MeResponse = {
      owner: quota.owner,
      rate_limit_per_day: quota.limit,
      used_today: quota.used,
      quota_resets_at: new Date(quota.resetsAt).toISOString(),
    };
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });
  return router;
}
