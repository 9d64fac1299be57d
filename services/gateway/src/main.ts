import { bufferedStdout, createLogger, Lifecycle, serve } from '@fragrance/http';
import { createRedisClient } from '@fragrance/redis';
import { configureMetrics, observeDependencies, serveMetrics } from '@fragrance/metrics';
import { initTracing } from '@fragrance/tracing';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { startDegradedAdmission } from './degraded-admission.ts';
import { startFailoverReplay } from './failover-replay.ts';
import { createUpstreamAgent } from './proxy.ts';

const config = loadConfig(process.env);
configureMetrics({ service: 'gateway', enabled: config.METRICS_ENABLED });
const tracing = initTracing({ service: 'gateway', otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT });
const logger = createLogger('gateway', config.LOG_LEVEL, bufferedStdout());
// Fails fast while Redis is away: data requests get a 503 in well under a second (docs/gateway.md).
const redis = createRedisClient(config, logger, 'request-path');
const agents = {
  catalogue: createUpstreamAgent(),
  ...(config.AUTH_SERVICE_URL ? { auth: createUpstreamAgent() } : {}),
  ...(config.MCP_SERVICE_URL ? { mcp: createUpstreamAgent() } : {}),
};

// While Redis cannot answer, keys seen recently are admitted from memory and journalled (docs/operations.md#degraded-admission).
const degraded = startDegradedAdmission({ config, redis, logger });
// What Redis counted lately is replayed into a new primary, which may lack it (docs/operations.md#degraded-admission).
const failover = startFailoverReplay({ config, redis, logger });
const lifecycle = new Lifecycle();
const metrics = await serveMetrics({ host: config.METRICS_HOST, port: config.METRICS_PORT, logger });
observeDependencies({ redis: () => redis.status === 'ready' });

await serve({
  app: buildApp({ config, logger, redis, agents, lifecycle, ...(degraded ? { degraded } : {}), ...(failover ? { failover } : {}) }),
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: async () => {
    // Whatever was admitted locally is on disk; Redis gets one last chance to take it first.
    await degraded?.replay().catch(() => undefined);
    degraded?.close();
    failover?.close();
    await Promise.all([
      redis.quit().catch(() => redis.disconnect()),
      ...Object.values(agents).map((agent) => agent.close()),
      metrics.close(),
      tracing.shutdown(),
    ]);
  },
});
