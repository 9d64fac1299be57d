import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
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
      EMBEDDINGS_ENABLED: 'false',
    });
  }, 90_000);
  afterAll(async () => {
    await catalogue.stop();
    await es.cleanup();
  });

  it('reports the outage through its own logging, never as an unhandled ioredis error event', async () => {
    await sleep(2_000);
    expect(catalogue.output()).not.toContain('Unhandled error event');
  });
});
