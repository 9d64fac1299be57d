// The MCP server's HTTP app in process for its tests (buildApp on a free loopback port, on the real
// Redis under the test file's own prefix, tokens signed by a throw-away key whose JWKS is served
// here), and the vitest fixtures that hand a test its Redis and the apps it starts.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Express } from 'express';
import type { Redis } from 'ioredis';
import { test } from 'vitest';
import { createLogger, type Logger } from '@fragrance/http';
import { RevocationStore } from '@fragrance/identity';
import { close, listen, testRedis } from '@fragrance/testkit';
import { buildApp } from '../app.ts';
import { tokenVerifierFor, type TokenVerifier } from '../auth/verify-token.ts';
import { createCatalogue } from '../catalogue/catalogue.ts';
import { loadConfig, McpConfig, resourceOf } from '../config.ts';
import { createDeps, type RunningDeps } from '../deps.ts';
import { createRateLimiter, type McpRateLimiter } from '../rate-limit.ts';
import { INITIALIZE, jwksServer, MCP_HEADERS, mintToken, signingKey, type SigningKey, type TokenOptions } from './tokens.ts';

/** MCP_URL and OAUTH_ISSUER of a test app unless its env says otherwise. */
export const TEST_MCP_URL = 'http://mcp.example.test';
export const TEST_ISSUER = 'http://auth.example.test';
/** A catalogue address nothing answers at: initialize, tools/list and discovery never reach it. */
const NO_CATALOGUE = 'http://127.0.0.1:1';

/** A Redis connection and the key prefix everything of one test file lives under. */
export interface RedisUnderPrefix {
  url: string;
  redis: Redis;
  prefix: string;
}

/** What every app a test starts offers: its address, a token it accepts, a POST to its /mcp. */
interface RunningApp {
  /** http://127.0.0.1:<port> */
  url: string;
  /** `${url}/mcp` */
  endpoint: URL;
  config: McpConfig;
  /** The key whose JWKS the app fetches. */
  key: SigningKey;
  /** A token of `signer` (the app's key by default) for this app: its issuer and resource, unless `options` say otherwise. */
  token(options?: Partial<TokenOptions>, signer?: SigningKey): Promise<string>;
  /** POST /mcp with the MCP headers plus `headers`; `body` is initialize by default. */
  post(headers?: Record<string, string>, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export interface McpApp extends RunningApp {
  revocations: RevocationStore;
  rateLimiter: McpRateLimiter;
}

export interface McpAppOptions {
  /** Config variables over the test defaults (MCP_URL, OAUTH_ISSUER, JWKS_URL of the app's own key). */
  env?: Record<string, string>;
  /** MCP_URL is the app's own address, so every URL its documents name can be followed. */
  mcpUrlIsSelf?: boolean;
  /** The catalogue service the tools call; by default none answers (tool calls report it unavailable). */
  catalogueUrl?: string;
  catalogueTimeoutMs?: number;
  rateLimit?: { perMinute: number; burst: number };
  logger?: Logger;
  /** Token verification other than the config's (tokenVerifierFor over the test Redis' revocations). */
  verify?: (config: McpConfig, revocations: RevocationStore) => TokenVerifier;
}

/**
 * A server listening on a free loopback port (MCP_URL may have to be its own address), not serving
 * yet, and the signing key of its tokens with the JWKS serving it; `serve` puts the app in.
 */
async function listeningWithKey() {
  const key = await signingKey('test-key');
  const jwks = await jwksServer([key]);
  const server = createServer();
  const url = await listen(server);
  /** Serves `app` configured by `config`; closing it closes the server, the JWKS and then `closeDeps`. */
  const serve = (app: Express, config: McpConfig, closeDeps: () => Promise<void>): RunningApp => {
    server.on('request', app);
    return {
      url,
      endpoint: new URL(`${url}/mcp`),
      config,
      key,
      token: (options = {}, signer = key) => mintToken(signer, { issuer: config.OAUTH_ISSUER, audience: resourceOf(config), ...options }),
      post: (headers = {}, body = INITIALIZE) =>
        fetch(`${url}/mcp`, { method: 'POST', headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) }),
      close: async () => {
        await Promise.all([close(server), close(jwks.server)]);
        await closeDeps();
      },
    };
  };
  return { url, jwksUrl: jwks.url, serve };
}

/**
 * Starts the app (buildApp) on `redis` under its prefix, with the real token verification against
 * a JWKS served here, the real revocation store and rate limiter, and a catalogue client.
 */
export async function startMcpApp(redis: RedisUnderPrefix, options: McpAppOptions = {}): Promise<McpApp> {
  const { url, jwksUrl, serve } = await listeningWithKey();
  const config = McpConfig.parse({
    MCP_URL: options.mcpUrlIsSelf ? url : TEST_MCP_URL,
    OAUTH_ISSUER: TEST_ISSUER,
    JWKS_URL: jwksUrl,
    ...options.env,
  });
  const revocations = new RevocationStore(redis.redis, { prefix: redis.prefix });
  const rateLimiter = createRateLimiter({
    redis: redis.redis,
    prefix: redis.prefix,
    ...(options.rateLimit ?? { perMinute: 600, burst: 1_000 }),
  });
  const catalogue = createCatalogue({ baseUrl: options.catalogueUrl ?? NO_CATALOGUE, timeoutMs: options.catalogueTimeoutMs ?? 500 });
  const app = buildApp({
    config,
    logger: options.logger ?? createLogger('mcp-test', 'silent'),
    redis: redis.redis,
    verify: (options.verify ?? tokenVerifierFor)(config, revocations),
    rateLimiter,
    catalogue,
  });
  return { ...serve(app, config, () => catalogue.close()), revocations, rateLimiter };
}

export interface WiredMcpApp extends RunningApp {
  deps: RunningDeps;
}

/**
 * Starts the app exactly as main.ts wires it (loadConfig, createDeps: its own Redis connection,
 * revocation copy, machine clients, usage), from `env` over the test defaults and the test Redis.
 */
export async function startWiredMcpApp(redis: RedisUnderPrefix, env: Record<string, string> = {}): Promise<WiredMcpApp> {
  const { jwksUrl, serve } = await listeningWithKey();
  const config = loadConfig({
    MCP_URL: TEST_MCP_URL,
    OAUTH_ISSUER: TEST_ISSUER,
    JWKS_URL: jwksUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: redis.prefix,
    CATALOGUE_SERVICE_URL: NO_CATALOGUE,
    ...env,
  });
  const deps = createDeps(config, createLogger('mcp-test', 'silent'));
  // main.ts's connection does not queue commands while connecting; wait so the first request is not a 503.
  if (deps.redis.status !== 'ready') await once(deps.redis, 'ready');
  const closeDeps = () => deps.close().catch(() => undefined);
  return { ...serve(buildApp(deps), config, closeDeps), deps };
}

/**
 * Vitest fixtures (`mcpTest(name, async ({ redis, startApp }) => …)`): `redis`, the test file's
 * own prefix on the test Redis, removed after the file; `startApp` and `startWiredApp`, which start
 * the app on that Redis (startMcpApp, startWiredMcpApp) and close it after the file.
 */
export const mcpTest = test
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from this pattern
  .extend('redis', { scope: 'file' }, async ({}, { onCleanup }) => {
    const redis = await testRedis('mcp');
    onCleanup(() => redis.cleanup());
    return redis;
  })
  .extend('startApp', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
    const apps: McpApp[] = [];
    onCleanup(async () => {
      await Promise.all(apps.map((app) => app.close()));
    });
    return async (options: McpAppOptions = {}): Promise<McpApp> => {
      const app = await startMcpApp(redis, options);
      apps.push(app);
      return app;
    };
  })
  .extend('startWiredApp', { scope: 'file' }, async ({ redis }, { onCleanup }) => {
    const apps: WiredMcpApp[] = [];
    onCleanup(async () => {
      await Promise.all(apps.map((app) => app.close()));
    });
    return async (env: Record<string, string> = {}): Promise<WiredMcpApp> => {
      const app = await startWiredMcpApp(redis, env);
      apps.push(app);
      return app;
    };
  });
