import { Redis } from 'ioredis';
import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createUpstreamAgent } from './proxy.ts';

const config = loadConfig(process.env);
const logger = createLogger('gateway', config.LOG_LEVEL);
// Fail fast rather than queue commands while Redis is away: requests get a 503 instead.
const redis = new Redis(config.REDIS_URL, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1_000 });
redis.on('error', (err) => logger.warn({ err: { message: err.message } }, 'redis connection error'));
const agents = {
  catalogue: createUpstreamAgent(),
  ...(config.AUTH_SERVICE_URL ? { auth: createUpstreamAgent() } : {}),
  ...(config.MCP_SERVICE_URL ? { mcp: createUpstreamAgent() } : {}),
};

await serve({
  app: buildApp({ config, logger, redis, agents }),
  host: config.HOST,
  port: config.PORT,
  logger,
  onShutdown: async () => {
    await Promise.all([redis.quit(), ...Object.values(agents).map((agent) => agent.close())]);
  },
});
