import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, freePort, listen, REPO_ROOT, testRedis, waitForHealthy, type TestRedis } from '@fragrance/testkit';

// The floor is only a fair comparison if it does the per-request work it claims: one Redis
// round trip, the request forwarded as the gateway forwards it, the answer relayed whole.
describe('floor-edge (bench:gateway BENCH_FLOOR=1)', () => {
  let redis: TestRedis;
  let upstream: Server;
  let edge: ChildProcess;
  let edgeUrl: string;
  let counterKey: string;
  const received: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
  const body = JSON.stringify({ data: Array.from({ length: 200 }, (_, i) => ({ id: `f-${i}`, name: 'x'.repeat(400) })) });

  beforeAll(async () => {
    redis = await testRedis('floor');
    counterKey = `${redis.prefix}requests`;
    upstream = createServer((req, res) => {
      received.push({ url: req.url, headers: req.headers });
      if (req.url?.startsWith('/v1/fragrances/missing'))
        res.writeHead(404, { 'content-type': 'application/problem+json' }).end('{"code":"not_found"}');
      else res.writeHead(200, { 'content-type': 'application/json', etag: '"v1"' }).end(body);
    });
    const upstreamUrl = await listen(upstream);
    const port = await freePort();
    edgeUrl = `http://127.0.0.1:${port}`;
    edge = spawn(process.execPath, ['packages/bench/src/floor-edge.ts'], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        PORT: String(port),
        REDIS_URL: redis.url,
        CATALOGUE_SERVICE_URL: upstreamUrl,
        FLOOR_COUNTER_KEY: counterKey,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitForHealthy(edgeUrl, 30_000, () => {
      if (edge.exitCode !== null) throw new Error(`floor-edge exited with ${edge.exitCode}`);
    });
  });
  afterAll(async () => {
    if (edge?.exitCode === null) {
      const exited = new Promise((resolve) => edge.once('exit', resolve));
      edge.kill('SIGTERM');
      await exited;
    }
    if (upstream) await close(upstream);
    await redis?.cleanup();
  });

  it('counts every request in Redis and relays the answer whole, without the key', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${edgeUrl}/v1/fragrances?query=rose%20oud&limit=20`, {
        headers: { authorization: 'Bearer fcs_secret', 'x-request-id': `req-${i}` },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBe('"v1"');
      expect(await res.text()).toBe(body);
    }
    expect(await redis.redis.get(counterKey)).toBe('3');
    expect(received.map((r) => r.url)).toEqual(Array(3).fill('/v1/fragrances?query=rose%20oud&limit=20'));
    expect(received.every((r) => r.headers.authorization === undefined)).toBe(true);
    expect(received.map((r) => r.headers['x-request-id'])).toEqual(['req-0', 'req-1', 'req-2']);
  });

  it('relays an upstream error as it is', async () => {
    const res = await fetch(`${edgeUrl}/v1/fragrances/missing`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ code: 'not_found' });
  });

  it('answers 502 when the upstream is unreachable', async () => {
    await close(upstream);
    const res = await fetch(`${edgeUrl}/v1/fragrances/abc`);
    expect(res.status).toBe(502);
  });
});
