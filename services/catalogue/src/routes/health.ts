import type { Client } from '@elastic/elasticsearch';
import { Router } from 'express';

/** 200 while the Elasticsearch cluster is yellow or green. */
export function healthRoutes(elasticsearch: Client): Router {
  const router = Router();
  router.get('/health', async (_req, res) => {
    try {
      const health = await elasticsearch.cluster.health({ timeout: '1s' }, { requestTimeout: 1_000 });
      const up = health.status !== 'red';
      res.status(up ? 200 : 503).json({ status: up ? 'ok' : 'degraded', dependencies: { elasticsearch: health.status } });
    } catch {
      res.status(503).json({ status: 'degraded', dependencies: { elasticsearch: 'down' } });
    }
  });
  return router;
}
