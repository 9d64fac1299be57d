// `npm run bench:ingest`: generate 75,000 records and ingest them into a fresh index version
// (bulk, bounded concurrency, count check, alias swap), timing the whole run. The last line is
// one JSON object. Target: under 45 s on a 2-core machine.
//
// Options (env): ELASTICSEARCH_URL (dev cluster http://127.0.0.1:9200, started if default),
// BENCH_COUNT (75000), BENCH_INGEST_CONCURRENCY (3), BENCH_INGEST_BATCH (1000).
// The bench works under its own alias `bench-ingest` and deletes its indices afterwards.
import { Client } from '@elastic/elasticsearch';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue, listVersions } from '@fragrance/search';
import { benchConfig, IngestBenchConfig } from './config.ts';
import { ensureElasticsearch, say } from './support.ts';

const config = benchConfig(IngestBenchConfig);
const ALIAS = 'bench-ingest';
const TARGET_S = 45;

ensureElasticsearch(config.ELASTICSEARCH_URL);
const client = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000 });
try {
  say(
    'ingest',
    `${config.BENCH_COUNT} records, concurrency ${config.BENCH_INGEST_CONCURRENCY}, batches of ${config.BENCH_INGEST_BATCH}, into ${config.ELASTICSEARCH_URL}`,
  );
  const started = performance.now();
  let reported = 0;
  const result = await ingestCatalogue({
    client,
    alias: ALIAS,
    // Streamed straight from the generator: generation overlaps with bulk requests in flight.
    records: generateCatalogue({ count: config.BENCH_COUNT, seed: 42 }),
    concurrency: config.BENCH_INGEST_CONCURRENCY,
    batchSize: config.BENCH_INGEST_BATCH,
    onProgress: (p) => {
      if (p.indexed - reported >= 15_000) {
        reported = p.indexed;
        say('ingest', `${p.indexed} indexed after ${((performance.now() - started) / 1000).toFixed(1)} s`);
      }
    },
  });
  const wall = (performance.now() - started) / 1000;
  const stats = await client.indices.stats({ index: result.index, metric: 'store' });
  const bytes = stats.indices?.[result.index]?.total?.store?.size_in_bytes ?? 0;
  const out = {
    bench: 'ingest',
    documents: result.indexed,
    skipped: result.skipped.length,
    wall_s: Math.round(wall * 100) / 100,
    docs_per_s: Math.round(result.indexed / wall),
    concurrency: config.BENCH_INGEST_CONCURRENCY,
    batch_size: config.BENCH_INGEST_BATCH,
    index_mb: Math.round(bytes / 1024 / 102.4) / 10,
    target_s: TARGET_S,
    meets_target: wall < TARGET_S,
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
} finally {
  const versions = await listVersions(client, ALIAS).catch(() => []);
  if (versions.length) await client.indices.delete({ index: versions.join(','), ignore_unavailable: true });
  await client.close();
}
