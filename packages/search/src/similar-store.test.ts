import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@elastic/elasticsearch';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SimilarFragrance } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { createCatalogueRepository, type CatalogueRepository } from './catalogue.ts';
import { currentIndex } from './indices.ts';
import { ingestCatalogue } from './ingest.ts';
import { bumpSimilarGeneration, materialiseSimilar, similarStoreOf, STORED_ALTERNATIVES } from './similar-store.ts';
import { writeRecordVectors } from './testing.ts';
import { EMBEDDING_DIMENSIONS } from './vectors.ts';

// Materialised alternatives: the stored answer is the live one, and anything stale goes live.
const records = [...generateCatalogue({ count: 300, seed: 77 })];
// Vectors from the words of each record's text (hashed into the dimensions): records sharing
// words are near, so the kNN side finds real neighbours and the stored vector side matters.
const wordVectors = {
  modelKey: 'words@1',
  embed: async (texts: readonly string[]) =>
    texts.map((text) => {
      const v = new Array<number>(EMBEDDING_DIMENSIONS).fill(0);
      for (const word of text.toLowerCase().split(/\W+/).filter(Boolean))
        v[createHash('md5').update(word).digest().readUInt16LE(0) % v.length]! += 1;
      const norm = Math.hypot(...v) || 1;
      return Float32Array.from(v, (x) => x / norm);
    }),
};

describe('materialised similar lists', () => {
  let es: TestElasticsearch;
  let alias: string;
  let index: string;
  let counted: Client;
  let repo: CatalogueRepository;
  const searches: string[] = [];
  /** The live answers, taken before any list exists. */
  const live = new Map<string, SimilarFragrance[]>();
  const sample = records.filter((_, i) => i % 13 === 0).map((r) => r.id);

  const similar = async (id: string, limit = 10, filters = {}) => {
    const found = await repo.similar(id, limit, filters);
    if (!found) throw new Error(`no record ${id}`);
    return found;
  };
  /** Runs `fn` and says whether it searched the catalogue (the live path does; a stored list does not). */
  const searched = async <T>(fn: () => Promise<T>): Promise<{ value: T; searched: boolean }> => {
    searches.length = 0;
    const value = await fn();
    return { value, searched: searches.some((path) => path.endsWith('/_search')) };
  };

  beforeAll(async () => {
    es = await testElasticsearch('similar-store');
    alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records });
    index = (await currentIndex(es.client, alias))!;
    await writeRecordVectors({ client: es.client, index, records, embedder: wordVectors });
    counted = new Client({ node: es.url });
    counted.diagnostic.on('request', (_error, event) => {
      if (event) searches.push(event.meta.request.params.path);
    });
    repo = createCatalogueRepository({ client: counted, alias, cursorKeys: { current: randomBytes(32).toString('base64url') } });
    // The rarity table loads in the background on first use; until then a live answer reads the
    // record's term statistics (and a stored list is not used): wait for the table.
    await vi.waitFor(async () => {
      searches.length = 0;
      await similar(sample[0]!);
      if (searches.some((path) => path.includes('_termvectors'))) throw new Error('rarity table not loaded yet');
    });
    for (const id of sample) live.set(id, await similar(id));
    const result = await materialiseSimilar({ client: es.client, alias, ratePerSecond: 0 });
    expect(result).toEqual({ index, outcome: 'complete', records: records.length, kept: 0 });
  });
  afterAll(async () => {
    await counted?.close();
    await es.cleanup();
  });

  it('answers from the stored list exactly what the live path answered: ids, order, closeness, reasons', async () => {
    for (const id of sample) {
      const { value, searched: wasLive } = await searched(() => similar(id));
      expect(wasLive, id).toBe(false);
      expect(value, id).toEqual(live.get(id));
    }
    // A smaller limit is the stored list's head, as the live answer's is (the pool is the same).
    const id = sample[1]!;
    const head = await searched(() => similar(id, 3));
    expect(head.searched).toBe(false);
    expect(head.value).toEqual(live.get(id)!.slice(0, 3));
    // The vector side is stored with each alternative, not only the blend.
    expect(live.get(id)!.some((a) => a.reasons.vector_similarity !== null)).toBe(true);
  });

  it('answers filtered requests and limits above the stored count live', async () => {
    const id = sample[2]!;
    for (const [limit, filters] of [
      [STORED_ALTERNATIVES + 1, {}],
      [10, { other_brands: true }],
      [10, { available_in_au: false }],
      [10, { year_from: 1990 }],
      [5, { exclude_flankers: true }],
    ] as const) {
      const { searched: wasLive } = await searched(() => repo.similar(id, limit, filters));
      expect(wasLive, JSON.stringify({ limit, filters })).toBe(true);
    }
    // `false` for the two exclusions is no filter at all.
    const plain = await searched(() => similar(id, 10, { other_brands: false, exclude_flankers: false }));
    expect(plain.searched).toBe(false);
    expect(plain.value).toEqual(live.get(id));
  });

  it('answers live when the list is absent or stale, and a pass brings the lists back', async () => {
    const [absent, edited] = [sample[3]!, sample[4]!];
    await es.client.delete({ index: similarStoreOf(alias), id: absent, refresh: true });
    expect((await searched(() => similar(absent))).searched).toBe(true);
    expect((await searched(() => similar(edited))).searched).toBe(false);
    // A list of another format (an older version's, stamped with the bare token) is stale too.
    const older = sample[6]!;
    const token = (await es.client.get<{ generations: Record<string, string> }>({ index: similarStoreOf(alias), id: 'generation' }))
      ._source!.generations[index]!;
    await es.client.update({ index: similarStoreOf(alias), id: older, doc: { generation: token }, refresh: true });
    expect((await searched(() => similar(older))).searched).toBe(true);

    // An in-place write (what a worker batch does), then the new generation the worker gives the index.
    const target = records.find((r) => r.id === edited)!;
    await es.client.update({
      index,
      id: edited,
      doc: { rating: { ...target.rating, count: target.rating.count + 1_000_000 } },
      refresh: true,
    });
    await bumpSimilarGeneration(es.client, alias, [index]);
    const now = new Map<string, SimilarFragrance[]>();
    for (const id of [absent, edited, sample[5]!]) {
      const stale = await searched(() => similar(id));
      expect(stale.searched, 'every list of the index is stale').toBe(true);
      now.set(id, stale.value);
    }

    // The new generation makes every list stale: the pass computes them all again.
    expect(await materialiseSimilar({ client: es.client, alias, ratePerSecond: 0 })).toMatchObject({
      outcome: 'complete',
      records: records.length,
    });
    expect(await materialiseSimilar({ client: es.client, alias, ratePerSecond: 0 })).toMatchObject({ outcome: 'current', records: 0 });
    for (const [id, answer] of now) {
      const stored = await searched(() => similar(id));
      expect(stored.searched, id).toBe(false);
      expect(stored.value).toEqual(answer);
    }
  });

  it('ends a pass that an in-place write overtakes, and never answers from its lists', async () => {
    const pass = await materialiseSimilar({
      client: es.client,
      alias,
      ratePerSecond: 0,
      force: true,
      // A worker batch writes while the first page is stored.
      onProgress: () => bumpSimilarGeneration(es.client, alias, [index]),
    });
    expect(pass.outcome).toBe('changed');
    expect(pass.records).toBeLessThan(records.length);
    expect((await searched(() => similar(sample[0]!))).searched).toBe(true);
  });

  it('resumes an interrupted pass where it stopped, computing only the lists not yet current', async () => {
    /** The stored lists, without the time they were computed at. */
    const lists = async () => {
      const { hits } = await es.client.search<Record<string, unknown>>({
        index: similarStoreOf(alias),
        size: 1_000,
        query: { bool: { must_not: { ids: { values: ['generation'] } } } },
      });
      return new Map(hits.hits.map((hit) => [hit._id, { ...hit._source, computed_at: undefined }]));
    };
    // Counts each record's computation (its pool search on the catalogue index) and stops the
    // pass once `stopAfter` have been sent, as a worker restart would in the middle of a page.
    const computations = { count: 0, stopAfter: Infinity, stop: new AbortController() };
    const computing = new Client({ node: es.url });
    computing.diagnostic.on('request', (_error, event) => {
      const params = event?.meta.request.params;
      if (params?.path !== `/${index}/_search` || !JSON.stringify(params.querystring ?? '').includes('matched_queries')) return;
      computations.count += 1;
      if (computations.count >= computations.stopAfter) computations.stop.abort();
    });
    try {
      // A write makes every list stale; the pass is stopped after the first page and part of the second.
      await bumpSimilarGeneration(es.client, alias, [index]);
      computations.stopAfter = 250;
      const cut = await materialiseSimilar({ client: computing, alias, ratePerSecond: 0, signal: computations.stop.signal });
      expect(cut).toMatchObject({ outcome: 'aborted', records: 250 });

      computations.count = 0;
      computations.stopAfter = Infinity;
      const resumed = await materialiseSimilar({ client: computing, alias, ratePerSecond: 0 });
      expect(resumed).toEqual({ index, outcome: 'complete', records: records.length - 250, kept: 250 });
      expect(computations.count).toBe(records.length - 250);
      const afterResume = await lists();
      expect(afterResume.size).toBe(records.length);

      // The lists are those a full pass computes; `force` computes every one again.
      computations.count = 0;
      const full = await materialiseSimilar({ client: computing, alias, ratePerSecond: 0, force: true });
      expect(full).toEqual({ index, outcome: 'complete', records: records.length, kept: 0 });
      expect(computations.count).toBe(records.length);
      expect(afterResume).toEqual(await lists());
    } finally {
      await computing.close();
    }
  });
});
