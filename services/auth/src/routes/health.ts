import { Router } from 'express';
import type { Redis } from 'ioredis';

/** 200 while Redis (all OAuth state) answers. */
export function healthRoutes(redis: Redis): Router {
  const router = Router();
  router.get('/health', (_req, res) => {
    redis
      .ping()
      .then(() => res.json({ status: 'ok', dependencies: { redis: 'up' } }))
      .catch(() => res.status(503).json({ status: 'degraded', dependencies: { redis: 'down' } }));
  });
  return router;
}
