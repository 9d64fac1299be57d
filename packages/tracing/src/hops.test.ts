// One request's trace id in the log lines of every service it passes (gateway → catalogue), with
// the services as real processes on real Elasticsearch and Redis, and their metrics ports.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyStore } from '@fragrance/api-keys';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import {
  freePort,
  startService,
  testElasticsearch,
  testRedis,
  waitFor,
  type RunningService,
  type TestElasticsearch,
  type TestRedis,
} from '@fragrance/testkit';

const KNOWN = makeRecord({
  id: '0b7e3c52-9d41-4f8a-a1c6-3e2f5d7b9a10',
  name: 'Traced Rose',
  brand: 'Maison Testière',
  country: 'FR',
  concentration: 'Eau de Parfum',
  year_released: 2020,
  notes: { top: ['bergamot'], heart: ['rose'], base: ['musk'] },
});

type Line = Record<string, unknown> & { trace_id?: string; req?: { id?: string; path?: string } };
const linesOf = (service: RunningService): Line[] =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);

describe('trace context across hops', () => {
  let redis: TestRedis;
  let es: TestElasticsearch;
  let catalogue: RunningService;
  let gateway: RunningService;
  let apiKey: string;
  const metricsPorts = { gateway: 0, catalogue: 0 };

  beforeAll(async () => {
    [redis, es] = await Promise.all([testRedis('trace-hops'), testElasticsearch('trace-hops')]);
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records: [KNOWN], replicas: 0 });
    ({ apiKey } = await createKeyStore({ redis: redis.redis, prefix: redis.prefix }).create({ owner: 'tracer', quota: 100 }));
    const [cataloguePort, gatewayPort] = [await freePort(), await freePort()];
    [metricsPorts.catalogue, metricsPorts.gateway] = [await freePort(), await freePort()];
    catalogue = await startService('catalogue', cataloguePort, {
      ELASTICSEARCH_URL: es.url,
      CATALOGUE_ALIAS: alias,
      CURSOR_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPorts.catalogue),
    });
    gateway = await startService('gateway', gatewayPort, {
      REDIS_URL: redis.url,
      REDIS_PREFIX: redis.prefix,
      CATALOGUE_SERVICE_URL: catalogue.url,
      LOG_LEVEL: 'info',
      METRICS_PORT: String(metricsPorts.gateway),
    });
  }, 90_000);
  afterAll(async () => {
    await Promise.all([gateway?.stop(), catalogue?.stop()]);
    await Promise.all([redis?.cleanup(), es?.cleanup()]);
  });

  /** The request line of `requestId` in a service's log (the gateway flushes its lines each second). */
  const requestLine = (service: RunningService, requestId: string) =>
    waitFor(() => linesOf(service).find((line) => line.req?.id === requestId), { description: `${service.name} request line` });

  it('joins the traceparent sent to the edge: the same trace id in the gateway and catalogue lines', async () => {
    const traceId = randomBytes(16).toString('hex');
    const res = await fetch(`${gateway.url}/v1/fragrances?query=rose`, {
      headers: { authorization: `Bearer ${apiKey}`, traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    expect((await requestLine(gateway, requestId)).trace_id).toBe(traceId);
    expect((await requestLine(catalogue, requestId)).trace_id).toBe(traceId);
  });

  it('starts a trace at the edge when the client sends none, and passes it on', async () => {
    const res = await fetch(`${gateway.url}/v1/fragrances/${KNOWN.id}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id')!;
    const atEdge = (await requestLine(gateway, requestId)).trace_id;
    expect(atEdge).toMatch(/^[0-9a-f]{32}$/);
    expect((await requestLine(catalogue, requestId)).trace_id).toBe(atEdge);
  });

  /** The value of the series `name` whose labels include all of `labels` (any order). */
  const sample = (text: string, name: string, labels: Record<string, string>) => {
    const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
    const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && wanted.every((pair) => l.includes(pair)));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };

  it('exposes each service’s metrics on its own loopback port, with route templates and outcomes', async () => {
    const scrape = async (port: number) => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const edge = await scrape(metricsPorts.gateway);
    expect(sample(edge, 'gateway_admissions_total', { mode: 'admit', outcome: 'admitted', service: 'gateway' })).toBe(2);
    const byId = { route: '/v1/fragrances/:id', method: 'GET', status_class: '2xx', service: 'gateway' };
    expect(sample(edge, 'http_request_duration_seconds_count', byId)).toBe(1);
    expect(edge).toContain('gateway_redis_duration_seconds_bucket');
    expect(edge).not.toContain(KNOWN.id);
    const inner = await scrape(metricsPorts.catalogue);
    // One search, plus a spelling suggestion when it finds fewer than 3 hits (did_you_mean).
    expect(sample(inner, 'catalogue_elasticsearch_duration_seconds_count', { operation: 'search', result: 'ok' })).toBeOneOf([1, 2]);
    expect(inner).toMatch(/^catalogue_search_hits_count\{service="catalogue"\} 1$/m);
    expect(sample(inner, 'http_request_duration_seconds_count', { route: '/v1/fragrances', status_class: '2xx' })).toBe(1);
    // The metrics port is not the service's port: nothing the edge forwards reaches it.
    expect((await fetch(`${gateway.url}/metrics`)).status).not.toBe(200);
  });
});
