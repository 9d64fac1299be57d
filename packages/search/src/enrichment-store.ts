import { createHash } from 'node:crypto';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { FragranceDetail, ProvenanceEntry, ProvenanceSource } from '@fragrance/contracts';
import { ensureStoreIndex, KEPT_NOT_INDEXED } from './store-index.ts';
import type { StoredEmbedding } from './vectors.ts';

/**
 * The durable store of enrichment results (docs/enrichment.md): one document per record id in an
 * index of its own beside the catalogue's versions, holding what the enrichers produced and a
 * fingerprint of the inputs they produced it from. The worker writes it with every batch; ingest
 * reads it to carry results into each new version, also for records the live version lacks
 * (dropped by an earlier ingest) or holds older results of (a rollback), and archives live
 * results of records it holds nothing for yet.
 */
export const enrichmentStoreOf = (alias: string) => `${alias}-enrichment`;

/** Sources whose results a re-ingest must not throw away (paid model calls, retailer checks). */
export const ENRICHMENT_SOURCES: ReadonlySet<ProvenanceSource> = new Set(['ai_enriched', 'au_retailer_scrape']);

/** What the enrichers read: when none of it changed, their results still hold. */
const ENRICHMENT_INPUTS = ['name', 'brand', 'concentration', 'year_released', 'notes', 'accords', 'perfumers'] as const;

/** JSON with sorted keys, so a stored document and a parsed line compare equal when their values do. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/**
 * A record's enrichment inputs, canonical (equal strings: equal inputs), as they were before
 * enrichment: an input an enricher filled (accords of a row that had none) counts as the empty
 * value it had, so the source file's row, still without it, has the same inputs.
 */
export function enrichmentInputs(record: FragranceDetail): string {
  const filled = new Set(record.provenance.filter((p) => ENRICHMENT_SOURCES.has(p.source)).flatMap((p) => p.fields));
  return canonical(ENRICHMENT_INPUTS.map((field) => (filled.has(field) ? (Array.isArray(record[field]) ? [] : null) : record[field])));
}

/** Short fingerprint of the enrichment inputs, as the store keeps it. */
export function enrichmentFingerprint(record: FragranceDetail): string {
  return createHash('sha256').update(enrichmentInputs(record)).digest('base64url').slice(0, 22);
}

/** One record's enrichment results, as the store holds them. */
export interface StoredEnrichment {
  /** enrichmentFingerprint of the record the results were made for. */
  inputs: string;
  /** The enrichment sources' provenance entries. */
  provenance: ProvenanceEntry[];
  /** The values of the fields those entries claim. */
  values: Record<string, unknown>;
  /** The record's vector (vectors.ts), when it has one. */
  embedding?: StoredEmbedding;
}

/**
 * The AU check's fields. A check that found no offer leaves them unclaimed (the retailer-scrape
 * source drops its tag: nothing found), yet it is a result all the same: its `checked_at` keeps
 * the row out of the next run, so they go with the results whenever the row was checked.
 */
const AU_CHECK_FIELDS = ['au_availability', 'au_offers', 'available_in_au'] as const;

/** A record's enrichment results: its enrichment sources' entries, the fields they claim, and its AU check. */
export function enrichmentOf(record: FragranceDetail, embedding?: StoredEmbedding): StoredEnrichment {
  const provenance = record.provenance.filter((p) => ENRICHMENT_SOURCES.has(p.source));
  const source = record as unknown as Record<string, unknown>;
  const fields = new Set(provenance.flatMap((p) => p.fields));
  if (record.au_availability.checked_at !== null) for (const field of AU_CHECK_FIELDS) fields.add(field);
  const values: Record<string, unknown> = {};
  for (const field of fields) if (field in source) values[field] = source[field];
  return { inputs: enrichmentFingerprint(record), provenance, values, ...(embedding ? { embedding } : {}) };
}

const isEmpty = (entry: StoredEnrichment) => entry.provenance.length === 0 && Object.keys(entry.values).length === 0 && !entry.embedding;

/** Explicit and strict like the catalogue's; nothing in it is searched, it is read by id. */
const STORE_MAPPING: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    inputs: { type: 'keyword' },
    provenance: KEPT_NOT_INDEXED,
    values: KEPT_NOT_INDEXED,
    embedding: KEPT_NOT_INDEXED,
  },
};

/** Creates the store index if it does not exist (once per process and alias). */
export function ensureEnrichmentStore(client: Client, alias: string): Promise<void> {
  return ensureStoreIndex(client, enrichmentStoreOf(alias), { mappings: STORE_MAPPING, settings: { number_of_shards: 1 } });
}

/** The stored results of these records (by id); none when the store does not exist yet. */
export async function readEnrichment(client: Client, alias: string, ids: readonly string[]): Promise<Map<string, StoredEnrichment>> {
  const out = new Map<string, StoredEnrichment>();
  if (ids.length === 0) return out;
  const response = await client.mget<StoredEnrichment>(
    { index: enrichmentStoreOf(alias), ids: [...ids], realtime: true },
    { ignore: [404] },
  );
  for (const doc of response.docs ?? []) {
    if ('found' in doc && doc.found && doc._source) out.set(doc._id, doc._source);
  }
  return out;
}

export interface EnrichmentUpdate {
  id: string;
  /** The record as the live index now holds it. */
  record: FragranceDetail;
  /** Its vector when the caller holds it. */
  embedding?: StoredEmbedding;
  /** Without `embedding`: the model and input of the live vector; a stored vector that matches them is kept. */
  embeddingOf?: Pick<StoredEmbedding, 'model' | 'input'>;
}

export interface SaveOptions {
  /**
   * `latest` (the worker, which just made these results): they replace whatever is stored.
   * `archive` (ingest, copying live results into the store): only where the store holds nothing
   * for the record; whatever it holds is the worker's, never older (the live version may be an
   * old one after a rollback).
   */
  mode: 'latest' | 'archive';
  /** What the caller read from the store already (readEnrichment), to save reading it again. */
  known?: Map<string, StoredEnrichment>;
}

/**
 * Writes each record's results where they differ from what the store holds. Records without
 * results are written only over an entry for the same inputs (whose results went away). Returns
 * how many were written; throws when any write fails (the caller's job is retried).
 */
export async function saveEnrichment(
  client: Client,
  alias: string,
  updates: readonly EnrichmentUpdate[],
  options: SaveOptions,
): Promise<number> {
  if (updates.length === 0) return 0;
  const known =
    options.known ??
    (await readEnrichment(
      client,
      alias,
      updates.map((u) => u.id),
    ));
  const writes: { id: string; entry: StoredEnrichment }[] = [];
  for (const update of updates) {
    const stored = known.get(update.id);
    let entry = enrichmentOf(update.record, update.embedding);
    if (!entry.embedding && update.embeddingOf && stored?.embedding) {
      const { model, input } = stored.embedding;
      if (model === update.embeddingOf.model && input === update.embeddingOf.input) entry = { ...entry, embedding: stored.embedding };
    }
    const sameInputs = stored?.inputs === entry.inputs;
    if (isEmpty(entry) && !sameInputs) continue;
    if (options.mode === 'archive' && stored) continue;
    if (stored && canonical(stored) === canonical(entry)) continue;
    writes.push({ id: update.id, entry });
  }
  if (writes.length === 0) return 0;
  await ensureEnrichmentStore(client, alias);
  const response = await client.bulk({
    index: enrichmentStoreOf(alias),
    operations: writes.flatMap(({ id, entry }) => [{ index: { _id: id } }, entry]),
    filter_path: 'errors,items.*.error',
  });
  if (response.errors) {
    const first = response.items?.map((item) => Object.values(item)[0]?.error).find(Boolean);
    throw new Error(`enrichment store write failed: ${first?.type ?? 'unknown'}: ${first?.reason ?? ''}`);
  }
  return writes.length;
}
