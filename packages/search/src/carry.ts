import type { Client } from '@elastic/elasticsearch';
import { PROVENANCE_SOURCES, type FragranceDetail, type ProvenanceEntry, type ProvenanceSource } from '@fragrance/contracts';
import { SEARCH_OBJECT } from './mapping.ts';
import { embeddingIsCurrent, type StoredEmbedding } from './vectors.ts';

/** Sources whose results a re-ingest must not throw away (paid model calls, retailer checks). */
const ENRICHMENT_SOURCES: ReadonlySet<ProvenanceSource> = new Set(['ai_enriched', 'au_retailer_scrape']);

/** What the enrichers read: when none of it changed, their results still hold. */
const ENRICHMENT_INPUTS = ['name', 'brand', 'concentration', 'year_released', 'notes', 'accords', 'perfumers'] as const;

/** JSON with sorted keys, so a stored document and a parsed line compare equal when their values do. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Fingerprint of a record's enrichment inputs. */
export function enrichmentInputs(record: FragranceDetail): string {
  return canonical(ENRICHMENT_INPUTS.map((field) => record[field]));
}

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
 * Merges a live record into the one about to replace it. When the enrichers' inputs are
 * unchanged, their results (the fields each enrichment source's provenance claims, and those
 * provenance entries) carry over: a re-ingest neither drops them nor makes the next run pay for
 * them again. Then, when nothing at all changed, the live `updated_at` stays (a mirror syncing
 * with updated_since sees no change); otherwise the record is stamped `now` (or its own later time).
 */
export function carryForward(incoming: FragranceDetail, live: FragranceDetail | undefined, now: string): FragranceDetail {
  if (!live) return incoming;
  let next = incoming;
  if (enrichmentInputs(incoming) === enrichmentInputs(live)) {
    const kept = live.provenance.filter((p) => ENRICHMENT_SOURCES.has(p.source));
    const fields = new Set(kept.flatMap((p) => p.fields));
    const target: Record<string, unknown> = { ...incoming };
    for (const field of fields) if (field in live) target[field] = (live as unknown as Record<string, unknown>)[field];
    const provenance: ProvenanceEntry[] = [
      ...incoming.provenance
        .filter((p) => !ENRICHMENT_SOURCES.has(p.source))
        .map((p) => (p.source === 'operator_curated' ? p : { ...p, fields: p.fields.filter((f) => !fields.has(f)) }))
        .filter((p) => p.fields.length > 0),
      ...kept,
    ].sort((a, b) => Date.parse(a.recorded_at) - Date.parse(b.recorded_at));
    const present = new Set(provenance.map((p) => p.source));
    next = { ...(target as FragranceDetail), provenance, provenance_tags: PROVENANCE_SOURCES.filter((s) => present.has(s)) };
  }
  if (content(next) === content(live)) return { ...next, updated_at: live.updated_at };
  return { ...next, updated_at: Date.parse(next.updated_at) > Date.parse(now) ? next.updated_at : now };
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
 * The live vector, when it still fits the record going in: same model, made from the same text
 * (so a record whose accords, notes, seasons, occasions or description changed gets a new one
 * from the next enrichment run, and only such records do).
 */
export function carriedEmbedding(next: FragranceDetail, live: LiveRecord | undefined): StoredEmbedding | undefined {
  const embedding = live?.embedding;
  if (!embedding) return undefined;
  return embeddingIsCurrent(embedding, next, embedding.model) ? embedding : undefined;
}
