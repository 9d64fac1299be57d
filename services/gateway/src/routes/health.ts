import { Router } from 'express';
import { checkDependencies } from '@fragrance/http';
import type { HealthCheck } from '../health.ts';

/** 200 only when every dependency answers; the body names each one's state. */
export function healthRoutes(checks: Readonly<Record<string, HealthCheck>>, timeoutMs: number): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    const { healthy, dependencies } = await checkDependencies(checks, timeoutMs);
    res.status(healthy ? 200 : 503).json({ status: healthy ? 'ok' : 'degraded', dependencies });
  });
  return router;
}
