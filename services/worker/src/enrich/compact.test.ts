import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactAfterRun, needsCompaction } from './compact.ts';

describe('needsCompaction', () => {
  it('asks for a merge when a tenth of the stored documents are deleted, or past ten segments', () => {
    expect(needsCompaction({ docs: 75_000, deleted: 32_750, segments: 35 })).toBe(true); // after the first vector fill
    expect(needsCompaction({ docs: 900, deleted: 100, segments: 2 })).toBe(true);
    expect(needsCompaction({ docs: 1_000, deleted: 0, segments: 11 })).toBe(true);
    expect(needsCompaction({ docs: 75_000, deleted: 0, segments: 2 })).toBe(false); // a fresh ingest
    expect(needsCompaction({ docs: 1_000, deleted: 99, segments: 10 })).toBe(false);
    expect(needsCompaction({ docs: 0, deleted: 0, segments: 0 })).toBe(false);
  });
});

describe('compactAfterRun (real Elasticsearch)', () => {
  let es: TestElasticsearch;
  const alias = () => es.index('catalogue');
  const index = () => es.index('catalogue-v1');

  const shape = async () => {
    const stats = await es.client.indices.stats({ index: index(), metric: ['docs', 'segments'] });
    const primaries = stats.indices?.[index()]?.primaries;
    return { docs: primaries?.docs?.count, deleted: primaries?.docs?.deleted, segments: primaries?.segments?.count };
  };

  beforeAll(async () => {
    es = await testElasticsearch('compact');
    await es.client.indices.create({
      index: index(),
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      aliases: { [alias()]: {} },
    });
    const docs = (from: number, to: number, label: string) =>
      Array.from({ length: to - from }, (_, i) => [{ index: { _index: index(), _id: String(from + i) } }, { label }]).flat();
    await es.client.bulk({ operations: docs(0, 200, 'ingested'), refresh: true });
    // A run rewriting a quarter of the rows: each update deletes the old copy.
    await es.client.bulk({ operations: docs(0, 50, 'enriched'), refresh: true });
  });
  afterAll(async () => {
    await es?.cleanup();
  });

  it('merges an index a run left with deleted documents to one segment, in the background', async () => {
    expect(await shape()).toMatchObject({ docs: 200, deleted: 50, segments: 2 });
    const outcome = await compactAfterRun(es.client, alias());
    expect(outcome).toMatchObject({ index: index(), docs: 200, deleted: 50, segments: 2, started: true });
    // Deleted copies may outlive the merge for a while: Elasticsearch keeps recent soft deletes
    // for replica recovery (retention leases), and a later merge drops them.
    await expect
      .poll(
        async () => {
          await es.client.indices.refresh({ index: index() });
          return (await shape()).segments;
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBe(1);
    expect(await shape()).toMatchObject({ docs: 200 });
    const { count } = await es.client.count({ index: alias(), query: { term: { 'label.keyword': 'enriched' } } });
    expect(count).toBe(50);
  });

  it('leaves an index alone that no run has fragmented (a fresh ingest)', async () => {
    const fresh = es.index('fresh-v1');
    await es.client.indices.create({
      index: fresh,
      settings: { number_of_shards: 1, number_of_replicas: 0 },
      aliases: { [es.index('fresh')]: {} },
    });
    const operations = Array.from({ length: 100 }, (_, i) => [{ index: { _index: fresh, _id: String(i) } }, { label: 'ingested' }]).flat();
    await es.client.bulk({ operations, refresh: true });
    expect(await compactAfterRun(es.client, es.index('fresh'))).toMatchObject({
      index: fresh,
      docs: 100,
      deleted: 0,
      segments: 1,
      started: false,
    });
  });

  it('does nothing without a live index behind the alias', async () => {
    expect(await compactAfterRun(es.client, es.index('nothing-here'))).toBeUndefined();
  });
});
