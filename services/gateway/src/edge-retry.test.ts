// The load balancer retries a request on another gateway when the first died or closed before
// answering (HAProxy `retry-on empty-response …`), after the first may already have admitted it.
// With TRUST_EDGE_REQUEST_ID the edge's per-request id makes admission idempotent across
// instances: the retry is admitted once, not counted twice.
import { describe, expect } from 'vitest';
import { bearer, captureLogs, gatewayTest, type GatewayUnderTest } from './testing/app.ts';

const EDGE_ID = 'x-edge-request-id';

/** Two instances with the same settings on one Redis, as behind the edge (each its own connection), logging to `logs`. */
const it = gatewayTest
  .extend('logs', () => captureLogs())
  .extend(
    'pair',
    ({ startGateway, logs }) =>
      async (env: Record<string, string>) =>
        Promise.all([startGateway({ env, logger: logs.logger }), startGateway({ env, logger: logs.logger })]),
  );
const TRUSTING = { TRUST_EDGE_REQUEST_ID: 'true' };

describe('an edge retry through a second gateway instance', () => {
  const get = (gateway: GatewayUnderTest, path: string, apiKey: string, edgeId?: string) =>
    fetch(`${gateway.url}${path}`, { headers: { ...bearer(apiKey), ...(edgeId ? { [EDGE_ID]: edgeId } : {}) } }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });

  it('admits one edge request once, whichever instances it passes through', async ({ keys, pair, logs }) => {
    const { apiKey, record } = await keys.create({ owner: 'edge-retry', quota: 100 });
    const [a, b] = await pair(TRUSTING);
    expect(await get(a, '/v1/fragrances?query=rose', apiKey, 'edge-1')).toBe(200);
    expect(await get(b, '/v1/fragrances?query=rose', apiKey, 'edge-1')).toBe(200);
    expect(await get(a, '/v1/fragrances?query=rose', apiKey, 'edge-1')).toBe(200);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(1);
    // Each repeat is logged (rare: an instance died or closed before answering), naming the key id.
    const repeats = logs.lines.filter((line) => line.includes('edge retry of an admitted request'));
    expect(repeats).toHaveLength(2);
    expect(repeats[0]).toContain(record.id);
    // Another edge request is another request.
    expect(await get(b, '/v1/fragrances?query=rose', apiKey, 'edge-2')).toBe(200);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(2);
  });

  it('keeps ids apart per key: one id sent with two keys counts once for each', async ({ keys, pair }) => {
    const first = await keys.create({ owner: 'edge-key-1', quota: 100 });
    const second = await keys.create({ owner: 'edge-key-2', quota: 100 });
    const [a, b] = await pair(TRUSTING);
    expect(await get(a, '/v1/fragrances', first.apiKey, 'edge-shared')).toBe(200);
    expect(await get(b, '/v1/fragrances', second.apiKey, 'edge-shared')).toBe(200);
    expect(await keys.usedToday(first.record.id, 'UTC')).toBe(1);
    expect(await keys.usedToday(second.record.id, 'UTC')).toBe(1);
  });

  it('counts the retry of a request that failed and was refunded on the first instance', async ({ keys, pair }) => {
    const { apiKey, record } = await keys.create({ owner: 'edge-refunded', quota: 100 });
    const [a, b] = await pair(TRUSTING);
    // The stand-in catalogue never answers this one: 504 after UPSTREAM_TIMEOUT_MS, refunded.
    expect(await get(a, '/v1/fragrances/slow', apiKey, 'edge-3')).toBe(504);
    await expect.poll(() => keys.usedToday(record.id, 'UTC')).toBe(0);
    // The edge retries it (retry-on 503/response-timeout) elsewhere: answered, so charged once.
    expect(await get(b, '/v1/fragrances/x', apiKey, 'edge-3')).toBe(200);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(1);
  });

  it('ignores the header when the instance is not configured to trust it (a client could replay one id for free)', async ({
    keys,
    pair,
  }) => {
    const { apiKey, record } = await keys.create({ owner: 'edge-untrusted', quota: 100 });
    const [a, b] = await pair({});
    expect(await get(a, '/v1/fragrances', apiKey, 'edge-4')).toBe(200);
    expect(await get(b, '/v1/fragrances', apiKey, 'edge-4')).toBe(200);
    expect(await get(a, '/v1/fragrances', apiKey, 'edge-4')).toBe(200);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(3);
  });
});
