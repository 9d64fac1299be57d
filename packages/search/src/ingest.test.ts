import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FragranceSummary, SearchQuery } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, waitFor, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository } from './catalogue.ts';
import { aliasTargets, currentIndex, listVersions } from './indices.ts';
import { IngestError, ingestCatalogue } from './ingest.ts';
import { INDEX_SORT } from './sort.ts';
import { SUMMARY_FROM_DOC_VALUES, summaryOfHit } from './summary.ts';
import { makeRecord } from './testing.ts';

describe('ingestCatalogue', () => {
  let es: TestElasticsearch;
  beforeAll(async () => {
    es = await testElasticsearch('ingest');
  });
  afterAll(() => es.cleanup());

  it('calls afterSwap once the alias points at the new index (where ingest bumps the catalogue generation), and a failing one leaves the swap standing', async () => {
    const alias = es.index('afterswap');
    const seen: (string | undefined)[] = [];
    const first = await ingestCatalogue({
      client: es.client,
      alias,
      records: [makeRecord({ name: 'One', brand: 'House' })],
      afterSwap: async (index) => void seen.push(index, await currentIndex(es.client, alias)),
    });
    expect(seen).toEqual([first.index, first.index]);
    const errors: unknown[] = [];
    const second = await ingestCatalogue({
      client: es.client,
      alias,
      records: [makeRecord({ name: 'Two', brand: 'House' })],
      afterSwap: () => Promise.reject(new Error('redis away')),
      onAfterSwapError: (error) => void errors.push(error),
    });
    expect(await currentIndex(es.client, alias)).toBe(second.index);
    expect(errors).toHaveLength(1);
  });

  it('loads an NDJSON file, reports bad lines by number, and swaps the alias', async () => {
    const alias = es.index('file');
    const records = [...generateCatalogue({ count: 200, seed: 3 })];
    const lines = records.map((r) => JSON.stringify(r));
    lines.splice(10, 0, '{not json');
    lines.splice(20, 0, JSON.stringify({ ...records[0], id: 'not-a-uuid' }));
    lines.splice(30, 0, '');
    lines.push(JSON.stringify(records[5]));
    const file = join(tmpdir(), `${alias}.ndjson`);
    await writeFile(file, lines.join('\n') + '\n');
    const progress: number[] = [];

    const result = await ingestCatalogue({
      client: es.client,
      alias,
      file,
      batchSize: 64,
      concurrency: 2,
      onProgress: (p) => progress.push(p.read),
    });

    expect(result.indexed).toBe(200);
    expect(result.skipped).toEqual([
      { line: 11, reason: 'is not valid JSON' },
      { line: 21, reason: expect.stringMatching(/^id: /) },
      { line: lines.length, reason: `duplicate id ${records[5]?.id} (first on line 6)` },
    ]);
    expect(progress.length).toBeGreaterThan(2);
    expect(await currentIndex(es.client, alias)).toBe(result.index);
    const { count } = await es.client.count({ index: alias });
    expect(count).toBe(200);
    const settings = await es.client.indices.getSettings({ index: result.index });
    expect(settings[result.index]?.settings?.index?.refresh_interval).toBe('1s');
    // Stored in the default order, so pages in it stop early (sort.ts).
    expect(settings[result.index]?.settings?.index?.sort).toMatchObject({ field: INDEX_SORT.field, order: INDEX_SORT.order });

    // The stored document is the record plus folded helper fields; detail reads strip them.
    const first = records[0]!;
    const doc = await es.client.get({ index: alias, id: first.id });
    expect(doc._source).toMatchObject({ ...first, search: expect.objectContaining({ brand: expect.any(String) }) });
    // A search hit is the summary kept in doc values: the record's summary fields, nothing else.
    const [hit] = (await es.client.search({ index: alias, query: { ids: { values: [first.id] } }, ...SUMMARY_FROM_DOC_VALUES })).hits.hits;
    expect(summaryOfHit(hit!)).toEqual(FragranceSummary.parse(first));
    const repo = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
    expect((await repo.get(first.id))?.fragrance).toEqual(first);
  });

  it('keeps one previous version and deletes older ones', async () => {
    const alias = es.index('versions');
    const records = (seed: number) => [...generateCatalogue({ count: 30, seed })];
    const a = await ingestCatalogue({ client: es.client, alias, records: records(1) });
    const b = await ingestCatalogue({ client: es.client, alias, records: records(2) });
    expect(b.previous).toEqual([a.index]);
    expect(b.deleted).toEqual([]);
    const c = await ingestCatalogue({ client: es.client, alias, records: records(3) });
    expect(c.previous).toEqual([b.index]);
    expect(c.deleted).toEqual([a.index]);
    expect(await listVersions(es.client, alias)).toEqual([b.index, c.index]);
    expect(await aliasTargets(es.client, alias)).toEqual([c.index]);
  });

  it('leaves the live alias untouched when an ingest fails', async () => {
    const alias = es.index('failing');
    const live = await ingestCatalogue({ client: es.client, alias, records: [...generateCatalogue({ count: 20, seed: 9 })] });

    await expect(ingestCatalogue({ client: es.client, alias, records: [{ nope: true }, 'x'] })).rejects.toThrow(IngestError);
    await expect(
      ingestCatalogue({
        client: es.client,
        alias,
        records: [...generateCatalogue({ count: 20, seed: 10 })],
        beforeSwap: () => Promise.reject(new Error('verification failed')),
      }),
    ).rejects.toThrow('verification failed');

    expect(await aliasTargets(es.client, alias)).toEqual([live.index]);
    expect(await listVersions(es.client, alias)).toEqual([live.index]);
    expect((await es.client.count({ index: alias })).count).toBe(20);
  });

  it('cleans up and fails when the alias name is taken by a concrete index', async () => {
    const name = es.index('taken');
    await es.client.indices.create({ index: name });
    await expect(
      ingestCatalogue({ client: es.client, alias: name, records: [...generateCatalogue({ count: 5, seed: 1 })] }),
    ).rejects.toThrow();
    expect(await listVersions(es.client, name)).toEqual([]);
  });

  it('never fails or shows an empty catalogue to searches while a new version is built and swapped', async () => {
    const alias = es.index('swap');
    await ingestCatalogue({ client: es.client, alias, records: [...generateCatalogue({ count: 150, seed: 11 })] });
    const repo = createCatalogueRepository({ client: es.client, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
    const queries = [{}, { query: 'rose' }, { concentration: 'edp' }, { year_from: '1990' }].map((q) => SearchQuery.parse(q));
    let running = true;
    let searches = 0;
    const failures: string[] = [];
    const totals = new Set<number>();
    const loop = async (i: number) => {
      while (running) {
        try {
          const page = await repo.search(queries[(searches + i) % queries.length] ?? {});
          if (page.data.length === 0 && page.total > 0) failures.push('page empty but total > 0');
          const all = await repo.search({});
          totals.add(all.total);
          if (all.total === 0) failures.push('empty catalogue seen');
        } catch (error) {
          failures.push(String(error));
        }
        searches += 1;
      }
    };
    const loops = [0, 1, 2, 3].map(loop);
    const hand = makeRecord({ name: 'Swap Marker', brand: 'Probe' });
    const next = await ingestCatalogue({
      client: es.client,
      alias,
      records: [...generateCatalogue({ count: 400, seed: 12 }), hand],
      batchSize: 50,
      // Hold the finished-but-unswapped index until a few searches ran against it, so searches overlap every phase.
      beforeSwap: async () => {
        const before = searches;
        await waitFor(() => searches >= before + 4, { intervalMs: 10, description: 'searches before the swap' });
      },
    });
    const afterSwap = searches;
    await waitFor(() => searches >= afterSwap + 4 && totals.has(401), { intervalMs: 10, description: 'searches seeing the new version' });
    running = false;
    await Promise.all(loops);

    expect(failures).toEqual([]);
    expect(searches).toBeGreaterThan(20);
    expect(totals).toEqual(new Set([150, 401]));
    expect(await currentIndex(es.client, alias)).toBe(next.index);
    expect((await repo.search(SearchQuery.parse({ query: 'swap marker' }))).data[0]?.id).toBe(hand.id);
  });
});
