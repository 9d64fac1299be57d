import { Router, type Request } from 'express';
import { InternalError } from '@fragrance/http';
import { quotaOf } from '../api-key-auth.ts';
import type { QuotaState } from '@fragrance/api-keys';

/**
 * A GET endpoint about the calling key itself (me, usage, usage/searches), mounted behind
 * apiKeyAuth in peek mode (free): `answer` gets the request and the quota apiKeyAuth left; the
 * body is never cached.
 */
export function ownKeyRoutes<T>(answer: (req: Request, quota: QuotaState) => T | Promise<T>): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const quota = quotaOf(res);
    // apiKeyAuth runs first and always leaves the quota: its absence is a wiring bug.
    if (!quota) throw new InternalError('Missing authentication.');
    const body = await answer(req, quota);
    res.setHeader('Cache-Control', 'no-store');
    res.json(body);
  });
  return router;
}
