import { createServer, type Server } from 'node:http';
import type { Client } from '@elastic/elasticsearch';
import { handleProbe, Lifecycle, NotFoundError, writeProblem, type Logger } from '@fragrance/http';
import {
  createRunStore,
  enrichmentQueue,
  ingestQueue,
  JOB_NAMES,
  QUEUE_NAMES,
  registerNightlySchedule,
  type RunStore,
} from '@fragrance/jobs';
import { isRedisConnectionError } from '@fragrance/redis';
import { toIndexDocument } from '@fragrance/search';
import { Worker, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { WorkerConfig } from './config.ts';
import { localModel, openAiModel, type AiModel } from './enrichers/ai.ts';
import { buildEnrichers } from './enrichers/index.ts';
import type { RowEmbedder } from './enrich/embed.ts';
import { feedLoader } from './feed.ts';
import type { SimilarRefresher } from './similar.ts';
import { compactFinishedRun } from './enrich/compact.ts';
import { enrichmentProcessor, ingestProcessor, recordFailedBatch, type RunFinishedHook } from './processors.ts';
import { withNewTrace } from '@fragrance/tracing';
import { observeQueues } from './metrics.ts';

export interface WorkerDeps {
  config: WorkerConfig;
  logger: Logger;
  /** Redis connection with `maxRetriesPerRequest: null` (BullMQ needs it for blocking calls). */
  redis: Redis;
  elasticsearch: Client;
  /** Record vectors after the enrichers (main.ts loads the model when EMBEDDINGS_ENABLED). */
  embedder?: RowEmbedder | undefined;
  /** Keeps the materialised similar lists current; asked for a pass after runs and ingests (main.ts starts it when SIMILAR_LISTS_RATE > 0). */
  similar?: SimilarRefresher | undefined;
}

export interface RunningWorker {
  runs: RunStore;
  queues: { enrichment: Queue; ingest: Queue };
  workers: { enrichment: Worker; ingest: Worker };
  health: () => Promise<{ ok: boolean; checks: Record<string, 'up' | 'down'> }>;
  /**
   * Stops taking jobs and waits for in-flight ones; after `timeoutMs` the rest are cancelled
   * and handed back to the queue (another worker redoes them). Closes the queues, not the
   * connections it was given.
   */
  close: (timeoutMs?: number) => Promise<void>;
}

export function aiModelFrom(config: WorkerConfig): AiModel {
  if (config.AI_ENRICHER === 'local' || !config.AI_BASE_URL) return localModel();
  return openAiModel({
    baseUrl: config.AI_BASE_URL,
    apiKey: config.AI_API_KEY,
    model: config.AI_MODEL,
    timeoutMs: config.AI_TIMEOUT_MS,
    concurrency: config.AI_CONCURRENCY,
  });
}

/**
 * Runs each job of a processor in a trace of its own. Three named parameters on purpose: BullMQ
 * hands a processor the abort signal (cancelAllJobs on shutdown) only when its `length` is ≥ 3,
 * and a rest-parameter wrapper has length 0.
 */
const tracedJobs =
  <J, T, S, R>(processor: (job: J, token: T, signal: S) => R) =>
  (job: J, token: T, signal: S): R =>
    withNewTrace(() => processor(job, token, signal));

type Queues = Record<'enrichment' | 'ingest', Queue>;
type Runs = ReturnType<typeof createRunStore>;

/** BullMQ settings both workers share. */
const workerOptions = ({ config, redis }: WorkerDeps) => ({
  connection: redis,
  prefix: config.JOBS_PREFIX,
  lockDuration: config.LOCK_DURATION_MS,
  stalledInterval: config.STALLED_INTERVAL_MS,
  maxStalledCount: config.MAX_STALLED_COUNT,
});

/** The enrichment worker: plans runs into batches and enriches each batch. */
function enrichmentWorker(deps: WorkerDeps, queues: Queues, runs: Runs, onRunFinished: RunFinishedHook): Worker {
  const { config, logger, redis, elasticsearch } = deps;
  const prefix = config.JOBS_PREFIX;
  const feed = feedLoader(config.AU_FEED_FILE);
  const auStaleMs = config.AU_STALE_HOURS * 3_600_000;
  const enrichers = buildEnrichers({ feed, auStaleMs, model: aiModelFrom(config) });
  return new Worker(
    QUEUE_NAMES.enrichment,
    // Each job is a trace of its own: its log lines share one trace id.
    tracedJobs(
      enrichmentProcessor({
        runs,
        logger,
        onRunFinished,
        similar: deps.similar,
        plan: {
          elasticsearch,
          alias: config.CATALOGUE_ALIAS,
          runs,
          queue: queues.enrichment,
          feed,
          auStaleMs,
          batchSize: config.ENRICH_BATCH_SIZE,
          batchAttempts: config.ENRICH_ATTEMPTS,
          batchBackoffMs: config.ENRICH_BACKOFF_MS,
          logger,
          embeddingModel: deps.embedder?.modelKey,
        },
        batch: {
          elasticsearch,
          alias: config.CATALOGUE_ALIAS,
          enrichers,
          toDocument: toIndexDocument,
          logger,
          generation: { redis, prefix },
          embedder: deps.embedder,
        },
      }),
    ),
    { ...workerOptions(deps), concurrency: config.ENRICH_CONCURRENCY },
  );
}

/** The ingest worker: an ingest holds its lock for minutes; renewals keep it, a dead worker's lock still expires. */
function ingestWorker(deps: WorkerDeps, queues: Queues): Worker {
  const { config, logger, redis, elasticsearch } = deps;
  return new Worker(
    QUEUE_NAMES.ingest,
    tracedJobs(
      ingestProcessor({
        elasticsearch,
        alias: config.CATALOGUE_ALIAS,
        enrichmentQueue: queues.enrichment,
        logger,
        generation: { redis, prefix: config.JOBS_PREFIX },
        similar: deps.similar,
      }),
    ),
    { ...workerOptions(deps), concurrency: config.INGEST_CONCURRENCY },
  );
}

/**
 * BullMQ re-emits every failed reconnect of each of its connections; the Redis client reports an
 * outage once (createRedisClient in main.ts), so only other errors are logged here. A queue
 * without an error listener would print each one to stderr.
 */
function logErrors(logger: Logger, workers: Worker[], queues: Queues): void {
  const onError = (queue: string) => (error: Error) => {
    if (!isRedisConnectionError(error)) logger.error({ err: error, queue }, 'worker error');
  };
  for (const worker of workers) worker.on('error', onError(worker.name));
  for (const queue of [queues.enrichment, queues.ingest]) queue.on('error', onError(queue.name));
}

/** Up when Redis, Elasticsearch and both workers are. */
async function healthOf({ redis, elasticsearch }: WorkerDeps, workers: Worker[]): ReturnType<RunningWorker['health']> {
  const [redisUp, esUp] = await Promise.all([
    redis.ping().then(
      () => true,
      () => false,
    ),
    // Not ping(): HEAD / is not served by every distribution (the integ-test-zip answers 405).
    elasticsearch.cluster.health({ timeout: '1s' }).then(
      () => true,
      () => false,
    ),
  ]);
  const running = workers.every((w) => w.isRunning());
  return {
    ok: redisUp && esUp && running,
    checks: { redis: redisUp ? 'up' : 'down', elasticsearch: esUp ? 'up' : 'down', workers: running ? 'up' : 'down' },
  };
}

/** Lets in-flight jobs finish for up to `timeoutMs`, then hands them back; closes the queues. */
async function closeAll({ logger }: WorkerDeps, workers: Worker[], queues: Queues, timeoutMs: number): Promise<void> {
  const closing = Promise.all(workers.map((w) => w.close()));
  const timer = setTimeout(() => {
    logger.warn('in-flight jobs did not finish in time; handing them back');
    for (const worker of workers) worker.cancelAllJobs('shutdown');
  }, timeoutMs);
  try {
    await closing;
  } finally {
    clearTimeout(timer);
  }
  await Promise.all([queues.enrichment.close(), queues.ingest.close()]);
}

/** Wires the queues, the run store, the enrichers and two BullMQ workers; registers the nightly entry. */
export async function startWorker(deps: WorkerDeps): Promise<RunningWorker> {
  const { config, logger, redis, elasticsearch } = deps;
  const prefix = config.JOBS_PREFIX;
  const queues = { enrichment: enrichmentQueue({ connection: redis, prefix }), ingest: ingestQueue({ connection: redis, prefix }) };
  const runs = createRunStore({ redis, prefix });
  // A run that rewrote much of the index leaves it fragmented: merged in the background.
  const onRunFinished = () => compactFinishedRun(elasticsearch, config.CATALOGUE_ALIAS, logger);
  const enrichment = enrichmentWorker(deps, queues, runs, onRunFinished);
  const ingest = ingestWorker(deps, queues);

  // A batch can also fail outside the processor (stalled too often): make sure its run still finishes.
  enrichment.on('failed', (job, error) => {
    if (job?.name !== JOB_NAMES.enrichBatch) return;
    void job
      .getState()
      .then((state) => (state === 'failed' ? recordFailedBatch(runs, job, logger, onRunFinished) : undefined))
      .catch((e: unknown) => logger.error({ err: e, cause: error.message }, 'could not record a failed batch'));
  });
  logErrors(logger, [enrichment, ingest], queues);

  observeQueues([queues.enrichment, queues.ingest]);
  await Promise.all([enrichment.waitUntilReady(), ingest.waitUntilReady()]);
  if (config.ENRICH_SCHEDULE_ENABLED) {
    await registerNightlySchedule(queues.enrichment, { cron: config.ENRICH_CRON, timezone: config.ENRICH_TIMEZONE });
    logger.info({ cron: config.ENRICH_CRON, timezone: config.ENRICH_TIMEZONE }, 'nightly enrichment scheduled');
  }
  logger.info({ concurrency: config.ENRICH_CONCURRENCY, batch_size: config.ENRICH_BATCH_SIZE, ai: config.AI_ENRICHER }, 'worker ready');

  return {
    runs,
    queues,
    workers: { enrichment, ingest },
    health: () => healthOf(deps, [enrichment, ingest]),
    close: (timeoutMs = config.SHUTDOWN_TIMEOUT_MS) => closeAll(deps, [enrichment, ingest], queues, timeoutMs),
  };
}

/**
 * GET /health: 200 when Redis, Elasticsearch and both workers are up, else 503. GET /health/live
 * and /health/ready: the probes every service answers (ready: the same checks, and 503 while
 * draining on SIGTERM).
 */
export function healthServer(running: Pick<RunningWorker, 'health'>, lifecycle = new Lifecycle()): Server {
  const workerUp = async () => {
    const report = await running.health();
    if (!report.ok) throw new Error('a dependency is down');
  };
  return createServer((req, res) => {
    if (handleProbe(req, res, { lifecycle, required: { worker: workerUp }, timeoutMs: 2_000 })) return;
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/health') {
      writeProblem(res, new NotFoundError('This port serves only GET /health, /health/live and /health/ready.'));
      return;
    }
    void running.health().then(
      (report) => {
        res.writeHead(report.ok ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ status: report.ok ? 'ok' : 'unavailable', checks: report.checks }));
      },
      () => {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ status: 'unavailable' }));
      },
    );
  });
}
