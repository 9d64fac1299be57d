// The real catalogue behind the gateway in its tests: the catalogue service as its own process
// (services never import each other) over the file's own Elasticsearch index, sharing the
// file's Redis prefix as its JOBS_PREFIX, as a deployment does.
import { randomBytes } from 'node:crypto';
import type { FragranceDetail } from '@fragrance/contracts';
import { ingestCatalogue } from '@fragrance/search';
import { freePort, startService, testElasticsearch, type RunningService, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { gatewayTest, type GatewayOptions } from './app.ts';

export interface CatalogueProcess extends RunningService {
  /** CATALOGUE_ALIAS: the file's index alias. */
  alias: string;
  /** JOBS_PREFIX and alias: what names the catalogue generation in Redis (bumpCatalogueGeneration). */
  scope: { prefix: string; alias: string };
}

/**
 * Ingests `records` into `es`'s alias `fragrances`, then starts the catalogue service on it and on
 * `redis` (response cache, generation) with `env` over the defaults (a fresh cursor secret).
 */
export async function startCatalogueProcess(options: {
  es: TestElasticsearch;
  redis: TestRedis;
  records: FragranceDetail[];
  env?: Record<string, string>;
  port?: number;
}): Promise<CatalogueProcess> {
  const { es, redis, records } = options;
  const alias = es.index('fragrances');
  const scope = { prefix: redis.prefix.replace(/:$/, ''), alias };
  await ingestCatalogue({ client: es.client, alias, records });
  const service = await startService('catalogue', options.port ?? (await freePort()), {
    ELASTICSEARCH_URL: es.url,
    REDIS_URL: redis.url,
    JOBS_PREFIX: scope.prefix,
    CATALOGUE_ALIAS: alias,
    CURSOR_SECRET: randomBytes(32).toString('base64url'),
    ...options.env,
  });
  return { ...service, alias, scope };
}

/** Gateway settings for a gateway in front of `catalogue` (its edge cache reading the catalogue's generation). */
export function gatewayInFrontOf(catalogue: CatalogueProcess, env: Record<string, string> = {}): GatewayOptions {
  return {
    upstreamUrl: catalogue.url,
    // Real answers, on a machine other tests load too: the harness's 300 ms is for the stand-in.
    env: { UPSTREAM_TIMEOUT_MS: '10000', JOBS_PREFIX: catalogue.scope.prefix, CATALOGUE_ALIAS: catalogue.alias, ...env },
  };
}

/**
 * gatewayTest with the real catalogue: `es`, the file's prefix on the test Elasticsearch (removed
 * after the file); `catalogueRecords` and `catalogueEnv`, what the file's catalogue holds and
 * reads (override them per file); `catalogue`, that catalogue's process, stopped after the file.
 * The file's `gateway` forwards to it.
 */
export const catalogueGatewayTest = gatewayTest
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('es', { scope: 'file' }, async ({}, { onCleanup }) => {
    const es = await testElasticsearch('gateway');
    onCleanup(() => es.cleanup());
    return es;
  })
  .extend('catalogueRecords', { scope: 'file' }, [] as FragranceDetail[])
  .extend('catalogueEnv', { scope: 'file' }, {} as Record<string, string>)
  .extend('catalogue', { scope: 'file' }, async ({ es, redis, catalogueRecords, catalogueEnv }, { onCleanup }) => {
    const catalogue = await startCatalogueProcess({ es, redis, records: catalogueRecords, env: catalogueEnv });
    onCleanup(() => catalogue.stop());
    return catalogue;
  })
  .extend('gatewayOptions', { scope: 'file' }, ({ catalogue }) => gatewayInFrontOf(catalogue));
