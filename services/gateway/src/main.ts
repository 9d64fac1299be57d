import { pino } from 'pino';
import { createLogger, serve } from '@fragrance/http';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { createUpstreamAgent } from './proxy.ts';
import { createRedis } from './redis.ts';

const config = loadConfig(process.env);
// Request lines are buffered (4 KB) instead of one write(2) per line: the edge logs every request.
// pino flushes the buffer on exit.
const logger = createLogger('gateway', config.LOG_LEVEL, pino.destination({ dest: 1, minLength: 4096, sync: false }));
const redis = createRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, logger);
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
    await Promise.all([redis.quit().catch(() => redis.disconnect()), ...Object.values(agents).map((agent) => agent.close())]);
  },
});
