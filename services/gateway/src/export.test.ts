// GET /v1/fragrances/export and the new search parameters through the edge, with the real
// catalogue service (its own process) over a real Elasticsearch index, and real Redis quotas.
import { describe, expect } from 'vitest';
import { createFragranceClient, FragranceApiError } from '@fragrance/client';
import { makeRecord } from '@fragrance/search/testing';
import { bearer } from './testing/app.ts';
import { catalogueGatewayTest } from './testing/catalogue.ts';

const RECORDS = 2_500;
const records = Array.from({ length: RECORDS }, (_, i) => ({
  ...makeRecord({ name: `Export ${i}`, brand: `Brand ${i % 7}`, votes: i }),
  updated_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
}));

const it = catalogueGatewayTest.extend('catalogueRecords', { scope: 'file' }, records).extend(
  'exportOf',
  { scope: 'file' },
  ({ gateway }) =>
    (apiKey: string, query = '') =>
      fetch(`${gateway.url}/v1/fragrances/export${query}`, { headers: bearer(apiKey) }),
);

// The first test waits for the catalogue process too.
describe('export billing and sync through the gateway', { timeout: 120_000 }, () => {
  const refusal = async (call: Promise<unknown>): Promise<FragranceApiError> => {
    const error: unknown = await call.then(
      () => null,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(FragranceApiError);
    return error as FragranceApiError;
  };

  it('bills one request per 1,000 records up front and streams them all', async ({ keys, gateway, exportOf }) => {
    const { apiKey, record } = await keys.create({ owner: 'mirror', quota: 5 });
    const res = await exportOf(apiKey);
    expect(res.status).toBe(200);
    expect(res.headers.get('export-records')).toBe(String(RECORDS));
    expect(res.headers.get('export-requests')).toBe('3');
    expect(res.headers.get('ratelimit-remaining')).toBe('2');
    const lines = (await res.text()).trimEnd().split('\n');
    expect(lines).toHaveLength(RECORDS);
    expect(new Set(lines.map((l) => (JSON.parse(l) as { id: string }).id))).toEqual(new Set(records.map((r) => r.id)));
    expect(await keys.usedToday(record.id, 'UTC')).toBe(3);

    // 3 more do not fit in the 2 left: refused before anything streams, nothing counted.
    const client = createFragranceClient({ baseUrl: `${gateway.url}/v1`, apiKey });
    const refused = await refusal(client.exportStream());
    expect([refused.status, refused.code]).toEqual([429, 'daily_quota_exceeded']);
    expect(refused.problem?.detail).toMatch(/costs 3 requests/);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(3);

    // A resume or a narrower sync costs only what it streams.
    const last = records[RECORDS - 400]!;
    const resumed: string[] = [];
    for await (const detail of client.exportAll({ after: `${last.updated_at},${last.id}` })) resumed.push(detail.id);
    expect(resumed).toEqual(records.slice(RECORDS - 399).map((r) => r.id));
    expect(await keys.usedToday(record.id, 'UTC')).toBe(4);
  });

  it('gzip passes through the edge; bad parameters and missing keys are refused for free', async ({ keys, gateway }) => {
    const { apiKey, record } = await keys.create({ owner: 'gz', quota: 100 });
    const client = createFragranceClient({ baseUrl: `${gateway.url}/v1`, apiKey });
    let since = 0;
    for await (const detail of client.exportAll({ updated_since: '2026-01-01T00:30:00Z' })) {
      expect(detail.updated_at >= '2026-01-01T00:30:00').toBe(true);
      since += 1;
    }
    expect(since).toBe(RECORDS - 1800);
    const zipped = await fetch(`${gateway.url}/v1/fragrances/export`, { headers: { ...bearer(apiKey), 'accept-encoding': 'gzip' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    await zipped.arrayBuffer();
    expect(await keys.usedToday(record.id, 'UTC')).toBe(1 + 3);

    const bad = await refusal(client.exportStream({ updated_since: 'yesterday' }));
    expect([bad.status, bad.code]).toEqual([400, 'invalid_parameter']);
    expect(bad.problem?.invalid_params?.[0]?.name).toBe('updated_since');
    expect((await fetch(`${gateway.url}/v1/fragrances/export`)).status).toBe(401);
    expect((await fetch(`${gateway.url}/v1/fragrances/export`, { method: 'POST', headers: bearer(apiKey) })).status).toBe(405);
    expect(await keys.usedToday(record.id, 'UTC')).toBe(4);
  });

  it('sort and updated_since on GET /v1/fragrances, paged by cursor, one request a page', async ({ keys, gateway }) => {
    const { apiKey } = await keys.create({ owner: 'sorter', quota: 100 });
    const since = records[2_000]!.updated_at;
    // Through the project's own client, as a customer mirrors: it follows next_cursor to the end.
    const client = createFragranceClient({ baseUrl: `${gateway.url}/v1`, apiKey });
    const ids: string[] = [];
    for await (const hit of client.searchAll({ sort: 'updated', limit: 100, updated_since: since })) ids.push(hit.id);
    expect(ids).toEqual(records.slice(2_000).map((r) => r.id));
  });
});
