// Latency and throughput of MCP tool calls through the edge, as an assistant meets them:
// `tools/call search_fragrances` with a real access token → gateway (child process; auth beside it) → this MCP
// server (its own process, as in production: token verification against a JWKS, revocation lookup,
// rate-limit script, a fresh stateless SDK server per request) → catalogue service (child process)
// → Elasticsearch. This process only generates the load (and serves the JWKS of its signing key).
//
//   node scripts/bench.ts [--records 2000] [--requests 400] [--throughput-requests 3000] [--rounds 3] [--cpu-prof dir] [--mcp-dir dir]
//
// --cpu-prof writes a V8 CPU profile of the MCP server process into `dir` when it stops.
// --mcp-dir runs <dir>/src/main.ts as the MCP server instead of services/mcp, for before/after
// figures: e.g. an older revision's services/mcp (package.json and src, from `git archive`) in a
// scratch directory with a `node_modules` symlink to services/mcp/node_modules.
//
// Each round runs, interleaved: concurrency 1 (requests one after another: p50/p99) for both
// protocol revisions (2025-11-25 stateless leg, 2026-07-28 per-request leg), then concurrency 16
// (calls/s, and the MCP process's CPU time per call from its metrics) for both; the figures are
// the medians over rounds. The per-user limit is raised so the throughput runs are not throttled.
// The last line is one JSON object.
// Targets (issue 15): ≤ 8 ms p50 at concurrency 1, ≥ 300 tool calls/s at concurrency 16.
//
// ELASTICSEARCH_URL (default the local test cluster, http://127.0.0.1:9250) and REDIS_URL (default
// redis://127.0.0.1:6390) name the shared servers; the bench uses its own index and key prefix and
// removes both at the end.
import { randomBytes } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client as Elasticsearch } from '@elastic/elasticsearch';
// eslint-disable-next-line no-restricted-imports -- a bench script, never shipped: it generates its catalogue as the tests do
import { generateCatalogue } from '@fragrance/dataset';
import { createLogger } from '@fragrance/http';
import { createRedisClient, waitForRedis } from '@fragrance/redis';
import { ingestCatalogue } from '@fragrance/search';
import { close, freePort, startService, type RunningService } from '@fragrance/testkit';
import { McpConfig, resourceOf } from '../src/config.ts';
import { jwksServer, MCP_HEADERS, mintToken, signingKey } from '../src/testing/tokens.ts';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--')),
  options: {
    records: { type: 'string', default: '2000' },
    requests: { type: 'string', default: '400' },
    'throughput-requests': { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    'cpu-prof': { type: 'string' },
    'mcp-dir': { type: 'string' },
  },
});
const RECORDS = Number(values.records);
const LATENCY_REQUESTS = Number(values.requests);
const THROUGHPUT_REQUESTS = Number(values['throughput-requests']);
const ROUNDS = Number(values.rounds);
// startService runs services/<name>/src/main.ts: another directory is named relative to services/.
const SERVICE = values['mcp-dir'] ? relative(fileURLToPath(new URL('../../', import.meta.url)), resolve(values['mcp-dir'])) : 'mcp';
// eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
const ELASTICSEARCH_URL = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9250';
// eslint-disable-next-line no-restricted-properties -- a command-line entry point reads its own environment
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6390';

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
type Revision = (typeof REVISIONS)[number];

const say = (message: string) => process.stdout.write(`[mcp bench] ${message}\n`);

const prefix = `bench-mcp-${process.pid}:`;
const alias = `bench-mcp-${process.pid}-fragrances`;
const es = new Elasticsearch({ node: ELASTICSEARCH_URL, requestTimeout: 120_000 });
const logger = createLogger('mcp-bench', 'error');
const services: RunningService[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

try {
  say(`ingesting ${RECORDS} generated records into ${alias}`);
  await ingestCatalogue({ client: es, alias, records: generateCatalogue({ count: RECORDS, seed: 15 }), replicas: 0 });
  cleanups.push(() => es.indices.delete({ index: `${alias}*`, ignore_unavailable: true, allow_no_indices: true }));

  const [gatewayPort, cataloguePort, authPort, mcpPort, mcpMetricsPort] = await Promise.all([
    freePort(),
    freePort(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const edge = `http://127.0.0.1:${gatewayPort}`;
  const catalogueUrl = `http://127.0.0.1:${cataloguePort}`;
  const key = await signingKey('bench');
  const jwks = await jwksServer([key]);
  cleanups.push(() => close(jwks.server));

  // The MCP server's settings; the process gets them as its environment, the bench mints tokens for them.
  const config = McpConfig.parse({
    MCP_URL: edge,
    OAUTH_ISSUER: 'http://issuer.bench.test',
    JWKS_URL: jwks.url,
    CATALOGUE_SERVICE_URL: catalogueUrl,
  });
  const redis = createRedisClient({ ...config, REDIS_URL }, logger, 'request-path');
  await waitForRedis(redis);
  cleanups.push(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.unlink(...keys);
    redis.disconnect();
  });

  services.push(
    await startService('catalogue', cataloguePort, {
      REDIS_URL,
      JOBS_PREFIX: `${prefix}jobs`,
      ELASTICSEARCH_URL,
      CATALOGUE_ALIAS: alias,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
    }),
  );
  services.push(
    await startService(SERVICE, mcpPort, {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      MCP_URL: edge,
      OAUTH_ISSUER: config.OAUTH_ISSUER,
      JWKS_URL: jwks.url,
      CATALOGUE_SERVICE_URL: catalogueUrl,
      // Raised per-user limit: the throughput runs measure the server, not the throttle.
      MCP_RATE_LIMIT_PER_MINUTE: '1000000',
      MCP_RATE_LIMIT_BURST: '100000',
      // Roomy on a shared, loaded machine: a slow Redis reply must not end the run with a 503.
      REDIS_COMMAND_TIMEOUT_MS: '5000',
      // Its CPU time (process_cpu_seconds_total) gives the server's own cost per call, which the
      // machine's other load hardly moves, unlike latency.
      METRICS_PORT: String(mcpMetricsPort),
      ...(values['cpu-prof'] ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${values['cpu-prof']}` } : {}),
    }),
  );
  const mcpUrl = `http://127.0.0.1:${mcpPort}`;
  // The gateway is ready only with its auth service up (it routes /oauth/*); the bench's tokens come from its own key.
  services.push(await startService('auth', authPort, { REDIS_URL, REDIS_PREFIX: prefix, MCP_URL: edge }));
  services.push(
    await startService('gateway', gatewayPort, {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      CATALOGUE_SERVICE_URL: catalogueUrl,
      AUTH_SERVICE_URL: `http://127.0.0.1:${authPort}`,
      MCP_SERVICE_URL: mcpUrl,
      MCP_URL: edge,
    }),
  );

  const token = await mintToken(key, { issuer: config.OAUTH_ISSUER, audience: resourceOf(config), expiresIn: 3600 });
  const queries = ['rose', 'vanilla', 'oud', 'citrus', 'amber', 'musk', 'iris', 'vetiver', 'leather', 'jasmine'];

  /** One tools/call of search_fragrances as each revision's clients send it. */
  const call = async (revision: Revision, n: number): Promise<void> => {
    const params = { name: 'search_fragrances', arguments: { query: queries[n % queries.length], limit: 10 } };
    const body =
      revision === '2026-07-28'
        ? {
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: {
              ...params,
              _meta: {
                'io.modelcontextprotocol/protocolVersion': revision,
                'io.modelcontextprotocol/clientInfo': { name: 'mcp-bench', version: '1.0.0' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }
        : { jsonrpc: '2.0', id: n, method: 'tools/call', params };
    const res = await fetch(`${edge}/mcp`, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': revision,
        // 2026-07-28 routing headers (SEP-2243), which must agree with the body.
        ...(revision === '2026-07-28' ? { 'mcp-method': 'tools/call', 'mcp-name': params.name } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${revision} tools/call: status ${res.status}: ${text.slice(0, 300)}`);
    const answer = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: unknown } };
    if (!answer.result?.structuredContent || answer.result.isError) throw new Error(`${revision} tools/call failed: ${text.slice(0, 300)}`);
  };

  /** `total` calls with `concurrency` in flight: latencies (ms) and calls per second. */
  /** CPU seconds the MCP server process has used so far, from its metrics endpoint. */
  const mcpCpuSeconds = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${mcpMetricsPort}/metrics`)).text();
    const value = /^process_cpu_seconds_total(?:\{[^}]*\})? (\S+)$/m.exec(text)?.[1];
    if (value === undefined) throw new Error('the MCP server reports no process_cpu_seconds_total');
    return Number(value);
  };

  const measure = async (revision: Revision, concurrency: number, total: number) => {
    const latencies: number[] = [];
    let next = 0;
    const cpuBefore = await mcpCpuSeconds();
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          const n = next++;
          const t0 = performance.now();
          await call(revision, n);
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuMsPerCall = (((await mcpCpuSeconds()) - cpuBefore) * 1000) / latencies.length;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!;
    return { p50: pct(0.5), p99: pct(0.99), callsPerSecond: latencies.length / seconds, cpuMsPerCall };
  };

  // Warm-up: JIT, connection pools, JWKS cache, ES caches.
  for (const revision of REVISIONS) await measure(revision, 4, 200);

  const rounds: Record<string, { p50: number; p99: number; callsPerSecond: number; cpuMsPerCall: number }[]> = {};
  const record = (name: string, figures: { p50: number; p99: number; callsPerSecond: number; cpuMsPerCall: number }) => {
    (rounds[name] ??= []).push(figures);
    say(
      `${name.padEnd(18)} p50 ${figures.p50.toFixed(2)} ms  p99 ${figures.p99.toFixed(2)} ms  ${figures.callsPerSecond.toFixed(0)} calls/s  mcp cpu ${figures.cpuMsPerCall.toFixed(3)} ms/call`,
    );
  };
  for (let round = 1; round <= ROUNDS; round++) {
    say(`round ${round}/${ROUNDS}`);
    for (const revision of REVISIONS) record(`${revision} c1`, await measure(revision, 1, LATENCY_REQUESTS));
    for (const revision of REVISIONS) record(`${revision} c16`, await measure(revision, 16, THROUGHPUT_REQUESTS));
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const summary: Record<string, number> = {};
  for (const revision of REVISIONS) {
    const c1 = rounds[`${revision} c1`] ?? [];
    const c16 = rounds[`${revision} c16`] ?? [];
    const tag = revision === '2025-11-25' ? 'r2025' : 'r2026';
    summary[`${tag}_p50_ms_c1`] = Number(median(c1.map((r) => r.p50)).toFixed(2));
    summary[`${tag}_p99_ms_c1`] = Number(median(c1.map((r) => r.p99)).toFixed(2));
    summary[`${tag}_calls_per_s_c16`] = Math.round(median(c16.map((r) => r.callsPerSecond)));
    summary[`${tag}_p50_ms_c16`] = Number(median(c16.map((r) => r.p50)).toFixed(2));
    summary[`${tag}_mcp_cpu_ms_per_call_c16`] = Number(median(c16.map((r) => r.cpuMsPerCall)).toFixed(3));
    say(
      `${revision}: median p50 ${summary[`${tag}_p50_ms_c1`]} ms at concurrency 1 (target ≤ 8), ` +
        `${summary[`${tag}_calls_per_s_c16`]} calls/s at concurrency 16 (target ≥ 300)`,
    );
  }
  process.stdout.write(
    `${JSON.stringify({ bench: 'mcp-tools-call-through-edge', mcp_dir: values['mcp-dir'] ?? 'services/mcp', records: RECORDS, rounds: ROUNDS, latency_requests: LATENCY_REQUESTS, throughput_requests: THROUGHPUT_REQUESTS, ...summary })}\n`,
  );
} finally {
  await Promise.all(services.map((s) => s.stop()));
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => say(`cleanup failed: ${String(error)}`));
  await es.close();
}
