import { createHash } from 'node:crypto';
import type { estypes } from '@elastic/elasticsearch';
import type { FragranceDetail } from '@fragrance/contracts';

/** Helper object of the index holding a record's vector; never returned to clients. */
export const EMBEDDING_OBJECT = 'embedding';
/** The vector itself, excluded from every read that does not need it (1.5–3 KB of JSON per record). */
export const EMBEDDING_VECTOR_FIELD = `${EMBEDDING_OBJECT}.vector`;
export const EMBEDDING_DIMENSIONS = 384;

/**
 * A record's vector and where it came from. `source` is the provenance source that made it
 * (`ai_enriched`), `model` the model's `<id>@<version>`, `input` a fingerprint of the text it was
 * made from: a vector whose input or model differs from what the record would give now is stale.
 */
export interface StoredEmbedding {
  vector: number[];
  source: 'ai_enriched';
  model: string;
  input: string;
  recorded_at: string;
}

export const EMBEDDING_MAPPING: estypes.MappingProperty = {
  properties: {
    // int8-quantized HNSW (Elasticsearch's default for 384 dimensions): a quarter of the memory
    // of float vectors, recall within a point or two of them at our num_candidates.
    vector: { type: 'dense_vector', dims: EMBEDDING_DIMENSIONS, index: true, similarity: 'cosine', index_options: { type: 'int8_hnsw' } },
    source: { type: 'keyword' },
    model: { type: 'keyword' },
    input: { type: 'keyword', index: false, doc_values: false },
    recorded_at: { type: 'date' },
  },
};

/**
 * Items of a list are joined by spaces, not commas: a comma is a token of its own (~15 of a
 * record's ~70), the model's time grows with tokens, and semantic description precision@10 did
 * not suffer (0.583 without against 0.56 with, by exact cosine over 2,000 records).
 */
const words = (values: readonly string[]) => values.join(' ');
const listed = (label: string, values: readonly string[]) => (values.length > 0 ? ` ${label}: ${words(values)}.` : '');

/**
 * What a shopper would say about a record, as the text its vector is made from, phrased the way
 * descriptions ask ("A smoky leather woody fragrance for autumn winter; for evening formal. Eau de
 * Parfum. Top: pink pepper. Heart: birch tar. Base: vetiver vanilla."): accords (the strongest
 * six), seasons, occasions, concentration, then the note pyramid by stage.
 *
 * Left out: name and brand (known items are the lexical side's job, and a name's words pull
 * vectors toward unrelated names), and the description. Ours are written from these same
 * attributes plus the name, brand and perfumers (the dataset's and the local enricher's), so
 * they add no meaning, only tokens: with them a record averaged ~100 tokens instead of ~70, and
 * the model's time grows with tokens (bench:enrich), while description precision@10 fell
 * (bench:relevance, docs/search.md).
 */
export function embeddingText(record: Pick<FragranceDetail, 'accords' | 'seasons' | 'occasions' | 'concentration' | 'notes'>): string {
  const character = record.accords.length > 0 ? `A ${words(record.accords.slice(0, 6))} fragrance` : 'A fragrance';
  const seasons = record.seasons.length > 0 ? ` for ${words(record.seasons)}` : '';
  const occasions = record.occasions.length > 0 ? `${seasons ? ';' : ''} for ${words(record.occasions)}` : '';
  return (
    `${character}${seasons}${occasions}. ${record.concentration}.` +
    listed('Top', record.notes.top) +
    listed('Heart', record.notes.heart) +
    listed('Base', record.notes.base)
  );
}

/** Fingerprint of an embedding's input text. */
export function embeddingInput(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** Vectors go to the index rounded to 6 decimals: a third of the JSON, cosine unchanged to 1e-6. */
export function storedVector(vector: ArrayLike<number>): number[] {
  return Array.from(vector, (x) => Math.round(x * 1e6) / 1e6);
}

/** Whether a stored vector still fits the record: made by this model from the text the record gives now. */
export function embeddingIsCurrent(
  stored: Pick<StoredEmbedding, 'model' | 'input'> | undefined,
  record: Parameters<typeof embeddingText>[0],
  modelKey: string,
): boolean {
  return stored?.model === modelKey && stored.input === embeddingInput(embeddingText(record));
}
