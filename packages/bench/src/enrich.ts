// `npm run bench:enrich`: a full enrichment run (`enrich run --full`) over the 75,000-row
// catalogue with two worker processes, as in production: real Elasticsearch, real Redis, the
// worker's own main.ts. Prints wall time, rows/s and each worker's peak RSS; the last line is
// one JSON object. Target: under 120 s with 2 workers on the project's 2-core machine; with record
// vectors (the default since issue 17: every row gets one on its first run) under 300 s. The
// embedding step's own rate is measured apart, before the run: BENCH_EMBED_SAMPLE (2000) rows'
// texts embedded in this process alone (one ONNX Runtime thread, as in a worker). On a shared
// machine the wall time says little: it also prints the CPU time the run cost (the workers' and
// Elasticsearch's) and the wall time that CPU would take on 2 idle cores. BENCH_TIMEOUT_MIN (15).
//
// It works under its own alias (bench-enrich-<hex>) and BullMQ prefix, removed afterwards, so
// the dev catalogue and queues are untouched. Options (env): BENCH_ROWS (75000), BENCH_SEED (42),
// BENCH_WORKERS (2), BENCH_EMBEDDINGS (true: the workers compute record vectors), ENRICH_CONCURRENCY (4 per worker), ENRICH_BATCH_SIZE (250),
// ELASTICSEARCH_URL (http://127.0.0.1:9200) and REDIS_URL (redis://127.0.0.1:6379): the dev
// instances, started when they are the defaults and down.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pWaitFor, { TimeoutError } from 'p-wait-for';
import { Client } from '@elastic/elasticsearch';
import type { FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue, writeDataset } from '@fragrance/dataset';
import { defaultModelDirectory, loadEmbedder } from '@fragrance/embeddings';
import { createRunStore, enrichmentQueue, requestEnrichmentRun, type RunSummary } from '@fragrance/jobs';
import { createRedisClient, quietRedisLogger, waitForRedis } from '@fragrance/redis';
import { embeddingText, ingestCatalogue } from '@fragrance/search';
import { benchConfig, DEFAULT_ES, DEFAULT_REDIS, EnrichBenchConfig } from './config.ts';
import { ROOT, startBenchService, stopChildren } from './support.ts';

const config = benchConfig(EnrichBenchConfig);
const CONCURRENCY = String(config.ENRICH_CONCURRENCY);
const BATCH_SIZE = String(config.ENRICH_BATCH_SIZE);
const TARGET_S = config.BENCH_EMBEDDINGS ? 300 : 120;
const CORES = 2;

/** CPU seconds (user + system) a process has used so far (Linux /proc), or 0 once it is gone. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

const tag = randomBytes(3).toString('hex');
const ALIAS = `bench-enrich-${tag}`;
const PREFIX = `bench:enrich:${tag}`;
/** Ctrl-C: stop waiting, then clean up as after a normal run. */
let interrupted = false;
const say = (message: string) => void process.stderr.write(`[bench:enrich] ${message}\n`);

async function reachable(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

/** Starts the dev instance through infra/ only when it is the default URL and not answering. */
function startInfra(script: string, args: string[]): void {
  const result = spawnSync('bash', [`infra/${script}`, 'start', ...args], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`infra/${script} start failed (exit ${result.status})`);
}

/** Resident set size of a process in MiB (Linux /proc), or 0 once it is gone. */
function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** A worker process of its own (as in production), working only on this bench's alias and queue. */
function startWorker(feedFile: string) {
  return startBenchService(
    'worker',
    {
      ELASTICSEARCH_URL: config.ELASTICSEARCH_URL,
      REDIS_URL: config.REDIS_URL,
      CATALOGUE_ALIAS: ALIAS,
      JOBS_PREFIX: PREFIX,
      AU_FEED_FILE: feedFile,
      ENRICH_SCHEDULE_ENABLED: 'false',
      ENRICH_CONCURRENCY: CONCURRENCY,
      ENRICH_BATCH_SIZE: BATCH_SIZE,
      AI_ENRICHER: 'local',
      EMBEDDINGS_ENABLED: String(config.BENCH_EMBEDDINGS),
      PORT: '0',
      LOG_LEVEL: config.BENCH_LOG_LEVEL,
    },
    'enrich',
  );
}

/**
 * The embedding step alone: `count` of the bench's rows embedded in this process (texts as the
 * worker makes them, in its batches of 250), one model thread, nothing else running from this bench.
 */
async function embeddingRate(count: number): Promise<{ rows: number; seconds: number; rows_per_s: number; ms_per_row: number }> {
  const records: FragranceDetail[] = [...generateCatalogue({ count, seed: config.BENCH_SEED })];
  const texts = records.map(embeddingText);
  const embedder = await loadEmbedder({ directory: defaultModelDirectory() });
  try {
    await embedder.embed(texts.slice(0, 20)); // warm-up: the first run initialises the session
    const started = performance.now();
    for (let i = 0; i < texts.length; i += Number(BATCH_SIZE)) await embedder.embed(texts.slice(i, i + Number(BATCH_SIZE)));
    const seconds = (performance.now() - started) / 1000;
    return {
      rows: texts.length,
      seconds: Number(seconds.toFixed(1)),
      rows_per_s: Math.round(texts.length / seconds),
      ms_per_row: Number(((seconds * 1000) / texts.length).toFixed(2)),
    };
  } finally {
    await embedder.close();
  }
}

/** Workers get time to finish their in-flight batches, as on a real SIGTERM. */
const stopWorkers = () => stopChildren(15_000);

/** The Elasticsearch and Redis the bench uses: the dev ones are started when down; others must answer. */
async function ensureInfra(elasticsearch: Client): Promise<ReturnType<typeof createRedisClient>> {
  // HEAD / is not served by every distribution (the integ-test-zip answers 405): ask for cluster health.
  if (!(await reachable(() => elasticsearch.cluster.health({ timeout: '5s' })))) {
    if (config.ELASTICSEARCH_URL !== DEFAULT_ES) throw new Error(`Elasticsearch does not answer at ${config.ELASTICSEARCH_URL}`);
    startInfra('elasticsearch.sh', ['--heap', '1g']);
  }
  // A refused first connection just means the dev Redis is not started yet (handled below).
  const redis = createRedisClient({ REDIS_URL: config.REDIS_URL }, quietRedisLogger, 'command');
  if (!(await reachable(() => waitForRedis(redis)))) {
    if (config.REDIS_URL !== DEFAULT_REDIS) throw new Error(`Redis does not answer at ${config.REDIS_URL}`);
    startInfra('redis.sh', []);
    await waitForRedis(redis);
  }
  return redis;
}

/** Waits until every worker has connected to the queue. */
async function waitForWorkers(queue: ReturnType<typeof enrichmentQueue>): Promise<void> {
  const connected = async () => (await queue.getWorkers()).length >= config.BENCH_WORKERS;
  await pWaitFor(connected, {
    interval: 200,
    timeout: { milliseconds: 60_000, message: new Error('workers did not connect within 60 s') },
  });
}

/** Polls the run until it ends, sampling the workers' peak RSS into `peakRss`; its final summary. */
async function waitForRun(runs: ReturnType<typeof createRunStore>, runId: string, pids: (number | undefined)[], peakRss: number[]) {
  const started = performance.now();
  let lastReport = 0;
  let summary: RunSummary | undefined;
  const ended = async () => {
    pids.forEach((pid, i) => (peakRss[i] = Math.max(peakRss[i] ?? 0, rssMiB(pid))));
    summary = await runs.get(runId);
    if (summary?.status === 'completed' || summary?.status === 'completed_with_failures' || summary?.status === 'failed')
      return pWaitFor.resolveWith(summary);
    if (interrupted) throw new Error('interrupted');
    if (summary && performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      say(`${summary.rows_seen}/${summary.rows_total} rows after ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }
    return false;
  };
  try {
    return await pWaitFor(ended, { interval: 250, timeout: config.BENCH_TIMEOUT_MIN * 60_000 });
  } catch (error) {
    if (error instanceof TimeoutError)
      throw new Error(`run ${runId} did not finish in ${config.BENCH_TIMEOUT_MIN} minutes: ${JSON.stringify(summary)}`, { cause: error });
    throw error;
  }
}

/** What the documents carry after the run: the API reads the same ones, so a few must carry the run's stamps. */
async function stampedCounts(elasticsearch: Client, summary: RunSummary) {
  await elasticsearch.indices.refresh({ index: ALIAS });
  const count = async (query: object) => (await elasticsearch.count({ index: ALIAS, query })).count;
  return {
    stamped: await count({ term: { provenance_tags: 'ai_enriched' } }),
    checked: await count({ term: { 'au_availability.checked_at': summary.as_of } }),
    embedded: await count({ exists: { field: 'embedding.model' } }),
  };
}

type Embedding = Awaited<ReturnType<typeof embeddingRate>> | undefined;
/** The run's measurements beside its summary. */
interface Measured {
  summary: RunSummary;
  wallS: number;
  workerCpuS: number;
  esCpuSpent: number;
  idleRss: number[];
  peakRss: number[];
  counts: Awaited<ReturnType<typeof stampedCounts>>;
  embedding: Embedding;
}

/** The run's one JSON object. */
function resultOf({ summary, wallS, workerCpuS, esCpuSpent, idleRss, peakRss, counts, embedding }: Measured) {
  return {
    bench: 'enrich',
    rows: summary.rows_seen,
    wall_s: Number(wallS.toFixed(1)),
    rows_per_s: Math.round(summary.rows_seen / wallS),
    workers: config.BENCH_WORKERS,
    concurrency_per_worker: Number(CONCURRENCY),
    batch_size: Number(BATCH_SIZE),
    batches: summary.batches_total,
    changed: summary.changed,
    unchanged: summary.unchanged,
    failed: summary.failed,
    conflicts: summary.conflicts,
    per_enricher: summary.per_enricher,
    au_unmatched_offers: summary.au_unmatched_offers,
    rows_with_ai_enriched: counts.stamped,
    rows_checked_as_of_run: counts.checked,
    embeddings: config.BENCH_EMBEDDINGS,
    rows_with_vectors: counts.embedded,
    embedding_alone_one_process: embedding ?? null,
    // What the workers spent embedding, at the rate measured alone: a floor (they share the cores with Elasticsearch).
    embedding_share_of_worker_time: embedding
      ? Number(((counts.embedded * embedding.ms_per_row) / 1000 / (wallS * config.BENCH_WORKERS)).toFixed(2))
      : null,
    load_average: loadavg().map((l) => Number(l.toFixed(1))),
    // CPU the run cost: the workers' and Elasticsearch's (the whole node: other clients' load on it counts too).
    cpu_s: { workers: Math.round(workerCpuS), elasticsearch: Math.round(esCpuSpent) },
    cpu_ms_per_row: Number((((workerCpuS + esCpuSpent) * 1000) / Math.max(1, summary.rows_seen)).toFixed(2)),
    // That CPU spread over the machine's 2 cores with nothing else running.
    wall_s_on_idle_cores: Math.round((workerCpuS + esCpuSpent) / CORES),
    worker_rss_mib_idle: idleRss.map((r) => Math.round(r)),
    worker_rss_mib_peak: peakRss.map((r) => Math.round(r)),
    target_s: TARGET_S,
    within_target: wallS < TARGET_S,
  };
}

/** The human lines, then the JSON line last. */
function report(measured: Measured): void {
  const { summary, embedding, counts } = measured;
  const result = resultOf(measured);
  process.stdout.write(
    [
      `full enrichment run over ${summary.rows_seen} rows with ${config.BENCH_WORKERS} workers: ${result.wall_s} s (${result.rows_per_s} rows/s), target < ${TARGET_S} s: ${result.within_target ? 'met' : 'MISSED'}`,
      `changed ${summary.changed}, unchanged ${summary.unchanged}, failed ${summary.failed}, conflicts ${summary.conflicts}; ${summary.batches_total} batches of ${BATCH_SIZE}`,
      `rows with a record vector: ${counts.embedded}${config.BENCH_EMBEDDINGS ? '' : ' (embeddings off)'}; load average ${result.load_average.join(' ')}`,
      embedding
        ? `embedding alone: ${embedding.rows_per_s} rows/s per process (${embedding.ms_per_row} ms/row, ${embedding.rows} rows); at that rate embedding took ${Math.round((result.embedding_share_of_worker_time ?? 0) * 100)} % of the workers' wall time`
        : 'embedding alone: not measured',
      `CPU: workers ${result.cpu_s.workers} s, Elasticsearch ${result.cpu_s.elasticsearch} s (${result.cpu_ms_per_row} ms/row); on ${CORES} idle cores: ~${result.wall_s_on_idle_cores} s`,
      `worker RSS (MiB): idle ${result.worker_rss_mib_idle.join(', ')}; peak ${result.worker_rss_mib_peak.join(', ')}`,
      JSON.stringify(result),
    ].join('\n') + '\n',
  );
  if (summary.failed > 0 || counts.checked !== summary.rows_seen || (config.BENCH_EMBEDDINGS && counts.embedded !== summary.rows_seen))
    process.exitCode = 1;
}

/** Starts the workers and one full run; the run measured. */
async function measureRun(
  elasticsearch: Client,
  redis: ReturnType<typeof createRedisClient>,
  queue: ReturnType<typeof enrichmentQueue>,
  feedFile: string,
): Promise<Measured> {
  const embedding = config.BENCH_EMBEDDINGS && config.BENCH_EMBED_SAMPLE > 0 ? await embeddingRate(config.BENCH_EMBED_SAMPLE) : undefined;
  if (embedding) say(`embedding alone: ${embedding.rows} rows in ${embedding.seconds} s in one process (${embedding.rows_per_s} rows/s)`);
  const workers = Array.from({ length: config.BENCH_WORKERS }, () => startWorker(feedFile));
  await waitForWorkers(queue);
  const idleRss = workers.map((w) => rssMiB(w.pid));
  const esCpuS = async () => {
    const stats = await elasticsearch.nodes.stats({ metric: 'process' });
    return Object.values(stats.nodes).reduce((sum, node) => sum + (node.process?.cpu?.total_in_millis ?? 0), 0) / 1000;
  };
  const workerCpuBefore = workers.map((w) => cpuSeconds(w.pid));
  const esCpuBefore = await esCpuS();
  const started = performance.now();
  const { runId } = await requestEnrichmentRun(queue, { full: true });
  const peakRss = [...idleRss];
  const summary = await waitForRun(
    createRunStore({ redis, prefix: PREFIX }),
    runId,
    workers.map((w) => w.pid),
    peakRss,
  );
  const wallS = (performance.now() - started) / 1000;
  const workerCpuS = workers.reduce((sum, w, i) => sum + cpuSeconds(w.pid) - (workerCpuBefore[i] ?? 0), 0);
  const esCpuSpent = (await esCpuS()) - esCpuBefore;
  return { summary, wallS, workerCpuS, esCpuSpent, idleRss, peakRss, counts: await stampedCounts(elasticsearch, summary), embedding };
}

async function main(): Promise<void> {
  const elasticsearch = new Client({ node: config.ELASTICSEARCH_URL, requestTimeout: 120_000 });
  const redis = await ensureInfra(elasticsearch);
  const dir = await mkdtemp(join(tmpdir(), 'bench-enrich-'));
  const queue = enrichmentQueue({ connection: redis, prefix: PREFIX });
  try {
    say(`generating ${config.BENCH_ROWS} rows (seed ${config.BENCH_SEED})`);
    const written = await writeDataset({ dir, count: config.BENCH_ROWS, seed: config.BENCH_SEED });
    say(`ingesting into ${ALIAS}`);
    const ingested = await ingestCatalogue({ client: elasticsearch, alias: ALIAS, file: written.catalogue.path });
    say(
      `ingested ${ingested.indexed} rows in ${ingested.seconds} s; starting ${config.BENCH_WORKERS} workers (concurrency ${CONCURRENCY}, batches of ${BATCH_SIZE})`,
    );
    report(await measureRun(elasticsearch, redis, queue, written.feed.path));
  } finally {
    await stopWorkers();
    await queue.obliterate({ force: true }).catch(() => undefined);
    await queue.close().catch(() => undefined);
    const keys = await redis.keys(`${PREFIX}:*`);
    if (keys.length > 0) await redis.unlink(...keys);
    redis.disconnect();
    await elasticsearch.indices.delete({ index: `${ALIAS}*`, ignore_unavailable: true, allow_no_indices: true }).catch(() => undefined);
    await elasticsearch.close();
    await rm(dir, { recursive: true, force: true });
  }
}

process.on('SIGINT', () => void (interrupted = true));
try {
  await main();
} catch (error) {
  say(error instanceof Error ? error.message : String(error));
  await stopWorkers();
  process.exitCode = 1;
}
