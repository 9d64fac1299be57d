import { describe, expect } from 'vitest';
import { parseList } from 'structured-headers';
import { createKeyStore } from '@fragrance/api-keys';
import { createFragranceClient, FragranceApiError } from '@fragrance/client';
import { Problem, UsageResponse } from '@fragrance/contracts';
import { bearer, gatewayTest } from './testing/app.ts';

let now = Date.parse('2026-03-10T12:00:00Z');
const at = (iso: string) => void (now = Date.parse(iso));

/** The file's gateway and key store on a clock the tests move (`at`). */
const it = gatewayTest
  .extend('gatewayOptions', { scope: 'file' }, { clock: () => now })
  .extend('keys', { scope: 'file' }, ({ redis }) => createKeyStore({ redis: redis.redis, prefix: redis.prefix, clock: () => now }))
  .extend(
    'get',
    { scope: 'file' },
    ({ gateway }) =>
      (path: string, apiKey: string) =>
        fetch(`${gateway.url}${path}`, { headers: bearer(apiKey) }),
  )
  // The project's own client on this gateway, as a customer calls the API.
  .extend(
    'clientOf',
    { scope: 'file' },
    ({ gateway }) =>
      (apiKey: string) =>
        createFragranceClient({ baseUrl: `${gateway.url}/v1`, apiKey }),
  );

describe('GET /v1/usage and the quota headers (real Redis, fake clock)', () => {
  const refusal = async (call: Promise<unknown>): Promise<FragranceApiError> => {
    const error: unknown = await call.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(FragranceApiError);
    return error as FragranceApiError;
  };

  it("returns the key's counted requests per day, free of charge", async ({ keys, clientOf }) => {
    const { apiKey, record } = await keys.create({ owner: 'Usage Pty Ltd', quota: 1_000, burst: 1_000 });
    const client = clientOf(apiKey);
    const made: Record<string, number> = { '2026-03-08': 3, '2026-03-09': 0, '2026-03-10': 5 };
    for (const [day, count] of Object.entries(made)) {
      at(`${day}T23:59:00Z`);
      for (let i = 0; i < count; i += 1) await client.search({ query: 'rose' });
    }
    at('2026-03-10T23:59:30Z');
    for (let i = 0; i < 4; i += 1) {
      // The typed call with its response, for the headers.
      const { data, response } = await client.api.GET('/usage', { params: { query: { from: '2026-03-07', to: '2026-03-10' } } });
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('ratelimit-remaining')).toBe('995');
      expect(UsageResponse.parse(data)).toEqual({
        key_id: record.id,
        owner: 'Usage Pty Ltd',
        time_zone: 'UTC',
        from: '2026-03-07',
        to: '2026-03-10',
        total: 8,
        days: [
          { date: '2026-03-07', requests: 0 },
          { date: '2026-03-08', requests: 3 },
          { date: '2026-03-09', requests: 0 },
          { date: '2026-03-10', requests: 5 },
        ],
      });
    }
    // Reading usage counted nothing.
    expect((await client.me()).used_today).toBe(5);
  });

  it('defaults to the last 30 days ending today, and never reaches past 90', async ({ keys, clientOf }) => {
    at('2026-03-10T08:00:00Z');
    const client = clientOf((await keys.create({ owner: 'defaults', quota: 10 })).apiKey);
    const body = await client.usage();
    expect(body).toMatchObject({ from: '2026-02-09', to: '2026-03-10', total: 0 });
    expect(body.days).toHaveLength(30);
    expect((await client.usage({ from: '2025-12-11' })).days).toHaveLength(90);
    expect(await client.usage({ to: '2025-12-20' })).toMatchObject({ from: '2025-12-11', to: '2025-12-20' });
  });

  it('refuses bad ranges with problem+json naming the parameter', async ({ keys, get, clientOf }) => {
    at('2026-03-10T08:00:00Z');
    const { apiKey } = await keys.create({ owner: 'bad ranges', quota: 10 });
    const client = clientOf(apiKey);
    const cases: [{ from?: string; to?: string }, string][] = [
      [{ to: '2026-03-11' }, 'to'],
      [{ from: '2026-03-11' }, 'from'],
      [{ from: '2026-03-05', to: '2026-03-04' }, 'from'],
      [{ from: '2025-12-10' }, 'from'],
      [{ from: '2026-02-30' }, 'from'],
      [{ from: '10-03-2026' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
    ];
    for (const [query, name] of cases) {
      const refused = await refusal(client.usage(query));
      expect([refused.status, refused.code], JSON.stringify(query)).toEqual([400, 'invalid_parameter']);
      expect(
        refused.problem?.invalid_params?.map((p) => p.name),
        JSON.stringify(query),
      ).toContain(name);
    }
    // What the typed client cannot send: a repeated and an unknown parameter.
    for (const [query, name] of [
      ['?from=2026-03-01&from=2026-03-02', 'from'],
      ['?days=7', 'days'],
    ] as const) {
      const res = await get(`/v1/usage${query}`, apiKey);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const problem = Problem.parse(await res.json());
      expect(problem.code).toBe('invalid_parameter');
      expect(problem.invalid_params?.map((p) => p.name)).toContain(name);
    }
    expect((await client.me()).used_today).toBe(0);
  });

  it('states the daily quota in the IETF RateLimit fields beside the three legacy headers', async ({ keys, get }) => {
    at('2026-03-10T23:00:00Z');
    const { apiKey } = await keys.create({ owner: 'draft headers', quota: 250 });
    const res = await get('/v1/fragrances', apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('ratelimit-policy')).toBe('"daily";q=250;w=86400');
    expect(res.headers.get('ratelimit')).toBe('"daily";r=249;t=3600');
    const [limit] = parseList(res.headers.get('ratelimit')!);
    expect(limit?.[0]).toBe('daily');
    expect(Object.fromEntries(limit?.[1] ?? [])).toEqual({
      r: Number(res.headers.get('ratelimit-remaining')),
      t: Number(res.headers.get('ratelimit-reset')),
    });
  });

  it('names the burst policy in a burst 429, its reset equal to Retry-After', async ({ keys, get }) => {
    at('2026-03-10T23:00:00Z');
    const { apiKey } = await keys.create({ owner: 'bursty', quota: 100, burst: 1, refillPerSecond: 0.25 });
    expect((await get('/v1/fragrances', apiKey)).status).toBe(200);
    const res = await get('/v1/fragrances', apiKey);
    expect(res.status).toBe(429);
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBe(4);
    expect(res.headers.get('ratelimit')).toBe(`"burst";r=0;t=${retryAfter}, "daily";r=99;t=3600`);
    expect(Problem.parse(await res.json()).retry_after_seconds).toBe(retryAfter);
  });

  it('says a refunded request is not counted, in RateLimit too', async ({ keys, get }) => {
    at('2026-03-10T23:00:00Z');
    const { apiKey } = await keys.create({ owner: 'refunded', quota: 50 });
    const res = await get('/v1/fragrances/slow', apiKey); // the stand-in upstream never answers: 504
    expect(res.status).toBe(504);
    expect(res.headers.get('ratelimit-remaining')).toBe('50');
    expect(res.headers.get('ratelimit')).toBe('"daily";r=50;t=3600');
  });
});
