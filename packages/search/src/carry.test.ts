import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FragranceDetail } from '@fragrance/contracts';
import { generateCatalogue } from '@fragrance/dataset';
import { testElasticsearch, type TestElasticsearch } from '@fragrance/testkit';
import { carryForward } from './carry.ts';
import { ingestCatalogue } from './ingest.ts';

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
    await new Promise((r) => setTimeout(r, 10));
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
