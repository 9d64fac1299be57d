import type { Client } from '@elastic/elasticsearch';
import type { FragranceDetail } from '@fragrance/contracts';
import { EMBEDDING_OBJECT, EMBEDDING_VECTOR_FIELD, SEARCH_OBJECT, type StoredEmbedding } from '@fragrance/search';

/** A record as read, with what optimistic concurrency needs to write it back safely. */
export interface StoredRow {
  id: string;
  /** The concrete index it was read from: a write never follows the alias to a newer index. */
  index: string;
  seqNo: number;
  primaryTerm: number;
  record: FragranceDetail;
  /** The stored vector's model and input fingerprint (the vector itself is not read). */
  embedding?: Pick<StoredEmbedding, 'model' | 'input'>;
}

/** Builds the stored document of a record (the search package's folded helper fields included). */
export type DocumentBuilder = (record: FragranceDetail) => Record<string, unknown>;

export interface ReadResult {
  rows: StoredRow[];
  /** Ids the alias no longer holds (a re-ingest dropped them). */
  missing: string[];
  /** Ids whose stored document is not a valid record. */
  invalid: string[];
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The stored document as a record, if it has the shape enrichment relies on. Ingest validated
 * every record against the full schema already; re-running that zod parse per row was most of a
 * batch's CPU, so this checks structure only.
 */
export function asRecord(source: unknown): FragranceDetail | undefined {
  if (!isObject(source)) return undefined;
  const { id, name, brand, concentration, notes, description, au_availability: au } = source;
  if (typeof id !== 'string' || typeof name !== 'string' || typeof brand !== 'string' || typeof concentration !== 'string')
    return undefined;
  if (!isObject(notes) || !isStringArray(notes.top) || !isStringArray(notes.heart) || !isStringArray(notes.base)) return undefined;
  for (const field of ['accords', 'main_accords', 'perfumers', 'seasons', 'occasions', 'provenance_tags'] as const) {
    if (!isStringArray(source[field])) return undefined;
  }
  if (!(description === null || typeof description === 'string')) return undefined;
  if (
    !Array.isArray(source.provenance) ||
    !source.provenance.every(
      (p) => isObject(p) && typeof p.source === 'string' && isStringArray(p.fields) && typeof p.recorded_at === 'string',
    )
  )
    return undefined;
  if (!Array.isArray(source.au_offers) || !isObject(au) || typeof source.updated_at !== 'string') return undefined;
  return source as unknown as FragranceDetail;
}

/** Realtime multi-get through the alias, with each document's seq_no and primary_term. */
export async function readRows(client: Client, alias: string, ids: readonly string[]): Promise<ReadResult> {
  const out: ReadResult = { rows: [], missing: [], invalid: [] };
  if (ids.length === 0) return out;
  const response = await client.mget<Record<string, unknown>>({
    index: alias,
    ids: [...ids],
    realtime: true,
    _source_excludes: [SEARCH_OBJECT, EMBEDDING_VECTOR_FIELD],
  });
  for (const doc of response.docs) {
    if (!('found' in doc) || !doc.found || !doc._source || doc._seq_no === undefined || doc._primary_term === undefined) {
      out.missing.push(doc._id);
      continue;
    }
    const { [EMBEDDING_OBJECT]: stored, ...source } = doc._source;
    const record = asRecord(source);
    if (!record) {
      out.invalid.push(doc._id);
      continue;
    }
    const embedding = stored as Pick<StoredEmbedding, 'model' | 'input'> | undefined;
    out.rows.push({
      id: doc._id,
      index: doc._index,
      seqNo: doc._seq_no,
      primaryTerm: doc._primary_term,
      record,
      ...(embedding ? { embedding } : {}),
    });
  }
  return out;
}

export interface RowWrite {
  row: StoredRow;
  /** Partial document: only the fields that change. */
  doc: Record<string, unknown>;
}

export interface WriteResult {
  written: string[];
  /** Changed (or deleted, or its index replaced) since it was read: re-read and re-apply. */
  conflicts: string[];
  failed: { id: string; reason: string }[];
}

/** Elasticsearch said "later" (queue full, shard unavailable): the whole batch is retried. */
export class TransientWriteError extends Error {
  readonly code = 'es_transient';
}

/**
 * One bulk of partial updates, each conditional on the seq_no/primary_term it was read at, so a
 * concurrent re-ingest or edit is never overwritten. Writes go to the concrete index read from.
 */
export async function writeRows(client: Client, writes: readonly RowWrite[]): Promise<WriteResult> {
  const out: WriteResult = { written: [], conflicts: [], failed: [] };
  if (writes.length === 0) return out;
  const operations: object[] = [];
  for (const { row, doc } of writes) {
    operations.push({ update: { _index: row.index, _id: row.id, if_seq_no: row.seqNo, if_primary_term: row.primaryTerm } }, { doc });
  }
  // Only status and error of each item: a 500-item response shrinks from ~100 KB to a few.
  const response = await client.bulk(
    { operations, refresh: false },
    { querystring: { filter_path: 'errors,items.*.status,items.*.error' } },
  );
  (response.items ?? []).forEach((item, i) => {
    const result = item.update;
    const id = writes[i]?.row.id ?? '';
    if (!result) return;
    if (!result.error) {
      out.written.push(id);
      return;
    }
    if (result.status === 409 || result.status === 404) out.conflicts.push(id);
    else if (result.status === 429 || result.status >= 500)
      throw new TransientWriteError(`bulk update ${result.status}: ${result.error.type}`);
    else out.failed.push({ id, reason: `${result.error.type}: ${result.error.reason ?? ''}` });
  });
  return out;
}

/** Fields the planner reads to decide whether a row needs work (and to match the AU feed). */
export const SELECTION_FIELDS = [
  'id',
  'brand',
  'name',
  'concentration',
  'accords',
  'perfumers',
  'description',
  'seasons',
  'occasions',
  'au_availability.checked_at',
  `${EMBEDDING_OBJECT}.model`,
] as const;

export interface SelectionRow {
  id: string;
  brand: string;
  name: string;
  concentration: string;
  accords?: string[];
  perfumers?: string[];
  description?: string | null;
  seasons?: string[];
  occasions?: string[];
  au_availability?: { checked_at?: string | null };
  embedding?: { model?: string };
}

/** Reads every row's selection fields with a scroll (core Elasticsearch), page by page. */
export async function scanCatalogue(
  client: Client,
  alias: string,
  onPage: (rows: SelectionRow[]) => void,
  options: { pageSize?: number; signal?: AbortSignal } = {},
): Promise<number> {
  let total = 0;
  let response = await client.search<SelectionRow>({
    index: alias,
    scroll: '2m',
    size: options.pageSize ?? 5_000,
    sort: ['_doc'],
    _source: { includes: [...SELECTION_FIELDS] },
    query: { match_all: {} },
  });
  let scrollId = response._scroll_id;
  try {
    while (response.hits.hits.length > 0) {
      options.signal?.throwIfAborted();
      const rows = response.hits.hits.flatMap((h) => (h._source ? [{ ...h._source, id: h._source.id ?? h._id ?? '' }] : []));
      total += rows.length;
      onPage(rows);
      if (!scrollId) break;
      response = await client.scroll<SelectionRow>({ scroll_id: scrollId, scroll: '2m' });
      scrollId = response._scroll_id;
    }
  } finally {
    if (scrollId) await client.clearScroll({ scroll_id: scrollId }).catch(() => undefined);
  }
  return total;
}
