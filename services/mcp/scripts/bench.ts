// Throughput of the MCP layer itself (token verification with a cached JWKS, revocation lookup,
// rate-limit script, a fresh stateless SDK server per request), without the catalogue:
//   node scripts/bench.ts [--requests 3000] [--concurrency 16]
// Redis from REDIS_URL, else the shared local test instance.
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { RevocationStore } from '@fragrance/identity';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { startLocalRedis } from '@fragrance/testkit';
import { buildApp } from '../src/app.ts';
import { tokenVerifierFor } from '../src/auth/verify-token.ts';
import { createCatalogueClient } from '../src/catalogue/client.ts';
import { McpConfig, resourceOf } from '../src/config.ts';
import { createRateLimiter } from '../src/rate-limit.ts';
import { close, INITIALIZE, jwksServer, listen, MCP_HEADERS, mintToken, signingKey } from '../src/test-helpers.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
  options: { requests: { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '16' } },
});
const total = Number(values.requests);
const concurrency = Number(values.concurrency);

const prefix = `bench-${process.pid}:`;
const key = await signingKey('bench');
const jwks = await jwksServer([key]);
const config = McpConfig.parse({ MCP_URL: 'http://mcp.bench.test', OAUTH_ISSUER: 'http://issuer.bench.test', JWKS_URL: jwks.url });
const logger = createLogger('mcp-bench', 'silent');
// The service's own client, so the numbers include its options (auto-pipelining, no offline queue).
// eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
const redis = createRedisClient({ ...config, REDIS_URL: process.env.REDIS_URL ?? (await startLocalRedis()) }, logger, 'request-path');
await waitForRedis(redis);
const catalogue = createCatalogueClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 1_000 });
const server = createServer(
  buildApp({
    config,
    logger,
    redis,
    verify: tokenVerifierFor(config, new RevocationStore(redis, { prefix })),
    rateLimiter: createRateLimiter({ redis, prefix, perMinute: 1_000_000, burst: 1_000_000 }),
    catalogue,
  }),
);
const url = `${await listen(server)}/mcp`;
const token = await mintToken(key, { issuer: config.OAUTH_ISSUER, audience: resourceOf(config), expiresIn: 3600 });
const headers = { ...MCP_HEADERS, authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' };

async function run(name: string, body: object): Promise<void> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const t0 = performance.now();
        const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name}: status ${res.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(1);
  process.stdout.write(
    `${name.padEnd(12)} ${(latencies.length / seconds).toFixed(0)} req/s  p50 ${pct(0.5)} ms  p99 ${pct(0.99)} ms  (${latencies.length} requests, concurrency ${concurrency})\n`,
  );
}

await run('initialize', INITIALIZE);
await run('tools/list', { jsonrpc: '2.0', id: 2, method: 'tools/list' });
await close(server);
await close(jwks.server);
await catalogue.close();
const keys = await redis.keys(`${prefix}*`);
if (keys.length) await redis.unlink(...keys);
redis.disconnect();
