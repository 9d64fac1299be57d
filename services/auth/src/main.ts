import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'auth', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'auth', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('auth', config.LOG_LEVEL);
// Fails fast while Redis is away (requests get a 503); the app reads its keys from Redis at start.
const redis = createRedisClient(config, logger, 'request-path');
await waitForRedis(redis);
const lifecycle = new Lifecycle();

const { app } = await buildApp({
  issuer: config.MCP_URL,
  resource: config.MCP_RESOURCE ?? `${config.MCP_URL}/mcp`,
  redis,
  prefix: config.REDIS_PREFIX,
  logger,
  ttl: {
    accessToken: config.ACCESS_TOKEN_TTL_SECONDS,
    authorizationCode: config.AUTHORIZATION_CODE_TTL_SECONDS,
    session: config.SESSION_TTL_SECONDS,
    refreshTokenIdle: config.REFRESH_TOKEN_IDLE_SECONDS,
    refreshTokenMax: config.REFRESH_TOKEN_MAX_AGE_SECONDS,
  },
  registrationLimitPerHour: config.REGISTRATION_LIMIT_PER_HOUR,
  login: {
    perAccount: config.LOGIN_LIMIT_PER_ACCOUNT,
    perAddress: config.LOGIN_LIMIT_PER_ADDRESS,
    windowSeconds: config.LOGIN_THROTTLE_WINDOW_SECONDS,
  },
  trustProxy: config.TRUST_PROXY === 'true' ? true : config.TRUST_PROXY === 'false' ? false : config.TRUST_PROXY,
  lifecycle,
});

const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ redis: () => redis.status === 'ready' });

await serve({
  app,
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: async () => void (await Promise.all([redis.quit(), metrics.close(), tracing.shutdown()])),
});
