import {
  DEV_PORTS,
  booleanFlag,
  catalogueAlias,
  host,
  httpUrl,
  logLevel,
  observabilityFields,
  millis,
  parseConfig,
  redisPrefix,
  redisConnectionFields,
  timeZone,
} from '@fragrance/config';
import { DEFAULT_JOBS_PREFIX } from '@fragrance/jobs';
import { z } from 'zod';

const positiveInt = (fallback: number, max = 1_000_000) => z.coerce.number().int().min(1).max(max).default(fallback);

// Five or six space-separated cron fields; BullMQ's cron parser does the full check at upsert.
const cron = z.string().regex(/^\S+( \S+){4,5}$/, 'must be a cron pattern such as "0 2 * * *"');

/** Every variable the worker reads; documented in docs/configuration.md. */
export const WorkerConfig = z
  .object({
    HOST: host(),
    /** Health endpoint (GET /health); 0 picks a free port. */
    PORT: z.coerce.number().int().min(0).max(65535).default(DEV_PORTS.services.worker.http),
    LOG_LEVEL: logLevel(),
    ...redisConnectionFields(),
    ...observabilityFields(DEV_PORTS.services.worker.metrics),
    ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
    CATALOGUE_ALIAS: catalogueAlias(),
    /** BullMQ key prefix; run summaries live under it too. */
    JOBS_PREFIX: redisPrefix(DEFAULT_JOBS_PREFIX),
    /** Batches one worker process enriches at once. */
    ENRICH_CONCURRENCY: positiveInt(4, 64),
    ENRICH_BATCH_SIZE: positiveInt(250, 10_000),
    /** Tries per batch before it lands in the failed list; backoff doubles from ENRICH_BACKOFF_MS. */
    ENRICH_ATTEMPTS: positiveInt(5, 50),
    ENRICH_BACKOFF_MS: millis(2_000),
    ENRICH_SCHEDULE_ENABLED: booleanFlag(true),
    ENRICH_CRON: cron.default('0 2 * * *'),
    ENRICH_TIMEZONE: timeZone('Australia/Sydney'),
    /** AU availability older than this is re-checked by the nightly run. */
    AU_STALE_HOURS: z.coerce.number().positive().default(24),
    AU_FEED_FILE: z.string().min(1).default('data/generated/au-retailer-feed.ndjson'),
    /** `local` (deterministic rules) or `openai` (any OpenAI-compatible chat-completions endpoint). */
    AI_ENRICHER: z.enum(['local', 'openai']).default('local'),
    AI_BASE_URL: httpUrl().optional(),
    AI_API_KEY: z.string().min(1).optional(),
    AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
    AI_TIMEOUT_MS: millis(30_000),
    AI_CONCURRENCY: positiveInt(4, 64),
    INGEST_CONCURRENCY: positiveInt(1, 4),
    /** Record vectors for semantic search, computed after the enrichers (docs/search.md). */
    EMBEDDINGS_ENABLED: booleanFlag(true),
    /** Directory with model.onnx and tokenizer.json (infra/embedding-model.sh); default: the checkout's .local copy. */
    EMBEDDING_MODEL_DIR: z.string().min(1).optional(),
    /** Texts per model call. */
    EMBEDDING_BATCH_SIZE: positiveInt(8, 256),
    /**
     * Materialised similar lists (docs/search.md): records per second a background pass computes,
     * one Elasticsearch request in flight at a time; 0: no lists (every similar request is live).
     */
    SIMILAR_LISTS_RATE: z.coerce.number().int().min(0).max(100_000).default(100),
    /** A job whose worker stops renewing its lock for this long is handed to another worker. */
    LOCK_DURATION_MS: millis(30_000),
    STALLED_INTERVAL_MS: millis(15_000),
    MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(100).default(3),
    /** On SIGTERM, in-flight batches get this long to finish before they are handed back. */
    SHUTDOWN_TIMEOUT_MS: millis(20_000),
  })
  .refine((c) => c.AI_ENRICHER !== 'openai' || c.AI_BASE_URL !== undefined, {
    message: 'is required when AI_ENRICHER=openai',
    path: ['AI_BASE_URL'],
  });
export type WorkerConfig = z.infer<typeof WorkerConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): WorkerConfig => parseConfig(WorkerConfig, env);
