import { z } from 'zod';
import {
  DEV_PORTS,
  booleanFlag,
  cacheBytes,
  catalogueAlias,
  host,
  httpUrl,
  logLevel,
  millis,
  observabilityFields,
  parseConfig,
  port,
  redisConnectionFields,
  redisPrefix,
  shutdownTimeout,
} from '@fragrance/config';

const MIN_SECRET_LENGTH = 32;
// The message never contains the value: config errors are printed at start-up.
const cursorSecret = () =>
  z.string().min(MIN_SECRET_LENGTH, {
    error: `must be at least ${MIN_SECRET_LENGTH} characters of random data (e.g. openssl rand -base64 48)`,
  });

/** Every variable the catalogue service reads; documented in docs/configuration.md. */
export const CatalogueConfig = z.object({
  HOST: host(),
  PORT: port(DEV_PORTS.services.catalogue.http),
  LOG_LEVEL: logLevel(),
  ...observabilityFields(DEV_PORTS.services.catalogue.metrics),
  ELASTICSEARCH_URL: httpUrl().default('http://127.0.0.1:9200'),
  /** Alias searched and read; ingest swaps it between index versions. */
  CATALOGUE_ALIAS: catalogueAlias(),
  /** Longest wait for one Elasticsearch request. */
  ELASTICSEARCH_TIMEOUT_MS: millis(5_000),
  /** Consecutive failed Elasticsearch requests (no answer, timeout, 5xx) that open the circuit breaker. */
  ELASTICSEARCH_BREAKER_THRESHOLD: z.coerce
    .number({ error: 'must be a whole number of requests' })
    .int({ error: 'must be a whole number of requests' })
    .min(1, { error: 'must be at least 1' })
    .default(5),
  /** How long the open breaker refuses every request before it lets one through as a probe. */
  ELASTICSEARCH_BREAKER_HALF_OPEN_MS: millis(2_000),
  SHUTDOWN_TIMEOUT_MS: shutdownTimeout(),
  /** The public {base_url}, advertised in the OpenAPI document's `servers`. */
  PUBLIC_BASE_URL: httpUrl().default(`http://127.0.0.1:${DEV_PORTS.services.gateway.http}/v1`),
  /**
   * HMAC-SHA256 key signing every `next_cursor`. Required, no default: a guessable key would let
   * clients forge cursors. `npm start` generates and keeps one; tests pass their own.
   */
  CURSOR_SECRET: cursorSecret(),
  /** The key before the last rotation: cursors it signed are still accepted, none are issued with it. */
  CURSOR_SECRET_PREVIOUS: cursorSecret().optional(),
  /** Where the worker bumps the enrichment generation the response cache is keyed by (REDIS_URL, or Sentinels). */
  ...redisConnectionFields(),
  /**
   * The worker's JOBS_PREFIX (same variable, same default as DEFAULT_JOBS_PREFIX in @fragrance/jobs):
   * the worker bumps the enrichment generation under it.
   */
  JOBS_PREFIX: redisPrefix('fcs:jobs'),
  /** Longest wait for one Redis reply; past it the request is answered without the cache. */
  REDIS_COMMAND_TIMEOUT_MS: millis(500),
  /** Semantic and hybrid search (loads the embedding model at start); false: every search is lexical. */
  EMBEDDINGS_ENABLED: booleanFlag(true),
  /** Directory with model.onnx and tokenizer.json (infra/embedding-model.sh); default: the checkout's .local copy. */
  EMBEDDING_MODEL_DIR: z.string().min(1).optional(),
  /** Bytes of answers the in-process response cache may hold (bodies, keys, overhead); 0 turns it off. */
  RESPONSE_CACHE_MAX_BYTES: cacheBytes(64 * 1024 * 1024),
  /**
   * How often the generation held in process is read again in the background: the bound for an
   * alias swapped without a generation bump (ingest, rollback and the worker bump it, which is
   * seen at once).
   */
  RESPONSE_CACHE_GENERATION_CHECK_MS: millis(1_000),
  /**
   * stale-if-error (RFC 5861): while Elasticsearch fails, a cached answer of the last generation
   * confirmed current is served for this long after that confirmation, marked with Age and
   * Cache-Status; 0 turns it off.
   */
  RESPONSE_CACHE_STALE_IF_ERROR_SECONDS: z.coerce
    .number({ error: 'must be a whole number of seconds' })
    .int({ error: 'must be a whole number of seconds' })
    .min(0, { error: 'must be at least 0 (0 turns it off)' })
    .max(86_400, { error: 'must be at most 86400 (a day)' })
    .default(300),
});
export type CatalogueConfig = z.infer<typeof CatalogueConfig>;

export const loadConfig = (env: Readonly<Record<string, string | undefined>>): CatalogueConfig => parseConfig(CatalogueConfig, env);
