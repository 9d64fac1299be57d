// The gateway's HTTP app in process for its tests (buildApp on a free loopback port, its Redis
// opened as main.ts opens it), a stand-in catalogue, and the vitest fixtures that hand a test
// its Redis, its key store, its upstream and the gateways it starts.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import { test } from 'vitest';
import { createKeyStore, type Clock } from '@fragrance/api-keys';
import { createLogger, type Logger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { close, listen, testRedis, type TestRedis } from '@fragrance/testkit';
import { buildApp } from '../app.ts';
import { GatewayConfig } from '../config.ts';
import { startDegradedAdmission } from '../degraded-admission.ts';
import { startFailoverReplay } from '../failover-replay.ts';
import { createUpstreamAgent } from '../proxy.ts';

export const bearer = (apiKey: string) => ({ authorization: `Bearer ${apiKey}` });

/** Log lines captured in memory, to search them. */
export function captureLogs(name = 'gateway-test'): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  return { logger: createLogger(name, 'trace', destination), lines };
}

export interface FakeUpstream {
  url: string;
  server: Server;
  /** Every request that reached it, as `METHOD /target`, in order (a test may empty it). */
  requests: string[];
  close: () => Promise<void>;
}

/**
 * A stand-in catalogue on a free loopback port that echoes what the gateway forwarded as JSON
 * (`url`, `method`, `requestId`, `auth`), and never answers under /v1/fragrances/slow.
 */
export async function startFakeUpstream(onRequest?: (req: IncomingMessage) => void): Promise<FakeUpstream> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method ?? ''} ${req.url ?? ''}`);
    onRequest?.(req);
    if (req.url === '/health') return void res.end('ok');
    if (req.url?.startsWith('/v1/fragrances/slow')) return; // never answers
    res.setHeader('content-type', 'application/json');
    res.end(
      JSON.stringify({ url: req.url, method: req.method, requestId: req.headers['x-request-id'], auth: req.headers.authorization ?? null }),
    );
  });
  return { url: await listen(server), server, requests, close: () => close(server) };
}

/** What a test may set on a gateway; every field has the file's default (see gatewayTest). */
export interface GatewayOptions {
  /** Redis server and key prefix the gateway is configured with (REDIS_URL, REDIS_PREFIX). */
  redisUrl?: string;
  prefix?: string;
  /** A connection to use as is instead of one opened from the config (a dead or hung Redis). */
  redis?: Redis;
  /** CATALOGUE_SERVICE_URL. */
  upstreamUrl?: string;
  /** Further variables, as main.ts would read them. */
  env?: Record<string, string>;
  clock?: Clock;
  logger?: Logger;
  /**
   * Admit recently seen keys while Redis cannot answer, as main.ts does; the journal goes to a
   * fresh directory (removed on close) unless `env` names ADMISSION_JOURNAL_DIR.
   */
  degraded?: boolean;
}

export interface GatewayUnderTest {
  /** http://127.0.0.1:<port> */
  url: string;
  server: Server;
  config: GatewayConfig;
  close: () => Promise<void>;
}

/**
 * Starts the gateway app (buildApp) on a free loopback port, configured as main.ts would be from
 * `env` over the harness's defaults: a 300 ms upstream timeout (the stand-in stalls on purpose)
 * and a 10 s Redis command timeout (tests of the fail-fast bound set their own).
 */
export async function startGatewayApp(
  options: GatewayOptions & { redisUrl: string; prefix: string; upstreamUrl: string },
): Promise<GatewayUnderTest> {
  const journalDir = options.degraded && !options.env?.ADMISSION_JOURNAL_DIR ? mkdtempSync(join(tmpdir(), 'fcs-journal-')) : undefined;
  const config = GatewayConfig.parse({
    REDIS_URL: options.redisUrl,
    REDIS_PREFIX: options.prefix,
    CATALOGUE_SERVICE_URL: options.upstreamUrl,
    UPSTREAM_TIMEOUT_MS: '300',
    REDIS_COMMAND_TIMEOUT_MS: '10000',
    ...(journalDir ? { ADMISSION_JOURNAL_DIR: journalDir } : {}),
    ...options.env,
  });
  const logger = options.logger ?? createLogger('gateway-test', 'silent');
  const redis = options.redis ?? createRedisClient(config, logger, 'request-path');
  const opened = options.redis ? undefined : redis;
  if (opened) await waitForRedis(opened);
  const agents = {
    catalogue: createUpstreamAgent(),
    ...(config.AUTH_SERVICE_URL ? { auth: createUpstreamAgent() } : {}),
    ...(config.MCP_SERVICE_URL ? { mcp: createUpstreamAgent() } : {}),
  };
  const clock = options.clock ? { clock: options.clock } : {};
  const degraded = options.degraded ? startDegradedAdmission({ config, redis, logger, ...clock }) : undefined;
  // As main.ts: on unless FAILOVER_REPLAY_WINDOW_MS is 0.
  const failover = startFailoverReplay({ config, redis, logger });
  const server = createServer(
    buildApp({ config, logger, redis, agents, ...clock, ...(degraded ? { degraded } : {}), ...(failover ? { failover } : {}) }),
  );
  return {
    url: await listen(server),
    server,
    config,
    close: async () => {
      await close(server);
      degraded?.close();
      failover?.close();
      await Promise.all(Object.values(agents).map((agent) => agent.close()));
      opened?.disconnect();
      if (journalDir) rmSync(journalDir, { recursive: true, force: true });
    },
  };
}

/**
 * Vitest fixtures (`gatewayTest(name, async ({ gateway, keys }) => …)`), each set up only when a
 * test asks for it:
 * - `redis`: the file's own prefix on the test Redis, its keys removed after the file;
 * - `keys`: the key store on that Redis and prefix;
 * - `upstream`: a stand-in catalogue (startFakeUpstream), closed after the file;
 * - `gatewayOptions`: the file's gateway settings, `{}` unless the file overrides it
 *   (`gatewayTest.extend('gatewayOptions', { scope: 'file' }, …)`);
 * - `gateway`: the file's gateway on `redis` and `upstream` with `gatewayOptions`, closed after the file;
 * - `startGateway`: starts another gateway like it, `options` over `gatewayOptions` (`env` merged),
 *   closed after the test.
 */
export const gatewayTest = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }): Promise<TestRedis> => {
    const redis = await testRedis('gateway');
    onCleanup(() => redis.cleanup());
    return redis;
  })
  .extend('keys', { scope: 'file' }, ({ redis }) => createKeyStore({ redis: redis.redis, prefix: redis.prefix }))
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('upstream', { scope: 'file' }, async ({}, { onCleanup }) => {
    const upstream = await startFakeUpstream();
    onCleanup(() => upstream.close());
    return upstream;
  })
  .extend('gatewayOptions', { scope: 'file' }, {} as GatewayOptions)
  .extend('gateway', { scope: 'file' }, async ({ redis, upstream, gatewayOptions }, { onCleanup }) => {
    const gateway = await startGatewayApp({ redisUrl: redis.url, prefix: redis.prefix, upstreamUrl: upstream.url, ...gatewayOptions });
    onCleanup(() => gateway.close());
    return gateway;
  })
  .extend('startGateway', ({ redis, upstream, gatewayOptions }, { onCleanup }) => {
    const gateways: GatewayUnderTest[] = [];
    onCleanup(async () => {
      await Promise.all(gateways.map((gateway) => gateway.close()));
    });
    return async (options: GatewayOptions = {}): Promise<GatewayUnderTest> => {
      const gateway = await startGatewayApp({
        redisUrl: redis.url,
        prefix: redis.prefix,
        upstreamUrl: upstream.url,
        ...gatewayOptions,
        ...options,
        env: { ...gatewayOptions.env, ...options.env },
      });
      gateways.push(gateway);
      return gateway;
    };
  });
