import { GrantStore, MachineClientStore, RevocationStore } from '@fragrance/identity';
import type { Logger } from '@fragrance/http';
import { createRedisClient } from '@fragrance/redis';
import type { McpDeps } from './app.ts';
import { createRevocationMirror, type RevocationMirror } from './auth/revocation-mirror.ts';
import { tokenVerifierFor } from './auth/verify-token.ts';
import { createCatalogue } from './catalogue/catalogue.ts';
import type { McpConfig } from './config.ts';
import { createRateLimiter } from './rate-limit.ts';

export interface RunningDeps extends McpDeps {
  revocations: RevocationMirror;
  /** Closes the Redis connection and the catalogue client (on shutdown). */
  close(): Promise<void>;
}

/**
 * Everything the app needs, built from the configuration alone. main.ts runs exactly this, and
 * tests build the app through it too, so a setting main.ts fails to wire shows up as a failing test.
 */
export function createDeps(config: McpConfig, logger: Logger): RunningDeps {
  // Fail fast rather than queue commands while Redis is away: requests get a 503 instead.
  const redis = createRedisClient(config, logger, 'request-path');
  const catalogue = createCatalogue({ baseUrl: config.CATALOGUE_SERVICE_URL, timeoutMs: config.CATALOGUE_TIMEOUT_MS });
  const store = new RevocationStore(redis, { prefix: config.REDIS_PREFIX });
  // Tokens stay verifiable while Redis is away, against a copy synced every REVOCATION_SYNC_MS.
  const revocations = createRevocationMirror({
    store,
    syncMs: config.REVOCATION_SYNC_MS,
    maxAgeMs: config.REVOCATION_COPY_MAX_AGE_MS,
    logger,
  });
  // Machine clients (`ops clients create --machine`): each call counts against the client's own daily quota.
  const machineClients = new MachineClientStore(redis, { prefix: config.REDIS_PREFIX, revocations: store });
  const verify = tokenVerifierFor(config, revocations, { machineClients });
  const usage = new GrantStore(redis, { prefix: config.REDIS_PREFIX, revocations: store });
  const rateLimiter = createRateLimiter({
    redis,
    prefix: config.REDIS_PREFIX,
    perMinute: config.MCP_RATE_LIMIT_PER_MINUTE,
    burst: config.MCP_RATE_LIMIT_BURST,
  });
  return {
    config,
    logger,
    redis,
    verify,
    revocations,
    rateLimiter,
    catalogue,
    usage,
    close: async () => {
      revocations.close();
      await Promise.all([redis.quit(), catalogue.close()]);
    },
  };
}
