import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { carryForward } from './carry.ts';
import { enrichmentFingerprint, enrichmentOf, readEnrichment, saveEnrichment } from './enrichment-store.ts';
import { ingestCatalogue } from './ingest.ts';
import { embeddingInput, embeddingText, type StoredEmbedding } from './vectors.ts';

const base = [...generateCatalogue({ count: 300, seed: 77 })].map((r) => ({
  ...r,
  // No enrichment in the source file: what the run adds must survive a re-ingest.
  description: null,
  seasons: [],
  occasions: [],
  provenance: r.provenance.filter((p) => p.source === 'community_taxonomy' || p.source === 'operator_curated'),
  provenance_tags: r.provenance_tags.filter((s) => s === 'community_taxonomy' || s === 'operator_curated'),
}));

/** What an enrichment run writes for a row (as the worker's applySupplied does). */
function enriched(record: FragranceDetail, asOf: string): FragranceDetail {
  return {
    ...record,
    description: `About ${record.name}`,
    seasons: ['winter'],
    // Like applySupplied: the fields it now supplies are no longer claimed by another (non-operator) source.
    provenance: [
      ...record.provenance
        .map((p) =>
          p.source === 'operator_curated' ? p : { ...p, fields: p.fields.filter((f) => f !== 'description' && f !== 'seasons') },
        )
        .filter((p) => p.fields.length > 0),
      { source: 'ai_enriched', fields: ['description', 'seasons'], recorded_at: asOf },
    ],
    provenance_tags: [...new Set([...record.provenance_tags, 'ai_enriched' as const])],
    updated_at: asOf,
  };
}

describe('re-ingest carries enrichment forward and moves updated_at only for changed rows', () => {
  let es: TestElasticsearch;
  beforeAll(async () => {
    es = await testElasticsearch('carry');
  });
  afterAll(() => es.cleanup());

  async function changedSince(alias: string, since: string): Promise<string[]> {
    const res = await es.client.search<FragranceDetail>({
      index: alias,
      size: 1_000,
      query: { range: { updated_at: { gte: since } } },
      _source: ['id'],
    });
    return res.hits.hits.map((h) => h._source!.id).sort();
  }
  const get = async (alias: string, id: string) =>
    (await es.client.get<FragranceDetail>({ index: alias, id, _source_excludes: ['search'] }))._source!;

  it('sync over an enrichment run and an ingest sees exactly the changed rows', async () => {
    const alias = es.index('fragrances');
    await ingestCatalogue({ client: es.client, alias, records: base, carryForward: true });

    // An enrichment run changes 5 rows.
    const beforeRun = new Date().toISOString();
    const runAt = new Date(Date.now() + 1).toISOString();
    const enrichedIds = base.slice(0, 5).map((r) => r.id);
    for (const id of enrichedIds) {
      await es.client.index({
        index: alias,
        id,
        document: {
          ...enriched(await get(alias, id), runAt),
          search: (await es.client.get<{ search: unknown }>({ index: alias, id }))._source!.search,
        },
        refresh: true,
      });
    }
    expect(await changedSince(alias, beforeRun)).toEqual([...enrichedIds].sort());

    // Re-ingest the source file with 3 rows changed: a vote count on an enriched row (its
    // enrichment inputs are unchanged), a name on another enriched row (inputs changed), a year on a plain row.
    const beforeIngest = new Date(Date.now() + 5).toISOString();
    // The ingest stamps rows with the real clock: start it once that clock is past the mark.
    await expect.poll(() => Date.now(), { interval: 1 }).toBeGreaterThan(Date.parse(beforeIngest));
    const next = base.map((r) => ({ ...r }));
    next[0] = { ...next[0]!, rating: { ...next[0]!.rating, count: next[0]!.rating.count + 1 } };
    next[1] = { ...next[1]!, name: `${next[1]!.name} Intense` };
    next[100] = { ...next[100]!, year_released: 1999 };
    await ingestCatalogue({ client: es.client, alias, records: next, carryForward: true });

    expect(await changedSince(alias, beforeIngest)).toEqual([next[0].id, next[1].id, next[100].id].sort());
    // Enriched rows whose inputs did not change keep every enriched field right after the ingest.
    for (const id of [enrichedIds[0]!, ...enrichedIds.slice(2)]) {
      expect(await get(alias, id)).toMatchObject({ description: expect.stringMatching(/^About /), seasons: ['winter'] });
    }
    expect((await get(alias, enrichedIds[2]!)).updated_at).toBe(runAt);
    // The renamed one lost them: the next run selects it (and only rows like it) again.
    expect(await get(alias, enrichedIds[1]!)).toMatchObject({ description: null, seasons: [] });
    expect((await get(alias, enrichedIds[1]!)).provenance_tags).not.toContain('ai_enriched');
  });

  it('a record dropped by one ingest and back in the next keeps its enrichment and vector, from the durable store', async () => {
    const alias = es.index('durable');
    const ingest = (records: FragranceDetail[]) => ingestCatalogue({ client: es.client, alias, records, carryForward: true });
    await ingest(base);
    const runAt = new Date(Date.now() + 1).toISOString();
    const [byWorker, renamed, preStore, plain] = [base[0]!, base[1]!, base[2]!, base[3]!];
    const live = async () => {
      await es.client.indices.refresh({ index: alias });
      return new Map(
        (
          await es.client.search<FragranceDetail & { embedding?: StoredEmbedding }>({
            index: alias,
            size: 1_000,
            _source_excludes: ['search'],
          })
        ).hits.hits.map((h) => [h._id!, h._source!]),
      );
    };
    // What an enrichment batch leaves: enriched rows in the live index, the first two (and the
    // first one's vector) also in the store, as the worker writes it; the third only in the live
    // index, as results made before the store existed.
    const vector: StoredEmbedding = {
      vector: Array.from({ length: 384 }, (_, i) => ((i % 7) - 3) / 10),
      source: 'ai_enriched',
      model: 'test-model@1',
      input: embeddingInput(embeddingText(enriched(byWorker, runAt))),
      recorded_at: runAt,
    };
    for (const record of [byWorker, renamed, preStore]) {
      const id = record.id;
      const doc = {
        ...enriched(await get(alias, id), runAt),
        ...(id === byWorker.id ? { embedding: vector } : {}),
        search: (await es.client.get<{ search: unknown }>({ index: alias, id }))._source!.search,
      };
      await es.client.index({ index: alias, id, document: doc, refresh: true });
    }
    const first = await live();
    await saveEnrichment(
      es.client,
      alias,
      [byWorker, renamed].map((r) => ({ id: r.id, record: first.get(r.id)!, ...(r.id === byWorker.id ? { embedding: vector } : {}) })),
      { mode: 'latest' },
    );
    expect([...(await readEnrichment(es.client, alias, [byWorker.id, renamed.id, preStore.id])).keys()].sort()).toEqual(
      [byWorker.id, renamed.id].sort(),
    );

    // A re-ingest of every record archives the live results the store lacked.
    await ingest(base);
    const stored = await readEnrichment(es.client, alias, [byWorker.id, renamed.id, preStore.id, plain.id]);
    expect([...stored.keys()].sort()).toEqual([byWorker.id, renamed.id, preStore.id].sort());
    expect(stored.get(preStore.id)).toMatchObject({
      inputs: enrichmentFingerprint(preStore),
      values: { description: `About ${preStore.name}`, seasons: ['winter'] },
    });

    // An ingest drops three of them; the next brings them back, one of them renamed.
    await ingest(base.filter((r) => ![byWorker.id, renamed.id, preStore.id].includes(r.id)));
    expect((await live()).has(byWorker.id)).toBe(false);
    const beforeReturn = new Date().toISOString();
    await ingest(base.map((r) => (r.id === renamed.id ? { ...r, name: `${r.name} Intense` } : r)));
    const back = await live();
    for (const record of [byWorker, preStore]) {
      const doc = back.get(record.id)!;
      expect(doc).toMatchObject({ description: `About ${record.name}`, seasons: ['winter'] });
      expect(doc.provenance.find((p) => p.source === 'ai_enriched')).toEqual({
        source: 'ai_enriched',
        fields: ['description', 'seasons'],
        recorded_at: runAt,
      });
      // Back in the catalogue with more than its file says: a mirror syncing by updated_since sees it.
      expect(doc.updated_at >= beforeReturn).toBe(true);
    }
    expect(back.get(byWorker.id)?.embedding).toEqual(vector);
    expect(back.get(preStore.id)?.embedding).toBeUndefined();
    // Its inputs changed while it was away: the stored results are not its own any more.
    expect(back.get(renamed.id)).toMatchObject({ description: null, seasons: [] });
    expect(back.get(renamed.id)?.provenance_tags).not.toContain('ai_enriched');
    // Records that never left are as they were.
    expect(back.get(plain.id)).toEqual(first.get(plain.id));
  });

  it('carryForward keeps accords an enricher filled (the file still has none) and an AU check that found nothing', () => {
    const source = base[5]!;
    // A row the file gives no accords: no source claims them.
    const record: FragranceDetail = {
      ...source,
      accords: [],
      main_accords: [],
      provenance: source.provenance.map((p) => ({ ...p, fields: p.fields.filter((f) => f !== 'accords' && f !== 'main_accords') })),
    };
    const asOf = '2029-01-01T00:00:00.000Z';
    const live: FragranceDetail = {
      ...record,
      accords: ['woody', 'amber'],
      main_accords: ['woody', 'amber'],
      // Checked, no retailer lists it: a result, though no provenance entry claims it.
      au_availability: { available: false, price_min_aud: null, price_max_aud: null, checked_at: asOf },
      au_offers: [],
      available_in_au: false,
      provenance: [...record.provenance, { source: 'ai_enriched', fields: ['accords', 'main_accords'], recorded_at: asOf }],
      provenance_tags: [...new Set([...record.provenance_tags, 'ai_enriched' as const])],
      updated_at: asOf,
    };
    const merged = carryForward(record, live, '2030-01-01T00:00:00.000Z');
    expect(merged).toEqual(live);
    // With the live version gone, the store's copy does the same.
    expect(carryForward(record, undefined, '2030-01-01T00:00:00.000Z', enrichmentOf(live))).toEqual({
      ...live,
      updated_at: '2030-01-01T00:00:00.000Z',
    });
    // After a rollback the live version holds older results for the same inputs: the store's win.
    const newer: FragranceDetail = {
      ...live,
      au_availability: { ...live.au_availability, checked_at: '2029-06-01T00:00:00.000Z' },
      provenance: live.provenance.map((p) => (p.source === 'ai_enriched' ? { ...p, recorded_at: '2029-06-01T00:00:00.000Z' } : p)),
    };
    expect(carryForward(record, live, '2030-01-01T00:00:00.000Z', enrichmentOf(newer))).toEqual({
      ...newer,
      updated_at: '2030-01-01T00:00:00.000Z',
    });
    // An operator has curated the accords since (the file says so): the operator's stay.
    const curated: FragranceDetail = {
      ...record,
      provenance: [...record.provenance, { source: 'operator_curated', fields: ['accords'], recorded_at: '2029-09-01T00:00:00.000Z' }],
    };
    const kept = carryForward(curated, undefined, '2030-01-01T00:00:00.000Z', enrichmentOf(live));
    expect(kept).toMatchObject({ accords: [], main_accords: ['woody', 'amber'], au_availability: live.au_availability });
    expect(kept.provenance.find((p) => p.source === 'ai_enriched')?.fields).toEqual(['main_accords']);
    // The file now names accords of its own: the enriched ones are not the record's any more.
    const named = { ...record, accords: ['citrus'], main_accords: ['citrus'] };
    expect(carryForward(named, live, '2030-01-01T00:00:00.000Z')).toMatchObject({
      accords: ['citrus'],
      au_availability: record.au_availability,
    });
  });

  it('carryForward leaves a new record alone and keeps the live time of an unchanged one', () => {
    const record = base[3]!;
    expect(carryForward(record, undefined, '2030-01-01T00:00:00.000Z')).toBe(record);
    const live = enriched(record, '2029-01-01T00:00:00.000Z');
    const merged = carryForward(
      { ...record, provenance: record.provenance.map((p) => ({ ...p, recorded_at: '2030-01-01T00:00:00.000Z' })) },
      live,
      '2030-01-01T00:00:00.000Z',
    );
    expect(merged.updated_at).toBe('2029-01-01T00:00:00.000Z');
    expect(merged.seasons).toEqual(['winter']);
  });
});
