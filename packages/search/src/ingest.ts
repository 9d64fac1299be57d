import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Client } from '@elastic/elasticsearch';
import { FragranceDetail } from '@fragrance/contracts';
import { carriedEmbedding, carryForward, liveRecords, type LiveRecord } from './carry.ts';
import { readEnrichment, saveEnrichment } from './enrichment-store.ts';
import type { StoredEmbedding } from './vectors.ts';
import { createVersionedIndex, currentIndex, pruneVersions, swapAlias } from './indices.ts';
import { toIndexDocument } from './mapping.ts';
import { checkSwap, type SwapGuard } from './safety.ts';
import { buildSuggestIndex, suggestIndexOf } from './suggest.ts';

export interface SkippedRecord {
  /** 1-based line of the NDJSON file (or position in `records`). */
  line: number;
  reason: string;
}

export interface IngestProgress {
  /** Records read so far (indexed, skipped or in flight). */
  read: number;
  indexed: number;
  skipped: number;
  /** Records in the source when known up front (an array, or a counted file). */
  total?: number;
}

export interface IngestOptions {
  client: Client;
  alias: string;
  /** An NDJSON file, one FragranceDetail per line ... */
  file?: string;
  /** ... or records in memory / from a generator ... */
  records?: Iterable<unknown> | AsyncIterable<unknown>;
  /** ... or numbered lines a reader already judged (an import: its rejected lines keep their numbers). */
  lines?: AsyncIterable<SourceLine>;
  /**
   * Refuse to swap (IngestError `ingest_refused`, the live alias untouched) when the new index
   * is much smaller than the live one or too many lines were rejected; see safety.ts.
   */
  guard?: SwapGuard;
  /**
   * Merge each record with the live one it replaces (carry.ts): enrichment results whose inputs
   * did not change carry over (from the live record, or from the durable enrichment store when
   * the live version lacks them), and `updated_at` moves only for records that changed. Live
   * results the store does not hold yet are archived into it (enrichment-store.ts).
   */
  carryForward?: boolean;
  /** Bulk requests in flight at once. */
  concurrency?: number;
  batchSize?: number;
  /** Replicas of the finished index (0 on a single node). */
  replicas?: number;
  /** Older versions kept besides the live one. */
  keepVersions?: number;
  onProgress?: (progress: IngestProgress) => void;
  /** Called between build and swap; tests use it to observe the not-yet-live index. */
  beforeSwap?: (index: string) => Promise<void>;
  /**
   * Called once the alias points at the new index, e.g. to bump the catalogue generation so the
   * catalogue's response cache drops answers of the old index at once. A failure is reported
   * through `onAfterSwapError` (the swap itself stands).
   */
  afterSwap?: (index: string) => Promise<unknown>;
  onAfterSwapError?: (error: unknown) => void;
}

export interface IngestResult {
  index: string;
  indexed: number;
  skipped: SkippedRecord[];
  /** Indices the alias pointed at before (now unaliased). */
  previous: string[];
  /** Old versions deleted after the swap. */
  deleted: string[];
  seconds: number;
}

export class IngestError extends Error {
  readonly code: string = 'ingest_failed';
}

interface Pending {
  line: number;
  id: string;
  record: FragranceDetail;
}

/** A numbered line of the source: a value, or why it could not be read. */
/** One line of a catalogue source, numbered from 1: its parsed value, or why it could not be read. */
export type SourceLine = { line: number; value: unknown } | { line: number; error: string };

/** The records of an NDJSON file, one per non-blank line (the ingest's and the operator importer's reader). */
export async function* ndjsonLines(file: string): AsyncGenerator<SourceLine> {
  const lines = createInterface({ input: createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 }), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    try {
      yield { line, value: JSON.parse(text) as unknown };
    } catch {
      yield { line, error: 'is not valid JSON' };
    }
  }
}

async function* recordLines(records: Iterable<unknown> | AsyncIterable<unknown>): AsyncGenerator<{ line: number; value: unknown }> {
  let line = 0;
  for await (const value of records) {
    line += 1;
    yield { line, value };
  }
}

async function countLines(file: string): Promise<number> {
  let count = 0;
  let last = 10;
  for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) count += 1;
    if (chunk.length > 0) last = chunk[chunk.length - 1] ?? 10;
  }
  return last === 10 ? count : count + 1;
}

function describeIssues(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'record'}: ${issue.message}`)
    .join('; ');
}

const BULK_FILTER = 'errors,items.*.status,items.*.error.type,items.*.error.reason';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One ingest under way: the new index, what has been read and indexed into it, what was skipped. */
interface IngestRun {
  client: Client;
  alias: string;
  index: string;
  /** Merge records with the live ones they replace (see IngestOptions.carryForward). */
  carryForward: boolean | undefined;
  /** The index the alias pointed at before this ingest, read for carryForward. */
  liveIndex: string | undefined;
  /** When this ingest started: the `updated_at` of records that changed (carry.ts). */
  startedAt: string;
  skipped: SkippedRecord[];
  read: number;
  indexed: number;
  progress: () => void;
}

/**
 * Builds a new version of the catalogue behind `alias`: creates an index, bulk-loads it with
 * bounded concurrency, verifies the count, then swaps the alias atomically and prunes old
 * versions. Invalid records are skipped and reported with their line; anything else that
 * fails deletes the new index and leaves the alias as it was.
 */
export async function ingestCatalogue(options: IngestOptions): Promise<IngestResult> {
  const { client, alias, file, records, lines, keepVersions = 1, afterSwap, onAfterSwapError } = options;
  if ([file, records, lines].filter((source) => source !== undefined).length !== 1) {
    throw new IngestError('give exactly one of file, records or lines');
  }
  const started = performance.now();
  const run = await startRun(options);
  const { index, skipped } = run;
  try {
    await loadRecords(run, lines ?? (file !== undefined ? ndjsonLines(file) : recordLines(records ?? [])), options);
    await finishIndex(run, options);
  } catch (error) {
    await dropVersion(client, index);
    throw error;
  }
  const previous = await swapIn(client, alias, index);
  await afterSwap?.(index).catch((error: unknown) => onAfterSwapError?.(error));
  const deleted = await pruneVersions(client, alias, keepVersions);
  skipped.sort((a, b) => a.line - b.line);
  return { index, indexed: run.indexed, skipped, previous, deleted, seconds: Math.round((performance.now() - started) / 10) / 100 };
}

/** Counts the source if it can, reads the live index for carry-forward, then creates the new index. */
async function startRun(options: IngestOptions): Promise<IngestRun> {
  const { client, alias, file, records, onProgress } = options;
  const total = file !== undefined ? await countLines(file) : Array.isArray(records) ? records.length : undefined;
  // Read before the new version exists: the records it replaces (see carry.ts).
  const liveIndex = options.carryForward ? await currentIndex(client, alias) : undefined;
  const startedAt = new Date().toISOString();
  const index = await createVersionedIndex(client, alias);
  const run: IngestRun = {
    client,
    alias,
    index,
    carryForward: options.carryForward,
    liveIndex,
    startedAt,
    skipped: [],
    read: 0,
    indexed: 0,
    progress: () =>
      onProgress?.({ read: run.read, indexed: run.indexed, skipped: run.skipped.length, ...(total !== undefined ? { total } : {}) }),
  };
  return run;
}

/** Reads every line of the source into the new index, `batchSize` records per bulk request, `concurrency` at once. */
async function loadRecords(
  run: IngestRun,
  source: AsyncIterable<SourceLine>,
  { batchSize = 1000, concurrency = 3 }: Pick<IngestOptions, 'batchSize' | 'concurrency'>,
): Promise<void> {
  const seen = new Map<string, number>();
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const launch = (batch: Pending[]) => {
    const task = sendBatch(run, batch).then(
      () => void inFlight.delete(task),
      (error: unknown) => {
        inFlight.delete(task);
        failure ??= error;
      },
    );
    inFlight.add(task);
  };
  let batch: Pending[] = [];
  for await (const entry of source) {
    if (failure) break;
    // The line number, so blank lines count and a progress bar reaches its total.
    run.read = entry.line;
    const judged = judgeLine(entry, seen);
    if ('reason' in judged) {
      run.skipped.push(judged);
      continue;
    }
    batch.push(judged);
    if (batch.length >= batchSize) {
      launch(batch);
      batch = [];
      while (inFlight.size >= concurrency) await Promise.race(inFlight);
    }
  }
  if (batch.length > 0 && !failure) launch(batch);
  await Promise.all(inFlight);
  if (failure) throw failure instanceof Error ? failure : new Error('bulk indexing failed', { cause: failure });
  run.progress();
}

/** A line as a record to index, or why it is skipped: unreadable, invalid, or an id already seen on an earlier line. */
function judgeLine(entry: SourceLine, seen: Map<string, number>): Pending | SkippedRecord {
  if ('error' in entry) return { line: entry.line, reason: entry.error };
  const parsed = FragranceDetail.safeParse(entry.value);
  if (!parsed.success) return { line: entry.line, reason: describeIssues(parsed.error) };
  const first = seen.get(parsed.data.id);
  if (first !== undefined) return { line: entry.line, reason: `duplicate id ${parsed.data.id} (first on line ${first})` };
  seen.set(parsed.data.id, entry.line);
  return { line: entry.line, id: parsed.data.id, record: parsed.data };
}

async function sendBatch(run: IngestRun, pending: Pending[]): Promise<void> {
  await bulkIndex(run, await documentsOf(run, pending));
  run.progress();
}

/** The batch with each record's index document, merged first with the live record and the store when carrying forward. */
async function documentsOf({ client, alias, carryForward: carry, liveIndex, startedAt }: IngestRun, pending: Pending[]) {
  let batch: (Pending & { json: string; embedding?: StoredEmbedding })[] = pending.map((p) => ({ ...p, json: '' }));
  if (carry) {
    const ids = batch.map((p) => p.id);
    const [live, stored] = await Promise.all([
      liveIndex !== undefined ? liveRecords(client, liveIndex, ids) : new Map<string, LiveRecord>(),
      readEnrichment(client, alias, ids),
    ]);
    // Live results the store lacks (made before it existed, or a lost write) go in before that version can go.
    await saveEnrichment(
      client,
      alias,
      [...live].map(([id, { record, embedding }]) => ({ id, record, ...(embedding ? { embedding } : {}) })),
      { mode: 'archive', known: stored },
    );
    batch = batch.map((p) => {
      const previous = live.get(p.id);
      const kept = stored.get(p.id);
      const record = carryForward(p.record, previous?.record, startedAt, kept);
      const embedding = carriedEmbedding(record, previous, kept);
      return { ...p, record, ...(embedding ? { embedding } : {}) };
    });
  }
  for (const p of batch)
    p.json = JSON.stringify(p.embedding ? { ...toIndexDocument(p.record), embedding: p.embedding } : toIndexDocument(p.record));
  return batch;
}

/** Bulk-indexes the documents, retrying those Elasticsearch refused with 429 (with backoff); other refusals are skipped. */
async function bulkIndex(run: IngestRun, batch: (Pending & { json: string })[]): Promise<void> {
  let attempt = 0;
  let todo = batch;
  while (todo.length > 0) {
    const body = todo.map((p) => `{"index":{"_id":${JSON.stringify(p.id)}}}\n${p.json}\n`).join('');
    const response = await run.client.transport.request<{
      errors: boolean;
      items?: Record<string, { status: number; error?: { type: string; reason: string } }>[];
    }>(
      { method: 'POST', path: `/${encodeURIComponent(run.index)}/_bulk`, querystring: { filter_path: BULK_FILTER }, bulkBody: body },
      { requestTimeout: 120_000, maxRetries: 2 },
    );
    if (!response.errors) {
      run.indexed += todo.length;
      break;
    }
    const retry: typeof todo = [];
    todo.forEach((pending, i) => {
      const item = Object.values(response.items?.[i] ?? {})[0];
      if (!item?.error) run.indexed += 1;
      else if (item.status === 429) retry.push(pending);
      else run.skipped.push({ line: pending.line, reason: `rejected by Elasticsearch: ${item.error.type}: ${item.error.reason}` });
    });
    attempt += 1;
    if (retry.length > 0 && attempt > 5) throw new IngestError(`Elasticsearch kept rejecting ${retry.length} records (429)`);
    if (retry.length > 0) await sleep(200 * 2 ** attempt);
    todo = retry;
  }
}

/** Makes the loaded index ready to serve: settings, count check, replicas, the swap guard and its suggestion index. */
async function finishIndex(
  { client, alias, index, indexed, skipped }: IngestRun,
  { replicas = 0, guard, beforeSwap }: Pick<IngestOptions, 'replicas' | 'guard' | 'beforeSwap'>,
): Promise<void> {
  if (indexed === 0) throw new IngestError('no valid record to index; the current catalogue stays live');
  await client.indices.putSettings({
    index,
    settings: { refresh_interval: '1s', number_of_replicas: replicas, translog: { durability: 'request' } },
  });
  await client.indices.refresh({ index });
  const { count } = await client.count({ index });
  if (count !== indexed) throw new IngestError(`count check failed: ${count} documents in ${index}, ${indexed} indexed`);
  if (replicas > 0) await client.cluster.health({ index, wait_for_status: 'green', timeout: '60s' });
  if (guard) await checkSwap(client, alias, { indexed, rejected: skipped.length }, guard);
  // The suggestion index of this version, swapped with it (suggest.ts), as many copies.
  const suggestIndex = (await buildSuggestIndex(client, index, { replicas })).index;
  if (replicas > 0) await client.cluster.health({ index: suggestIndex, wait_for_status: 'green', timeout: '60s' });
  await beforeSwap?.(index);
}

/** Points the alias at the new index; the indices it pointed at before. */
async function swapIn(client: Client, alias: string, index: string): Promise<string[]> {
  try {
    return await swapAlias(client, alias, index);
  } catch (error) {
    // e.g. a concrete index already holds the alias name: the old state stays as it was.
    await dropVersion(client, index);
    throw error;
  }
}

/** Deletes a version that will not go live, with its suggestion index. */
async function dropVersion(client: Client, index: string): Promise<void> {
  await client.indices.delete({ index: [index, suggestIndexOf(index)], ignore_unavailable: true }).catch(() => undefined);
}
