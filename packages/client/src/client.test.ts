// The client against the real gateway and catalogue (their own processes) over a real
// Elasticsearch index, with API keys and quotas in a real Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, type KeyStore } from '@fragrance/api-keys';
import { startFuzzStack, type FuzzTarget } from '@fragrance/fuzz';
import { testElasticsearch, testRedis, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { createFragranceClient, FragranceApiError } from './index.ts';

const RECORDS = 250;

describe('@fragrance/client against the running API', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let stack: FuzzTarget;
  let keys: KeyStore;
  let baseUrl: string;

  beforeAll(async () => {
    [es, redis] = await Promise.all([testElasticsearch('client'), testRedis('client')]);
    stack = await startFuzzStack({ elasticsearchUrl: es.url, redisUrl: redis.url, prefix: es.prefix, records: RECORDS });
    keys = createKeyStore({ redis: redis.redis, prefix: es.prefix });
    baseUrl = `${stack.baseUrl}/v1`;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([es?.cleanup(), redis?.cleanup()]);
  });

  /** Rejection of a call as the typed error it must be. */
  const refusal = async (call: Promise<unknown>): Promise<FragranceApiError> => {
    const error: unknown = await call.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(FragranceApiError);
    return error as FragranceApiError;
  };

  it('sends the key, returns typed data, and pages through every hit by cursor', async () => {
    const { apiKey } = await keys.create({ owner: 'client-pages', quota: 1_000 });
    const client = createFragranceClient({ baseUrl, apiKey });
    expect((await client.me()).owner).toBe('client-pages');
    const first = await client.search({ limit: 3 });
    expect(first.data).toHaveLength(3);
    const detail = await client.fragrance(first.data[0]!.id);
    expect(detail.id).toBe(first.data[0]!.id);
    expect(detail.notes.top.length + detail.notes.heart.length + detail.notes.base.length).toBeGreaterThan(0);

    const ids: string[] = [];
    for await (const hit of client.searchAll({ limit: 100, sort: 'updated' })) ids.push(hit.id);
    expect(ids).toHaveLength(RECORDS);
    expect(new Set(ids).size).toBe(RECORDS);
    // 1 + 1 + 1 pages of 100 + the 3-hit page + the detail; /me is free.
    const me = await client.me();
    expect(me.used_today).toBe(5);
  });

  it('turns problem+json into FragranceApiError with the contract code', async () => {
    const { apiKey } = await keys.create({ owner: 'client-errors', quota: 1_000 });
    const client = createFragranceClient({ baseUrl, apiKey });
    const missing = await refusal(client.fragrance('00000000-0000-4000-8000-000000000000'));
    expect(missing.status).toBe(404);
    expect(missing.code).toBe('not_found');
    expect(missing.requestId).toBeTruthy();

    const bad = await refusal(client.search({ limit: 0 }));
    expect(bad.code).toBe('invalid_parameter');
    expect(bad.problem?.invalid_params?.[0]?.name).toBe('limit');

    const cursor = await refusal(client.search({ cursor: 'not-a-cursor' }));
    expect(cursor.code).toBe('invalid_cursor');

    const stranger = await refusal(createFragranceClient({ baseUrl, apiKey: `fcs_${'x'.repeat(43)}` }).me());
    expect([stranger.status, stranger.code]).toEqual([401, 'unauthorized']);
  });

  it('waits out a burst 429 when asked to (bounded), and never waits for a daily quota', async () => {
    const { apiKey } = await keys.create({ owner: 'client-burst', quota: 1_000, burst: 1, refillPerSecond: 1 });
    const impatient = createFragranceClient({ baseUrl, apiKey });
    await impatient.search({ limit: 1 });
    const burst = await refusal(impatient.search({ limit: 1 }));
    expect([burst.status, burst.code, burst.retryAfterSeconds]).toEqual([429, 'burst_limit_exceeded', 1]);

    const patient = createFragranceClient({ baseUrl, apiKey, retryOn429: { maxRetries: 3, maxWaitSeconds: 5 } });
    const started = Date.now();
    await patient.search({ limit: 1 });
    await patient.search({ limit: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const { apiKey: oneADay } = await keys.create({ owner: 'client-daily', quota: 1 });
    const daily = createFragranceClient({ baseUrl, apiKey: oneADay, retryOn429: true });
    await daily.search({ limit: 1 });
    const spent = Date.now();
    const quota = await refusal(daily.search({ limit: 1 }));
    expect(quota.code).toBe('daily_quota_exceeded');
    expect(quota.retryAfterSeconds).toBeGreaterThan(10);
    // Refused at once: the wait it asks for is beyond maxWaitSeconds.
    expect(Date.now() - spent).toBeLessThan(5_000);
  });
});
