import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Pool } from 'undici';
import { dispatcherFetch, runLoad } from './load.ts';
import { seededRandom } from './random.ts';

describe('runLoad', () => {
  let server: Server;
  let url: string;
  const seen: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${String(req.headers['x-key'] ?? req.headers.authorization ?? '')}`);
      res.statusCode = req.url?.includes('/fail') ? 500 : 200;
      res.end('{"ok":true}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise((r) => server.close(r)));

  it('measures a closed loop and counts non-2xx responses as errors', async () => {
    const result = await runLoad({
      url,
      concurrency: 4,
      // A count, not a rate: a loaded machine may send few requests in a short duration.
      durationMs: 60_000,
      maxRequests: 40,
      headers: { 'x-key': 'k' },
      next: (_random, i) => ({ path: i % 4 === 0 ? '/fail' : `/ok?i=${i}` }),
    });
    expect(result.requests).toBe(40);
    expect(result.errors).toBe(result.statuses['500']);
    expect(result.errors).toBe(10);
    expect(result.statuses['200']).toBe(result.requests - result.errors);
    expect(result.p50_ms).toBeGreaterThan(0);
    expect(result.p99_ms).toBeGreaterThanOrEqual(result.p50_ms);
    expect(seen.every((line) => line.endsWith(' k'))).toBe(true);
  });

  it('sends ClientCalls through @fragrance/client over its pool, with the key, counting refusals by status', async () => {
    seen.length = 0;
    const result = await runLoad({
      url,
      concurrency: 3,
      durationMs: 60_000,
      maxRequests: 30,
      apiKey: 'fcs_k',
      next: (_random, i) =>
        i % 3 === 0 ? (client) => client.fragrance('fail') : (client) => client.search({ note: ['rose', 'oud'], limit: 5 }),
    });
    expect(result.requests).toBe(30);
    expect(result.statuses['500']).toBe(10);
    expect(result.statuses['500']).toBe(result.errors);
    expect(result.errors).toBeGreaterThan(0);
    expect(result.statuses['200']).toBe(result.requests - result.errors);
    expect(seen).toContain('GET /v1/fragrances?note=rose,oud&limit=5 Bearer fcs_k');
    expect(seen).toContain('GET /v1/fragrances/fail Bearer fcs_k');
  });

  it('streams or buffers an answer through dispatcherFetch, headers and status intact', async () => {
    const pool = new Pool(url);
    try {
      for (const stream of [false, true]) {
        const statuses: number[] = [];
        const fetchOver = dispatcherFetch(pool, { stream, onStatus: (status) => statuses.push(status) });
        const answer = await fetchOver(new Request(`${url}/v1/fail`, { headers: { 'x-key': 'raw' } }));
        expect([answer.status, await answer.json()]).toEqual([500, { ok: true }]);
        expect(answer.headers.get('content-length')).toBe('11');
        expect(statuses).toEqual([500]);
      }
    } finally {
      await pool.close();
    }
    expect(seen.at(-1)).toBe('GET /v1/fail raw');
  });

  it('counts a dead upstream as errors rather than throwing', async () => {
    const result = await runLoad({ url: 'http://127.0.0.1:1', concurrency: 2, durationMs: 100, next: () => ({ path: '/' }) });
    expect(result.requests).toBeGreaterThan(0);
    expect(result.errors).toBe(result.requests);
  });
});

describe('seededRandom', () => {
  it('repeats for a seed and differs between seeds', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const c = seededRandom(8);
    const xs = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xs);
    expect([c(), c(), c()]).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
