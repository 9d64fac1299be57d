import type { Client } from '@elastic/elasticsearch';
import { Router } from 'express';

/**
 * Ready while a search over the catalogue alias answers: exactly what requests need. Not the
 * cluster's health: that waits for the elected master (none for a few seconds after the master
 * dies) and turns red for any red index, either of which would take every instance out of the
 * load balancer while the catalogue's own shard copies still serve searches.
 */
export const elasticsearchCheck = (elasticsearch: Client, alias: string) => async (): Promise<void> => {
  await elasticsearch.search(
    { index: alias, size: 0, track_total_hits: false, timeout: '1s', allow_partial_search_results: false },
    { requestTimeout: 1_000, maxRetries: 0 },
  );
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
