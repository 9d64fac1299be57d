import { gunzipSync } from 'node:zlib';
import { describe, expect } from 'vitest';
import { foldKey, FragranceDetail, FragranceSummary, Problem, SearchResponse, SORTS, type Sort } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { ingestCatalogue } from '@fragrance/search';
import { makeRecord } from '@fragrance/search/testing';
import { catalogueTest, startCatalogueApp } from './testing/app.ts';
import { EXPORT_PLAN_PATH } from './routes/export.ts';

// 1,100 generated records plus the awkward ones: unrated, undated, a name too long for the
// name sort's keyword (sorts last, null sort value), and ties on every sort key.
const generated = [...generateCatalogue({ count: 1100, seed: 14 })];
const awkward = [
  makeRecord({ name: 'Unrated', brand: 'Tie', average: null, votes: 0, year_released: null }),
  makeRecord({ name: 'Tie', brand: 'Tie', average: 4, votes: 10, year_released: 2015 }),
  makeRecord({ name: 'Tie', brand: 'Tie', average: 4, votes: 10, year_released: 2015 }),
  makeRecord({ name: `Long ${'x'.repeat(600)}`, brand: 'Tie', year_released: null }),
];
// Distinct change times, several records per millisecond-equal instant.
const records: FragranceDetail[] = [...generated, ...awkward].map((r, i) => ({
  ...r,
  updated_at: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(),
}));
const byId = new Map(records.map((r) => [r.id, r]));
/** What a search hit shows of a record: its summary fields (FragranceSummary strips the rest). */
const summaryOf = (record: FragranceDetail) => FragranceSummary.parse(record);

/** `base`: the URL of the file's catalogue, serving its records from the file's own index. */
const it = catalogueTest.extend('base', { scope: 'file' }, async ({ es }, { onCleanup }) => {
  const alias = es.index('fragrances');
  await ingestCatalogue({ client: es.client, alias, records });
  const app = await startCatalogueApp({ elasticsearch: es.client }, { ELASTICSEARCH_URL: 'http://127.0.0.1:1', CATALOGUE_ALIAS: alias });
  onCleanup(() => app.close());
  return app.url;
});

describe('sort, updated_since and export', () => {
  async function search(base: string, query: string): Promise<SearchResponse> {
    const res = await fetch(`${base}/v1/fragrances?${query}`);
    const body: unknown = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(200);
    return SearchResponse.parse(body);
  }
  async function all(base: string, query: string): Promise<{ hits: FragranceSummary[]; total: number }> {
    const hits: FragranceSummary[] = [];
    let page = await search(base, `${query}&limit=100`);
    const total = page.total;
    hits.push(...page.data);
    while (page.next_cursor) {
      page = await search(base, `${query}&limit=100&cursor=${page.next_cursor}`);
      hits.push(...page.data);
    }
    return { hits, total };
  }
  async function problem(base: string, path: string): Promise<Problem> {
    const res = await fetch(base + path);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return Problem.parse(await res.json());
  }

  /** a's place against b's in each order (negative: a first), before the id breaks a tie. */
  const compare: Record<Exclude<Sort, 'relevance'>, (a: FragranceDetail, b: FragranceDetail) => number> = {
    rating: (a, b) => (b.rating.average ?? -1) - (a.rating.average ?? -1) || b.rating.count - a.rating.count,
    votes: (a, b) => b.rating.count - a.rating.count,
    newest: (a, b) => (b.year_released ?? 0) - (a.year_released ?? 0) || b.rating.count - a.rating.count,
    oldest: (a, b) => (a.year_released ?? 9999) - (b.year_released ?? 9999) || b.rating.count - a.rating.count,
    // Names past the keyword's 512 characters sort last.
    name: (a, b) => {
      const [x, y] = [foldKey(a.name), foldKey(b.name)].map((n) => (n.length > 512 ? '\uffff' : n)) as [string, string];
      return x < y ? -1 : x > y ? 1 : 0;
    },
    updated: (a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at),
  };
  // Ties broken by the id in byte order, as the `id` keyword sorts.
  const order = (sort: Exclude<Sort, 'relevance'>) => (a: FragranceDetail, b: FragranceDetail) =>
    compare[sort](a, b) || Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));

  it.for(SORTS)('sort=%s pages through every hit by cursor without a duplicate or a gap, in exactly its order', async (sort, { base }) => {
    const query = sort === 'relevance' ? 'query=a' : '';
    const { hits, total } = await all(base, `sort=${sort}&${query}`);
    const ids = hits.map((h) => h.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(total);
    if (sort === 'relevance') {
      expect(total).toBeGreaterThan(100);
      return;
    }
    expect(total).toBe(records.length);
    expect(ids).toEqual([...records].sort(order(sort)).map((r) => r.id));
  });

  it('a deep offset is the same page as cursors reach, and its hits are the records summaries', async ({ base }) => {
    const { hits } = await all(base, 'sort=votes');
    for (const [offset, limit] of [
      [900, 100],
      [1003, 7],
    ] as const) {
      const page = await search(base, `sort=votes&offset=${offset}&limit=${limit}`);
      expect(page.data).toEqual(hits.slice(offset, offset + limit));
      for (const hit of page.data) expect(hit).toEqual(summaryOf(byId.get(hit.id)!));
    }
  });

  it('defaults: votes without query, relevance with it', async ({ base }) => {
    expect((await search(base, 'limit=50')).data).toEqual((await search(base, 'limit=50&sort=votes')).data);
    expect((await search(base, 'query=tie&limit=50')).data).toEqual((await search(base, 'query=tie&limit=50&sort=relevance')).data);
  });

  it('a cursor from one sort is refused for another', async ({ base }) => {
    const first = await search(base, 'sort=rating&limit=10');
    const p = await problem(base, `/v1/fragrances?sort=name&limit=10&cursor=${first.next_cursor ?? ''}`);
    expect(p.code).toBe('invalid_cursor');
  });

  it('updated_since: records changed at or after the instant, in any time zone', async ({ base }) => {
    const since = records[600]!.updated_at;
    const expected = records
      .filter((r) => r.updated_at >= since)
      .map((r) => r.id)
      .sort();
    const { hits } = await all(base, `sort=updated&updated_since=${encodeURIComponent(since)}`);
    expect(hits.map((h) => h.id).sort()).toEqual(expected);
    const shifted = new Date(since).toISOString().replace('Z', '+00:00');
    expect((await search(base, `updated_since=${encodeURIComponent(shifted)}`)).total).toBe(expected.length);
  });

  // Found by the fuzzer: RFC 3339 allows offsets up to ±23:59 and any fraction length, which
  // Elasticsearch's date parser refuses (a 500 at the catalogue); the instant is sent as epoch ms.
  it('updated_since and after take any valid RFC 3339 instant: offsets past ±18:00, long fractions, far years', async ({ base }) => {
    const since = '6376-11-29T20:21:16.1816710+21:24';
    expect((await search(base, `updated_since=${encodeURIComponent(since)}`)).total).toBe(0);
    const after = '4680-02-29T19:04:06.3851-23:59,ab7a22bd-c81d-73a9-8d0d-2daaa390eba9';
    expect((await exportLines(base, `updated_since=${encodeURIComponent('2000-01-01T00:00:00.123456789+20:00')}`)).lines).toHaveLength(
      records.length,
    );
    expect((await exportLines(base, `after=${encodeURIComponent(after)}`)).lines).toHaveLength(0);
    const plan = await fetch(`${base}${EXPORT_PLAN_PATH}?updated_since=${encodeURIComponent(since)}`);
    expect(plan.status).toBe(200);
  });

  it.for([['sort=best'], ['updated_since=yesterday'], ['updated_since=2026-01-01T00:00:00'], ['updated_since=2026-13-01T00:00:00Z']])(
    '%s is a 400 naming the parameter',
    async ([query = ''], { base }) => {
      const p = await problem(base, `/v1/fragrances?${query}`);
      expect(p.invalid_params?.map((i) => i.name)).toEqual([query.split('=')[0]]);
    },
  );

  async function exportLines(
    base: string,
    query = '',
    headers: Record<string, string> = {},
  ): Promise<{ res: Response; lines: FragranceDetail[] }> {
    const res = await fetch(`${base}/v1/fragrances/export?${query}`, { headers });
    expect(res.status).toBe(200);
    const text = await res.text();
    return {
      res,
      lines:
        text.trim() === ''
          ? []
          : text
              .trimEnd()
              .split('\n')
              .map((l) => FragranceDetail.parse(JSON.parse(l))),
    };
  }

  it('export streams every record exactly as ingested, in (updated_at, id) order', async ({ base }) => {
    const { res, lines } = await exportLines(base);
    expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(lines).toHaveLength(records.length);
    for (const line of lines) expect(line).toEqual(byId.get(line.id));
    for (let i = 1; i < lines.length; i++) {
      const [a, b] = [lines[i - 1]!, lines[i]!];
      expect(a.updated_at < b.updated_at || (a.updated_at === b.updated_at && a.id < b.id)).toBe(true);
    }
  });

  it('export is gzip when accepted, resumes after a line, filters by updated_since; the plan counts it', async ({ base }) => {
    const raw = await fetch(`${base}/v1/fragrances/export`, { headers: { 'accept-encoding': 'gzip' } });
    expect(raw.headers.get('content-encoding')).toBe('gzip');
    const full = (await exportLines(base)).lines;
    // fetch decodes gzip itself; read the bytes through node:http semantics instead.
    const bytes = Buffer.from(
      await (await fetch(`${base}/v1/fragrances/export`, { headers: { 'accept-encoding': 'gzip' } })).arrayBuffer(),
    );
    const decoded = bytes[0] === 0x1f ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
    expect(decoded.trimEnd().split('\n')).toHaveLength(records.length);

    const cut = full[700]!;
    const after = `${cut.updated_at},${cut.id}`;
    const rest = (await exportLines(base, `after=${encodeURIComponent(after)}`)).lines;
    expect(rest.map((r) => r.id)).toEqual(full.slice(701).map((r) => r.id));

    const since = records[900]!.updated_at;
    const changed = (await exportLines(base, `updated_since=${encodeURIComponent(since)}`)).lines;
    expect(changed.map((r) => r.id).sort()).toEqual(
      records
        .filter((r) => r.updated_at >= since)
        .map((r) => r.id)
        .sort(),
    );

    const plan = await (await fetch(`${base}${EXPORT_PLAN_PATH}?after=${encodeURIComponent(after)}`)).json();
    expect(plan).toEqual({ records: records.length - 701, requests: Math.ceil((records.length - 701) / 1000) });
    expect(await (await fetch(`${base}${EXPORT_PLAN_PATH}`)).json()).toEqual({ records: records.length, requests: 2 });
  });

  it.for([['after=yesterday'], ['after=2026-01-01T00:00:00Z,not-a-uuid'], ['updated_since=2026'], ['limit=5']])(
    'export with %s is a 400',
    async ([query = ''], { base }) => {
      const p = await problem(base, `/v1/fragrances/export?${query}`);
      expect(p.invalid_params?.map((i) => i.name)).toEqual([query.split('=')[0]]);
    },
  );
});
