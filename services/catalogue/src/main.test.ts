import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startService, testElasticsearch, type RunningService, type TestElasticsearch } from '@fragrance/testkit';

describe('catalogue process with Redis unreachable', () => {
  let es: TestElasticsearch;
  let catalogue: RunningService;

  beforeAll(async () => {
    es = await testElasticsearch('cat-main');
    catalogue = await startService('catalogue', await freePort(), {
      ELASTICSEARCH_URL: es.url,
      CATALOGUE_ALIAS: es.index('fragrances'),
      // nothing listens there: both Redis connections (generation reads, change messages) keep failing
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
    });
  }, 90_000);
  afterAll(async () => {
    await catalogue.stop();
    await es.cleanup();
  });

  it('reports the outage through its own logging, never as an unhandled ioredis error event', async () => {
    // Both connections have failed by the time each logged the outage once.
    await expect.poll(() => catalogue.output().match(/redis unavailable/g)?.length ?? 0, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(catalogue.output()).not.toContain('Unhandled error event');
  });
});
