import type { Client } from '@elastic/elasticsearch';
import type { FragranceDetail, ProvenanceSource } from '@fragrance/contracts';
import type { BatchResult, EnrichBatchJobData } from '@fragrance/jobs';
import type { Logger } from '@fragrance/http';
import { bumpCatalogueGeneration, type GenerationStore } from '@fragrance/response-cache';
import { bumpSimilarGeneration, currentIndex, saveEnrichment, type EnrichmentUpdate, type StoredEmbedding } from '@fragrance/search';
import { readRows, writeRows, type DocumentBuilder, type RowWrite, type StoredRow } from '../catalogue.ts';
import type { Enricher, EnrichContext } from '../enrichers/types.ts';
import { applySupplied, sameValue } from './apply.ts';
import { embedStaleRows, type RowEmbedder } from './embed.ts';

export interface BatchDeps {
  elasticsearch: Client;
  alias: string;
  enrichers: readonly Enricher[];
  toDocument: DocumentBuilder;
  logger: Logger;
  /**
   * Where the catalogue's enrichment generation is bumped after a batch changed rows (the
   * catalogue service keys its response cache by it). Absent in tests that do not need it.
   */
  generation?: { redis: GenerationStore; prefix: string };
  /** Computes record vectors after the enrichers (embed.ts); absent: vectors are left as they are. */
  embedder?: RowEmbedder | undefined;
}

/**
 * Makes a batch's writes searchable now (not at the next scheduled refresh) and only then bumps
 * the generations: the enrichment generation (a cache refilled after the bump cannot hold
 * pre-batch answers) and the similar generation of each index written (materialised similar
 * lists computed before are stale; a pass computed after the bump has seen the writes). One
 * refresh per changed batch (a few hundred rows) is cheap next to the batch itself.
 */
async function publishChanges(deps: BatchDeps, written: ReadonlySet<string>): Promise<void> {
  const live = await currentIndex(deps.elasticsearch, deps.alias);
  const indices = [...new Set([...written, ...(live === undefined ? [] : [live])])];
  // A write that landed in a version a re-ingest has deleted since needs no refresh.
  if (indices.length > 0) await deps.elasticsearch.indices.refresh({ index: indices.join(','), ignore_unavailable: true });
  await bumpSimilarGeneration(deps.elasticsearch, deps.alias, indices);
  if (deps.generation) await bumpCatalogueGeneration(deps.generation.redis, { prefix: deps.generation.prefix, alias: deps.alias });
}

/** A row after every enricher had its turn. */
export interface ComputedRow {
  row: StoredRow;
  next: FragranceDetail;
  changedBy: Set<ProvenanceSource>;
  /** Partial document to write; undefined when nothing changed. */
  doc: Record<string, unknown> | undefined;
}

/** Fields every modification rewrites. */
const BOOKKEEPING = ['provenance', 'provenance_tags', 'updated_at'] as const;

/**
 * Only the stored fields that change: the changed record fields, the provenance bookkeeping,
 * and whichever helper fields the search package derives (`toDocument`) that now differ.
 */
export function partialDocument(
  toDocument: DocumentBuilder,
  before: FragranceDetail,
  after: FragranceDetail,
  changed: Iterable<string>,
): Record<string, unknown> {
  const next = after as unknown as Record<string, unknown>;
  const doc: Record<string, unknown> = {};
  for (const field of [...changed, ...BOOKKEEPING]) doc[field] = next[field];
  const a = toDocument(before);
  const b = toDocument(after);
  for (const [key, value] of Object.entries(b)) {
    if (Object.hasOwn(next, key)) continue; // a record field: handled above
    if (!sameValue(a[key], value)) doc[key] = value;
  }
  return doc;
}

/** Runs every enricher over the rows, in order, each seeing what the previous ones supplied. */
export async function computeUpdates(
  rows: readonly StoredRow[],
  deps: Pick<BatchDeps, 'enrichers' | 'toDocument'>,
  ctx: EnrichContext,
): Promise<ComputedRow[]> {
  const state = rows.map((row) => ({ row, next: row.record, changedBy: new Set<ProvenanceSource>(), fields: new Set<string>() }));
  for (const enricher of deps.enrichers) {
    ctx.signal?.throwIfAborted();
    const supplied = await enricher.enrich(
      state.map((s) => s.next),
      ctx,
    );
    for (const s of state) {
      const values = supplied.get(s.row.id);
      if (!values) continue;
      const applied = applySupplied(s.next, enricher.source, values, ctx.asOf);
      if (!applied.modified) continue;
      s.next = applied.record;
      s.changedBy.add(enricher.source);
      for (const field of applied.changed) s.fields.add(field);
    }
  }
  return state.map((s) => ({
    row: s.row,
    next: s.next,
    changedBy: s.changedBy,
    doc: s.changedBy.size > 0 ? partialDocument(deps.toDocument, s.row.record, s.next, s.fields) : undefined,
  }));
}

/** Record vectors for the rows whose text changed (or that have none of the current model). */
async function addVectors(computed: ComputedRow[], deps: BatchDeps, ctx: EnrichContext): Promise<void> {
  if (!deps.embedder) return;
  const vectors = await embedStaleRows(computed, deps.embedder, ctx.asOf);
  for (const c of computed) {
    const embedding = vectors.get(c.row.id);
    if (embedding) c.doc = { ...c.doc, embedding };
  }
}

/**
 * A re-ingest may have swapped the alias since the read: those writes landed in the old version.
 * They move from written to conflicts, so the next round re-reads them through the alias and
 * applies them again to the live one.
 */
async function retryStaleWrites(deps: BatchDeps, writes: RowWrite[], written: Awaited<ReturnType<typeof writeRows>>): Promise<void> {
  if (written.written.length === 0) return;
  const live = await currentIndex(deps.elasticsearch, deps.alias);
  if (live === undefined) return;
  const stale = new Set(writes.filter((w) => w.row.index !== live).map((w) => w.row.id));
  if (stale.size === 0) return;
  written.written = written.written.filter((id) => !stale.has(id));
  written.conflicts.push(...stale);
}

const MAX_ROUNDS = 4;

/**
 * Enriches one batch: read (realtime, with seq_no), compute, bulk-write conditionally. Rows that
 * changed underneath (a re-ingest, an edit) are re-read and re-applied, up to MAX_ROUNDS; what
 * still conflicts then is counted failed, never overwritten. Everything derives from the run's
 * `as_of`, so redoing a batch (retry, killed worker) finds nothing left to change.
 */
export async function processBatch(deps: BatchDeps, data: EnrichBatchJobData, signal?: AbortSignal): Promise<BatchResult> {
  const result: BatchResult = { seen: 0, changed: 0, unchanged: 0, failed: 0, conflicts: 0, per_enricher: {} };
  for (const enricher of deps.enrichers) result.per_enricher[enricher.source] = { changed: 0, unchanged: 0, failed: 0 };
  const tally = (changedBy: ReadonlySet<ProvenanceSource>, outcome: 'changed' | 'unchanged' | 'failed', rows = 1) => {
    result[outcome] += rows;
    for (const [source, counts] of Object.entries(result.per_enricher)) {
      if (outcome === 'failed') counts.failed += rows;
      else if (outcome === 'changed' && changedBy.has(source as ProvenanceSource)) counts.changed += rows;
      else counts.unchanged += rows;
    }
  };

  // What the durable enrichment store should hold for each row once its write settled.
  const settled = new Map<string, EnrichmentUpdate>();
  const settle = (row: StoredRow, record: FragranceDetail, embedding: StoredEmbedding | undefined) =>
    settled.set(row.id, {
      id: row.id,
      record,
      ...(embedding ? { embedding } : row.embedding ? { embeddingOf: row.embedding } : {}),
    });

  // The indices this batch wrote to: published once it is done, also when it fails after writing.
  const touched = new Set<string>();
  try {
    await enrichRounds(deps, data, signal, { result, tally, settle, touched });
  } finally {
    if (touched.size > 0) await publishChanges(deps, touched);
  }
  // Results outlive the index they were written to (a re-ingest, a rollback carries them from
  // here). A failed store write fails the batch: its retry finds the rows unchanged and saves them.
  await saveEnrichment(deps.elasticsearch, deps.alias, [...settled.values()], { mode: 'latest' });
  return result;
}

interface RoundState {
  result: BatchResult;
  tally: (changedBy: ReadonlySet<ProvenanceSource>, outcome: 'changed' | 'unchanged' | 'failed', rows?: number) => void;
  settle: (row: StoredRow, record: FragranceDetail, embedding: StoredEmbedding | undefined) => void;
  touched: Set<string>;
}

/** Read, compute, write, up to MAX_ROUNDS while rows change underneath. */
async function enrichRounds(
  deps: BatchDeps,
  data: EnrichBatchJobData,
  signal: AbortSignal | undefined,
  { result, tally, settle, touched }: RoundState,
): Promise<void> {
  const none = new Set<ProvenanceSource>();
  const ctx: EnrichContext = { asOf: data.as_of, full: data.full, ...(signal ? { signal } : {}) };
  let pending: readonly string[] = data.ids;
  for (let round = 1; pending.length > 0 && round <= MAX_ROUNDS; round++) {
    signal?.throwIfAborted();
    const read = await readRows(deps.elasticsearch, deps.alias, pending);
    if (round === 1) {
      result.seen += read.rows.length + read.invalid.length;
      if (read.missing.length > 0)
        deps.logger.info(
          { run: data.run_id, batch: data.batch_no, missing: read.missing.length },
          'rows no longer in the catalogue; skipped',
        );
    } else {
      // Seen in round 1, deleted since (a re-ingest dropped them): nothing to write.
      tally(none, 'unchanged', read.missing.length);
    }
    if (read.invalid.length > 0) {
      deps.logger.warn(
        { run: data.run_id, batch: data.batch_no, ids: read.invalid.slice(0, 5) },
        'stored documents that are not valid records',
      );
      tally(none, 'failed', read.invalid.length);
    }
    const computed = await computeUpdates(read.rows, deps, ctx);
    await addVectors(computed, deps, ctx);
    const writes: RowWrite[] = [];
    const byId = new Map<string, ComputedRow>();
    for (const c of computed) {
      if (c.doc && Object.keys(c.doc).length > 0) {
        writes.push({ row: c.row, doc: c.doc });
        byId.set(c.row.id, c);
      } else {
        tally(none, 'unchanged');
        settle(c.row, c.row.record, undefined);
      }
    }
    // Past this point the work is written; an abort before it hands the batch back untouched.
    signal?.throwIfAborted();
    for (const write of writes) touched.add(write.row.index);
    const written = await writeRows(deps.elasticsearch, writes);
    await retryStaleWrites(deps, writes, written);
    for (const id of written.written) {
      const c = byId.get(id);
      tally(c?.changedBy ?? none, 'changed');
      if (c) settle(c.row, c.next, c.doc?.embedding as StoredEmbedding | undefined);
    }
    for (const failure of written.failed) {
      deps.logger.warn({ run: data.run_id, batch: data.batch_no, id: failure.id, reason: failure.reason }, 'row update rejected');
      tally(none, 'failed');
    }
    result.conflicts += written.conflicts.length;
    pending = written.conflicts;
  }
  if (pending.length > 0) {
    deps.logger.warn({ run: data.run_id, batch: data.batch_no, rows: pending.length }, 'rows kept changing underneath; left as they are');
    tally(none, 'failed', pending.length);
  }
}
