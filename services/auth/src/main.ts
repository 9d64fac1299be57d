import { createLogger, Lifecycle, serve } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';

const config = loadConfig(process.env);
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
    refreshToken: config.REFRESH_TOKEN_TTL_SECONDS,
    session: config.SESSION_TTL_SECONDS,
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

await serve({
  app,
  host: config.HOST,
  port: config.PORT,
  logger,
  lifecycle,
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  onShutdown: async () => void (await redis.quit()),
});
