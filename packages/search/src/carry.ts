import type { Client } from '@elastic/elasticsearch';
import { PROVENANCE_SOURCES, type FragranceDetail, type ProvenanceEntry } from '@fragrance/contracts';
import {
  canonical,
  ENRICHMENT_SOURCES,
  enrichmentFingerprint,
  enrichmentInputs,
  enrichmentOf,
  type StoredEnrichment,
} from './enrichment-store.ts';
import { SEARCH_OBJECT } from './mapping.ts';
import { embeddingIsCurrent, type StoredEmbedding } from './vectors.ts';

/** A record's content apart from bookkeeping times (updated_at, when each source supplied its fields). */
function content(record: FragranceDetail): string {
  const { updated_at: _u, provenance, ...rest } = record;
  // Entries in source order: the times left out, their order by time says nothing either.
  const entries = provenance
    .map(({ recorded_at: _r, ...entry }) => entry)
    .sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
  return canonical({ ...rest, provenance: entries });
}

/**
 * The incoming record with these enrichment results (their fields and provenance entries) in
 * place of its own; fields the incoming record's operator curated stay the operator's.
 */
function withEnrichment(incoming: FragranceDetail, results: Pick<StoredEnrichment, 'provenance' | 'values'>): FragranceDetail {
  const curated = new Set(incoming.provenance.filter((p) => p.source === 'operator_curated').flatMap((p) => p.fields));
  const kept = results.provenance
    .map((p) => ({ ...p, fields: p.fields.filter((f) => !curated.has(f)) }))
    .filter((p) => p.fields.length > 0);
  const fields = new Set(kept.flatMap((p) => p.fields));
  const target: Record<string, unknown> = { ...incoming };
  for (const [field, value] of Object.entries(results.values)) if (!curated.has(field)) target[field] = value;
  const provenance: ProvenanceEntry[] = [
    ...incoming.provenance
      .filter((p) => !ENRICHMENT_SOURCES.has(p.source))
      .map((p) => (p.source === 'operator_curated' ? p : { ...p, fields: p.fields.filter((f) => !fields.has(f)) }))
      .filter((p) => p.fields.length > 0),
    ...kept,
  ].sort((a, b) => Date.parse(a.recorded_at) - Date.parse(b.recorded_at));
  const present = new Set(provenance.map((p) => p.source));
  return { ...(target as FragranceDetail), provenance, provenance_tags: PROVENANCE_SOURCES.filter((s) => present.has(s)) };
}

const stamped = (record: FragranceDetail, now: string): FragranceDetail => ({
  ...record,
  updated_at: Date.parse(record.updated_at) > Date.parse(now) ? record.updated_at : now,
});

/**
 * Merges a live record into the one about to replace it. When the enrichers' inputs are
 * unchanged, their results (the fields each enrichment source's provenance claims, and those
 * provenance entries) carry over: a re-ingest neither drops them nor makes the next run pay for
 * them again. Results come from the durable store (`stored`) when it holds them for these inputs,
 * else from the live record when its inputs are the same (results made before the store existed). Then, when nothing at all changed, the live `updated_at` stays (a mirror
 * syncing with updated_since sees no change); otherwise the record is stamped `now` (or its own
 * later time). A record new to the live version takes its own time unless stored results
 * changed it.
 */
export function carryForward(
  incoming: FragranceDetail,
  live: FragranceDetail | undefined,
  now: string,
  stored?: StoredEnrichment,
): FragranceDetail {
  const fromLive = live && enrichmentInputs(incoming) === enrichmentInputs(live) ? enrichmentOf(live) : undefined;
  const fromStore = stored?.inputs === enrichmentFingerprint(incoming) ? stored : undefined;
  // The store's first: the worker writes it with every result, so for the same inputs it is never
  // older than the live version (which, after a rollback, may be an old one).
  const results = fromStore ?? fromLive;
  const next = results ? withEnrichment(incoming, results) : incoming;
  if (!live) return results && content(next) !== content(incoming) ? stamped(next, now) : incoming;
  if (content(next) === content(live)) return { ...next, updated_at: live.updated_at };
  return stamped(next, now);
}

/** A live record with the vector the worker made for it, if any. */
export interface LiveRecord {
  record: FragranceDetail;
  embedding?: StoredEmbedding;
}

/** The live versions of these records (by id), read from the index the alias pointed at when the ingest began. */
export async function liveRecords(client: Client, index: string, ids: string[]): Promise<Map<string, LiveRecord>> {
  const response = await client.mget<FragranceDetail & { embedding?: StoredEmbedding }>({ index, ids, _source_excludes: [SEARCH_OBJECT] });
  const out = new Map<string, LiveRecord>();
  for (const doc of response.docs) {
    if (!('found' in doc) || !doc.found || !doc._source) continue;
    const { embedding, ...record } = doc._source;
    out.set(doc._id, embedding ? { record, embedding } : { record });
  }
  return out;
}

/**
 * The live vector, or else the stored one, when it still fits the record going in: same model,
 * made from the same text (so a record whose accords, notes, seasons, occasions or description
 * changed gets a new one from the next enrichment run, and only such records do).
 */
export function carriedEmbedding(
  next: FragranceDetail,
  live: LiveRecord | undefined,
  stored?: StoredEnrichment,
): StoredEmbedding | undefined {
  for (const embedding of [live?.embedding, stored?.embedding]) {
    if (embedding && embeddingIsCurrent(embedding, next, embedding.model)) return embedding;
  }
  return undefined;
}
