// Test helpers (exported as @fragrance/search/testing): hand-made records with known names,
// so relevance tests can assert exact orderings next to generated records.
import { randomUUID } from 'node:crypto';
import type { Client } from '@elastic/elasticsearch';
import type { Concentration, FragranceDetail } from '@fragrance/contracts';
import type { QueryEmbedder } from './semantic.ts';
import { embeddingInput, embeddingText, storedVector, type StoredEmbedding } from './vectors.ts';

export interface RecordOverrides {
  id?: string;
  name: string;
  brand: string;
  country?: string;
  concentration?: Concentration;
  year_released?: number | null;
  votes?: number;
  average?: number | null;
  notes?: Partial<FragranceDetail['notes']>;
  accords?: string[];
  perfumers?: string[];
  available_in_au?: boolean;
}

/** A valid FragranceDetail with the given distinguishing fields. */
export function makeRecord(o: RecordOverrides): FragranceDetail {
  const accords = o.accords ?? ['woody', 'citrus'];
  const available = o.available_in_au ?? false;
  return {
    id: o.id ?? randomUUID(),
    name: o.name,
    brand: o.brand,
    country: o.country ?? 'FR',
    concentration: o.concentration ?? 'Eau de Parfum',
    year_released: o.year_released === undefined ? 2015 : o.year_released,
    rating: { average: o.average === undefined ? 4 : o.average, count: o.votes ?? 10 },
    main_accords: accords.slice(0, 5),
    available_in_au: available,
    description: null,
    notes: { top: o.notes?.top ?? ['bergamot'], heart: o.notes?.heart ?? ['jasmine'], base: o.notes?.base ?? ['musk'] },
    accords,
    perfumers: o.perfumers ?? [],
    seasons: [],
    occasions: [],
    provenance_tags: ['operator_curated'],
    provenance: [{ source: 'operator_curated', fields: ['name'], recorded_at: '2026-01-01T00:00:00Z' }],
    au_availability: { available, price_min_aud: available ? 120 : null, price_max_aud: available ? 180 : null, checked_at: null },
    au_offers: [],
    updated_at: '2026-01-01T00:00:00Z',
  };
}

/**
 * Gives records the vectors the worker's embedding step would (services/worker/src/enrich/embed.ts),
 * in bulk chunks, for tests and benches that need semantic search without running a worker.
 */
export async function writeRecordVectors({
  client,
  index,
  records,
  embedder,
  chunkSize = 500,
}: {
  client: Client;
  index: string;
  records: readonly FragranceDetail[];
  embedder: QueryEmbedder;
  chunkSize?: number;
}): Promise<void> {
  for (let start = 0; start < records.length; start += chunkSize) {
    const chunk = records.slice(start, start + chunkSize);
    const texts = chunk.map(embeddingText);
    const vectors = await embedder.embed(texts);
    const operations = chunk.flatMap((record, i) => {
      const vector = vectors[i];
      const text = texts[i];
      if (!vector || text === undefined) throw new Error(`the embedder returned ${vectors.length} vectors for ${texts.length} texts`);
      const embedding: StoredEmbedding = {
        vector: storedVector(vector),
        source: 'ai_enriched',
        model: embedder.modelKey,
        input: embeddingInput(text),
        recorded_at: record.updated_at,
      };
      return [{ update: { _index: index, _id: record.id } }, { doc: { embedding } }];
    });
    const bulk = await client.bulk({ operations }, { querystring: { filter_path: 'errors' } });
    if (bulk.errors) throw new Error(`writing record vectors to ${index} failed`);
  }
  await client.indices.refresh({ index });
}
