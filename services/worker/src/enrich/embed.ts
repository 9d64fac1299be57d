import { embeddingInput, embeddingText, storedVector, type StoredEmbedding } from '@fragrance/search';
import type { ComputedRow } from './batch.ts';

/** What the enrichment needs of the embedding model (packages/embeddings' Embedder fits). */
export interface RowEmbedder {
  readonly modelKey: string;
  embed: (texts: readonly string[]) => Promise<Float32Array[]>;
}

/**
 * The enrichment's embedding step (provenance `ai_enriched`): a vector for every row whose text
 * (embeddingText of the row as the enrichers left it) or model differs from what its stored
 * vector was made from. Rows whose vector is current are not embedded again; a redone batch finds
 * them all current. Runs after the enrichers, so a new description or accords count.
 */
export async function embedStaleRows(
  rows: readonly ComputedRow[],
  embedder: RowEmbedder,
  asOf: string,
): Promise<Map<string, StoredEmbedding>> {
  const stale: { id: string; text: string; input: string }[] = [];
  for (const { row, next } of rows) {
    const text = embeddingText(next);
    const input = embeddingInput(text);
    if (row.embedding?.model === embedder.modelKey && row.embedding.input === input) continue;
    stale.push({ id: row.id, text, input });
  }
  const out = new Map<string, StoredEmbedding>();
  if (stale.length === 0) return out;
  const vectors = await embedder.embed(stale.map((s) => s.text));
  stale.forEach((s, i) => {
    const vector = vectors[i];
    if (!vector) throw new Error(`the embedder returned ${vectors.length} vectors for ${stale.length} texts`);
    out.set(s.id, { vector: storedVector(vector), source: 'ai_enriched', model: embedder.modelKey, input: s.input, recorded_at: asOf });
  });
  return out;
}
