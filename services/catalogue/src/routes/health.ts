import type { Client } from '@elastic/elasticsearch';
import { Router } from 'express';

/** Ready while the cluster answers and is not red (a red cluster fails searches). */
export const elasticsearchCheck = (elasticsearch: Client) => async (): Promise<void> => {
  const health = await elasticsearch.cluster.health({ timeout: '1s' }, { requestTimeout: 1_000 });
  if (health.status === 'red') throw new Error('cluster is red');
};

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
