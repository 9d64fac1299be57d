// The client against the real gateway and catalogue (their own processes) over a real
// Elasticsearch index, with API keys and quotas in a real Redis.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore, type KeyStore } from '@fragrance/api-keys';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import { startStack, testElasticsearch, testRedis, type Stack, type TestElasticsearch, type TestRedis } from '@fragrance/testkit';
import { createFragranceClient, FragranceApiError } from './client.ts';

const RECORDS = 250;

describe('@fragrance/client against the running API', () => {
  let es: TestElasticsearch;
  let redis: TestRedis;
  let stack: Stack;
  let keys: KeyStore;
  let baseUrl: string;

  beforeAll(async () => {
    [es, redis] = await Promise.all([testElasticsearch('client'), testRedis('client')]);
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records: generateCatalogue({ count: RECORDS, seed: 20_26 }), replicas: 0 });
    stack = await startStack({ services: ['catalogue', 'gateway'], redis, elasticsearchUrl: es.url, alias });
    keys = createKeyStore({ redis: redis.redis, prefix: redis.prefix });
    baseUrl = `${stack.urls.edge}/v1`;
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
    // Sent together: one token, so some are refused (all but one unless a slow machine spreads
    // them a refill apart), each told to wait the one second the next token takes.
    const answers = await Promise.allSettled([1, 2, 3].map(() => impatient.search({ limit: 1 })));
    const refused = answers.flatMap((answer) => (answer.status === 'rejected' ? [answer.reason as unknown] : []));
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const burst of refused) {
      expect(burst).toBeInstanceOf(FragranceApiError);
      const { status, code, retryAfterSeconds } = burst as FragranceApiError;
      expect([status, code, retryAfterSeconds]).toEqual([429, 'burst_limit_exceeded', 1]);
    }

    // The patient client sees the 429 (recorded below its retry loop), waits, and succeeds.
    const statuses: number[] = [];
    const recording = async (request: Request) => {
      const response = await fetch(request);
      statuses.push(response.status);
      return response;
    };
    const patient = createFragranceClient({ baseUrl, apiKey, retryOn429: { maxRetries: 3, maxWaitSeconds: 5 }, fetch: recording });
    const started = Date.now();
    await Promise.all([patient.search({ limit: 1 }), patient.search({ limit: 1 })]);
    // At most one token at the start: the second search waited for a refill.
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 200)).toHaveLength(2);

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

  it('sends list parameters comma-separated, as the document says (a repeated parameter is refused)', async () => {
    const { apiKey } = await keys.create({ owner: 'client-lists', quota: 1_000 });
    const client = createFragranceClient({ baseUrl, apiKey });
    const [hit] = (await client.search({ limit: 1, sort: 'votes' })).data;
    const detail = await client.fragrance(hit!.id);
    const notes = [...detail.notes.top, ...detail.notes.heart, ...detail.notes.base].slice(0, 2);
    expect(notes).toHaveLength(2);
    const both = await client.search({ note: notes, limit: 100, facets: ['brand', 'decade'] });
    expect(both.data.map((h) => h.id)).toContain(hit!.id);
    expect(Object.keys(both.facets ?? {}).sort()).toEqual(['brand', 'decade']);
    const one = await client.search({ note: notes.slice(0, 1), limit: 1 });
    expect(one.total).toBeGreaterThanOrEqual(both.total);
  });

  it('wraps the browse endpoints and the usage report (free)', async () => {
    const { apiKey } = await keys.create({ owner: 'client-browse', quota: 1_000 });
    const client = createFragranceClient({ baseUrl, apiKey });
    const [notes, accords, perfumers, brands] = await Promise.all([
      client.notes({ limit: 5 }),
      client.accords({ limit: 5 }),
      client.perfumers({ limit: 5 }),
      client.brands({ limit: 1 }),
    ]);
    for (const list of [notes, accords, perfumers]) expect(list.data.length).toBeGreaterThan(0);
    expect(notes).toEqual(await client.terms('notes', { limit: 5 }));
    const brand = await client.brand(brands.data[0]!.slug);
    expect(brand.name).toBe(brands.data[0]!.name);
    expect((await client.suggest({ q: brand.name.slice(0, 4) })).data.length).toBeGreaterThan(0);

    const today = new Date().toISOString().slice(0, 10);
    const usage = await client.usage({ from: today, to: today });
    // Seven counted requests above (terms twice); usage and /me are free.
    expect(usage).toMatchObject({ owner: 'client-browse', from: today, to: today, total: 7, days: [{ date: today, requests: 7 }] });
    expect((await client.usage()).days).toHaveLength(30);
    expect((await client.me()).used_today).toBe(7);
    const refused = await refusal(client.usage({ from: today, to: '2000-01-01' }));
    expect(refused.code).toBe('invalid_parameter');
  });

  it('streams the export as parsed records, gzip or not, billed one request per 1,000 records', async () => {
    const { apiKey } = await keys.create({ owner: 'client-export', quota: 1_000 });
    const client = createFragranceClient({ baseUrl, apiKey });
    const ids: string[] = [];
    let last: { updated_at: string; id: string } | undefined;
    for await (const record of client.exportAll()) {
      ids.push(record.id);
      last = record;
    }
    expect(new Set(ids).size).toBe(RECORDS);
    // The global fetch decodes the gzip transfer: the same lines arrive.
    const text = await new Response(await client.exportStream({}, { gzip: true })).text();
    expect(text.trimEnd().split('\n')).toHaveLength(RECORDS);
    // Resuming after the last record: nothing left.
    const rest = [];
    for await (const record of client.exportAll({ after: `${last!.updated_at},${last!.id}` })) rest.push(record);
    expect(rest).toEqual([]);
    expect((await client.me()).used_today).toBe(3);
  });
});
