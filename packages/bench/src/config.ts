// Every bench's environment: one zod schema per bench, parsed once when the bench starts
// (`benchConfig(Schema)`), so a bad value fails before anything runs and names the variable.
// Nothing else in this package reads process.env; `inheritedEnv()` is what child processes get.
import { z } from 'zod';
import { booleanFlag, DEV_PORTS, httpUrl, logLevel, parseConfig } from '@fragrance/config';

export const DEFAULT_ES = `http://127.0.0.1:${DEV_PORTS.elasticsearch}`;
export const DEFAULT_REDIS = `redis://127.0.0.1:${DEV_PORTS.redis}`;

/** A positive whole number (counts, rounds, concurrency). */
const whole = (fallback: number) =>
  z.coerce.number({ error: 'must be a number' }).int({ error: 'must be a whole number' }).min(1).default(fallback);
/** A positive duration (fractions allowed). */
const positive = (fallback: number) => z.coerce.number({ error: 'must be a number' }).positive().default(fallback);
const portNumber = () => z.coerce.number({ error: 'must be a port number' }).int().min(1).max(65535);
const redisUrl = () => z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' });
/** Not set: the bench picks (a free port, its own instance); a blank variable counts as unset. */
const optional = <T extends z.ZodType>(schema: T) => schema.optional();
const driver = (fallback: 'client' | 'raw') => z.enum(['client', 'raw'], { error: 'must be client or raw' }).default(fallback);

/** The checkout's state every bench may use (support.ts). */
export const LocalStateConfig = z.object({
  /** Where `npm start` keeps its state (its cursor secret, Redis directories); default `<repo>/.local`. */
  FRAGRANCE_LOCAL_DIR: optional(z.string().min(1)),
  /** The catalogue's cursor key; else the dev stack's, else a fresh one (support.ts cursorSecret). */
  CURSOR_SECRET: optional(z.string().min(1)),
});

/** The Elasticsearch a bench uses: the dev one (started when down) unless set. */
const common = { ELASTICSEARCH_URL: httpUrl().default(DEFAULT_ES) };

export const SearchBenchConfig = z.object({
  ...common,
  BENCH_DURATION_S: positive(20),
  BENCH_CONCURRENCY: whole(32),
  BENCH_WARMUP_S: positive(3),
  BENCH_ROUNDS: whole(4),
  BENCH_LATENCY_S: positive(12),
  /** The concurrency-1 phase in this many interleaved rounds: one request at a time is the most sensitive to the machine's load of the moment. */
  BENCH_LATENCY_ROUNDS: whole(6),
  BENCH_LOG_LEVEL: logLevel(),
  /**
   * Also runs a second catalogue and gateway with METRICS_ENABLED=false, in the same interleaved
   * rounds, and reports the throughput ratio metrics on / off (target ≥ 0.97).
   */
  BENCH_METRICS_OFF: booleanFlag(false),
  BENCH_ALIAS: z.string().min(1).default('fragrances'),
  /** Catalogue, gateway and Redis on this port and the next two instead of free ports. */
  BENCH_PORT_BASE: optional(portNumber()),
  /**
   * How the load generator sends the service's requests: `raw` (default) as the bare GET the client
   * would send, the answer read whole but not parsed, exactly as target (a) reads Elasticsearch's;
   * `client` through @fragrance/client, as customers do, parsing every answer. The load generator
   * shares the machine's two cores, so its own CPU per request (driver_cpu_ms_per_request in the
   * JSON) is taken from the targets it drives: with `client`, (b) and (c) pay for JSON parsing that
   * (a) does not (about 0.2 ms more per request), on the cores they are measured on.
   */
  BENCH_DRIVER: driver('raw'),
  /** A running Redis for the services this bench starts; else one of its own. */
  BENCH_REDIS_URL: optional(redisUrl()),
  /** A running gateway (with BENCH_API_KEY) instead of one this bench starts. */
  BENCH_GATEWAY_URL: optional(httpUrl()),
  BENCH_API_KEY: optional(z.string().min(1)),
  BENCH_SKIP_GATEWAY: booleanFlag(false),
});

export const GatewayBenchConfig = z.object({
  ...common,
  BENCH_DURATION_S: positive(20),
  BENCH_CONCURRENCY: whole(32),
  BENCH_WARMUP_S: positive(10),
  /** Segments per side; each side runs BENCH_DURATION_S in total. */
  BENCH_SEGMENTS: whole(4),
  BENCH_LOG_LEVEL: logLevel(),
  BENCH_METRICS_OFF: booleanFlag(false),
  BENCH_CPU_PROFILE_DIR: optional(z.string().min(1)),
  /** Default: client, or raw with BENCH_KEYS (a page's Origin needs the raw driver's headers). */
  BENCH_DRIVER: optional(z.enum(['client', 'raw'], { error: 'must be client or raw' })),
  /** publishable: a publishable-key side beside the secret key's. */
  BENCH_KEYS: optional(z.enum(['publishable'], { error: 'must be publishable' })),
  /**
   * Hybrid searches cost Elasticsearch several times what lexical ones do, which hides the edge's
   * own cost behind the upstream's; the issue 13 figures (ratio 0.84, 0.66 ms) were measured with
   * lexical searches, so that is the default.
   */
  BENCH_SEARCH: z.enum(['lexical', 'hybrid'], { error: 'must be lexical or hybrid' }).default('lexical'),
  /**
   * The catalogue's in-process response cache is off unless set: every segment replays the same
   * seeded sequence, so with the cache on, whichever side ran a request first paid for it and the
   * other got a cache hit, and the ratio measured the cache's hit rates, not the edge.
   */
  BENCH_CATALOGUE_CACHE: booleanFlag(false),
  BENCH_BASELINE_SRC: optional(z.string().min(1)),
  BENCH_GATEWAY_NODE_OPTIONS: z.string().default(''),
  BENCH_BASELINE_NODE_OPTIONS: z.string().default(''),
  /** A JSON object of variables for the baseline gateway only (e.g. {"LOG_LEVEL":"warn"}). */
  BENCH_BASELINE_ENV: z
    .string()
    .default('{}')
    .transform((text, ctx) => {
      try {
        return z.record(z.string(), z.string()).parse(JSON.parse(text));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON object of strings' });
        return z.NEVER;
      }
    }),
  BENCH_FLOOR: booleanFlag(false),
});

export const SuggestBenchConfig = z.object({
  ...common,
  BENCH_ALIAS: z.string().min(1).default('fragrances'),
  BENCH_RECORDS: whole(75_000),
  BENCH_DURATION_S: positive(10),
  BENCH_ROUNDS: whole(4),
  BENCH_LOG_LEVEL: logLevel().default('warn'),
});

export const EnrichBenchConfig = z.object({
  ...common,
  REDIS_URL: redisUrl().default(DEFAULT_REDIS),
  BENCH_ROWS: whole(75_000),
  BENCH_SEED: z.coerce.number().int().default(42),
  BENCH_WORKERS: whole(2),
  /** Passed to the workers as is. */
  ENRICH_CONCURRENCY: whole(4),
  ENRICH_BATCH_SIZE: whole(250),
  BENCH_EMBEDDINGS: booleanFlag(true),
  BENCH_EMBED_SAMPLE: whole(2000),
  BENCH_TIMEOUT_MIN: positive(15),
  BENCH_LOG_LEVEL: logLevel().default('warn'),
});

export const IngestBenchConfig = z.object({
  ELASTICSEARCH_URL: common.ELASTICSEARCH_URL,
  BENCH_COUNT: whole(75_000),
  BENCH_INGEST_CONCURRENCY: whole(3),
  BENCH_INGEST_BATCH: whole(1000),
});

export const ExportBenchConfig = z.object({
  ELASTICSEARCH_URL: common.ELASTICSEARCH_URL,
  BENCH_COUNT: whole(75_000),
  BENCH_ROUNDS: whole(3),
  BENCH_PORT: optional(portNumber()),
});

export const ImportBenchConfig = z.object({
  ELASTICSEARCH_URL: common.ELASTICSEARCH_URL,
  BENCH_LINES: whole(100_000),
  BENCH_ROUNDS: whole(1),
  /** Caps the child's old generation (--max-old-space-size); unset: V8's default. */
  BENCH_HEAP_MB: optional(whole(1)),
});

export const ChaosBenchConfig = z.object({
  BENCH_CHAOS_SETTLE_S: positive(8),
  BENCH_CONCURRENCY: whole(8),
  // Longer than the gateway's upstream timeout (10 s) and HAProxy's server timeout (30 s): the edge
  // answers every request before the bench gives up on it, so which ones were charged is known.
  BENCH_REQUEST_TIMEOUT_MS: whole(60_000),
  /** Which faults to inject (comma list), in this order: instances, rolling, es, es-outage, redis, worker. */
  BENCH_CHAOS_FAULTS: z
    .string()
    .default('instances,rolling,es,es-outage,redis,worker')
    .transform((list) => new Set(list.split(',').map((f) => f.trim()))),
});

/** bench:relevance's knobs; its command-line flags override them (relevance/options.ts). */
export const RelevanceBenchConfig = z.object({
  ELASTICSEARCH_URL: common.ELASTICSEARCH_URL,
  BENCH_RELEVANCE_DOCS: optional(z.string()),
  BENCH_RELEVANCE_QUERIES: optional(z.string()),
  BENCH_RELEVANCE_SEED: optional(z.string()),
  BENCH_RELEVANCE_KEEP: optional(z.string()),
});

/** The floor edge bench:gateway starts (floor-edge.ts): everything set by the bench. */
export const FloorEdgeConfig = z.object({
  PORT: portNumber(),
  REDIS_URL: redisUrl(),
  CATALOGUE_SERVICE_URL: httpUrl(),
  FLOOR_COUNTER_KEY: z.string().min(1).default('bench:floor-edge:requests'),
});

/** Parses this process's environment with a bench's schema; a bad variable fails naming it. */
export function benchConfig<S extends z.ZodType>(schema: S): z.infer<S> {
  return parseConfig(schema, process.env);
}

/** The environment child processes (services, the ops CLI, Elasticsearch and Redis scripts) inherit. */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}
