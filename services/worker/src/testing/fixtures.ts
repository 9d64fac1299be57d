// Shared set-up of the worker's integration tests: a small generated catalogue ingested into a
// test alias of the real Elasticsearch, and a worker config pointing at the test Redis prefix.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@elastic/elasticsearch';
import { FragranceDetail } from '@fragrance/contracts';
import { writeDataset } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import type { TestElasticsearch, TestRedis } from '@fragrance/testkit';
import { loadConfig, type WorkerConfig } from '../config.ts';

export interface CatalogueFixture {
  alias: string;
  dir: string;
  catalogueFile: string;
  feedFile: string;
  count: number;
}

export async function catalogueFixture(
  es: TestElasticsearch,
  options: { count: number; seed: number; name?: string },
): Promise<CatalogueFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'worker-test-'));
  const written = await writeDataset({ dir, count: options.count, seed: options.seed });
  const alias = es.index(options.name ?? 'fragrances');
  await ingestCatalogue({ client: es.client, alias, file: written.catalogue.path });
  return { alias, dir, catalogueFile: written.catalogue.path, feedFile: written.feed.path, count: written.catalogue.records };
}

/** Environment of a worker under test (also what a child worker process gets). */
export function workerEnv(
  es: TestElasticsearch,
  redis: TestRedis,
  fixture: CatalogueFixture,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    ELASTICSEARCH_URL: es.url,
    CATALOGUE_ALIAS: fixture.alias,
    JOBS_PREFIX: redis.prefix.replace(/:$/, ''),
    AU_FEED_FILE: fixture.feedFile,
    LOG_LEVEL: 'silent',
    PORT: '0',
    METRICS_PORT: '0',
    ENRICH_SCHEDULE_ENABLED: 'false',
    ENRICH_BATCH_SIZE: '50',
    ENRICH_BACKOFF_MS: '100',
    LOCK_DURATION_MS: '3000',
    STALLED_INTERVAL_MS: '1000',
    SHUTDOWN_TIMEOUT_MS: '5000',
    // Child workers (main.ts) would load the model and embed every row; the vector tests pass
    // their own embedder to startWorker (enrich/embed.slow.test.ts).
    EMBEDDINGS_ENABLED: 'false',
    // No background similar passes in child workers: similar.test.ts runs its own refresher.
    SIMILAR_LISTS_RATE: '0',
    ...extra,
  };
}

export function testConfig(env: Record<string, string>): WorkerConfig {
  return loadConfig(env);
}

export interface StoredDoc {
  id: string;
  seqNo: number;
  record: FragranceDetail;
  search: unknown;
}

/** Every document of the alias (test catalogues are small), with seq_no. */
export async function allDocs(client: Client, alias: string): Promise<Map<string, StoredDoc>> {
  await client.indices.refresh({ index: alias });
  const response = await client.search<Record<string, unknown>>({
    index: alias,
    size: 10_000,
    seq_no_primary_term: true,
    query: { match_all: {} },
  });
  const out = new Map<string, StoredDoc>();
  for (const hit of response.hits.hits) {
    const record = FragranceDetail.parse(hit._source);
    out.set(record.id, { id: record.id, seqNo: hit._seq_no ?? -1, record, search: hit._source?.search });
  }
  return out;
}
