import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client, estypes } from '@elastic/elasticsearch';
import type { SimilarFragrance } from '@fragrance/contracts';
import { currentIndex } from './indices.ts';
import {
  buildSimilarQuery,
  rankedAlternatives,
  SIMILAR_SOURCE_FIELDS,
  storedFragrances,
  type SimilarFilters,
  type SimilarSource,
  type StoredAlternative,
} from './similar.ts';
import { ensureStoreIndex, KEPT_NOT_INDEXED } from './store-index.ts';
import { readRarity, type TermRarity } from './term-rarity.ts';

/**
 * Materialised alternatives (docs/search.md, "Similar"): each record's unfiltered answer for
 * `limit` ≤ STORED_ALTERNATIVES, computed ahead of time by the live algorithm and kept in an index
 * of its own beside the catalogue's versions, one document per record id. A list holds the
 * concrete index and the generation it was computed against, and what the answer needs of its
 * alternatives (summaries, notes, accords), so one multi-get answers. Any in-place write to an
 * index (the worker's batches) gives that index a new generation, so a list is used only while
 * nothing in its index changed since it was computed, and the request is answered live otherwise.
 */
export const similarStoreOf = (alias: string) => `${alias}-similar`;

/** Alternatives stored per record: one list serves every unfiltered limit up to it (the pool is the same). */
export const STORED_ALTERNATIVES = 10;

/** The document holding each concrete index's generation and the generation last computed in full. */
const GENERATION_ID = 'generation';

/**
 * What a list and the complete mark hold of a generation: the token and the lists' format, so
 * lists of another format are stale whatever their token (and the next pass computes them).
 */
const LIST_FORMAT = 2;
const stamp = (token: string | undefined) => (token === undefined ? undefined : `${LIST_FORMAT}:${token}`);

/** What a list keeps of its own record: what the reasons read of the source. */
type StoredRecord = Required<Pick<SimilarSource, 'notes' | 'accords' | 'main_accords'>>;

interface StoredList {
  index: string;
  generation: string;
  computed_at: string;
  record: StoredRecord;
  alternatives: StoredAlternative[];
}

interface Generations {
  /** Concrete index → its current generation (a random token). */
  generations?: Record<string, string>;
  /** Concrete index → the generation every record's list was last computed against. */
  complete?: Record<string, string>;
}

const STORE_MAPPING: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  properties: {
    index: { type: 'keyword' },
    generation: { type: 'keyword' },
    computed_at: { type: 'date' },
    record: KEPT_NOT_INDEXED,
    alternatives: KEPT_NOT_INDEXED,
    generations: KEPT_NOT_INDEXED,
    complete: KEPT_NOT_INDEXED,
  },
};

/** Creates the store index if it does not exist (once per process and alias). */
export function ensureSimilarStore(client: Client, alias: string): Promise<void> {
  return ensureStoreIndex(client, similarStoreOf(alias), {
    mappings: STORE_MAPPING,
    settings: { number_of_shards: 1, number_of_replicas: 0 },
  });
}

/**
 * Gives each of `indices` a new generation: every list computed against them is stale from now
 * on. Call it after the writes are searchable (refreshed), so a list computed under the new
 * generation has seen them.
 */
export async function bumpSimilarGeneration(client: Client, alias: string, indices: readonly string[]): Promise<void> {
  if (indices.length === 0) return;
  await ensureSimilarStore(client, alias);
  await client.update({
    index: similarStoreOf(alias),
    id: GENERATION_ID,
    doc: { generations: Object.fromEntries(indices.map((index) => [index, randomUUID()])) },
    doc_as_upsert: true,
    retry_on_conflict: 5,
    refresh: false,
  });
}

async function readGenerations(client: Client, alias: string): Promise<Generations> {
  const doc = await client.get<Generations>({ index: similarStoreOf(alias), id: GENERATION_ID }, { ignore: [404] });
  return (doc.found ? doc._source : undefined) ?? {};
}

/** Whether there are no filters: only then is a stored list the answer. */
export function unfiltered(filters: SimilarFilters): boolean {
  return Object.entries(filters).every(
    ([key, value]) => value === undefined || (value === false && (key === 'other_brands' || key === 'exclude_flankers')),
  );
}

type Item<T> = estypes.MgetResponseItem<T>;
const foundSource = <T>(item: Item<T> | undefined): T | undefined =>
  item && 'found' in item && item.found && item._source ? item._source : undefined;

/**
 * The stored answer for `id` (the first `limit` of its list), when its list is current: one
 * multi-get of whether the record exists (and in which index), its list and the generations.
 * `{ answer: undefined }`: no such record. `undefined`: answer live (no current list, the rarity
 * table not loaded yet, the store missing).
 */
export async function storedSimilar(
  client: Client,
  alias: string,
  rarities: TermRarity,
  id: string,
  limit: number,
): Promise<{ answer: SimilarFragrance[] | undefined } | undefined> {
  const store = similarStoreOf(alias);
  const { docs } = await client.mget({
    docs: [
      { _index: alias, _id: id, _source: false },
      { _index: store, _id: id },
      { _index: store, _id: GENERATION_ID },
    ],
  });
  const [recordItem, listItem, generationsItem] = docs;
  if (!recordItem || 'error' in recordItem) return undefined;
  if (!recordItem.found) return { answer: undefined };
  const list = foundSource(listItem) as StoredList | undefined;
  const generations = foundSource(generationsItem) as Generations | undefined;
  const index = recordItem._index;
  if (list?.index !== index || list.generation !== stamp(generations?.generations?.[index])) return undefined;
  const rarity = rarities.tableOf(index);
  if (!rarity) return undefined;
  return { answer: storedFragrances(list.alternatives.slice(0, limit), list.record, rarity) };
}

/** What a list keeps of its record, from the record as the pass reads it. */
const storedRecord = (source: SimilarSource): StoredRecord => ({
  notes: source.notes,
  accords: source.accords,
  main_accords: source.main_accords,
});

/** Records read per page while materialising (their sources with vectors, one bulk of lists). */
const PAGE = 200;

export interface MaterialiseOptions {
  client: Client;
  alias: string;
  /** At most this many records computed a second (one Elasticsearch request in flight at any time); 0: no bound. */
  ratePerSecond: number;
  /** Stops between records (the pass ends `aborted`; the lists computed so far are stored). */
  signal?: AbortSignal;
  /** Compute every list again, even those current and when the live index's current generation was computed in full. */
  force?: boolean;
  /** Called after each page's lists are stored (awaited); `done`: records covered so far, computed or kept. */
  onProgress?: (progress: { index: string; done: number }) => unknown;
}

export interface MaterialiseResult {
  /** The live concrete index (undefined: the alias points nowhere). */
  index: string | undefined;
  /** `complete`: every record's list computed; `current`: nothing to do; `changed`: the index was written meanwhile (the lists so far are stale); `aborted`. */
  outcome: 'complete' | 'current' | 'changed' | 'aborted' | 'no-index';
  /** Lists computed (and stored) by this pass. */
  records: number;
  /** Records whose list was already current (an interrupted pass's work under the same generation), kept as they are; absent when no record was read. */
  kept?: number;
}

type Pass = { index: string; generation: string } | MaterialiseResult;

/** The live index and the generation a pass computes against, or the pass's result when there is nothing to compute. */
async function passGeneration(client: Client, alias: string, force: boolean | undefined): Promise<Pass> {
  const index = await currentIndex(client, alias);
  if (!index) return { index, outcome: 'no-index', records: 0 };
  await ensureSimilarStore(client, alias);
  let generations = await readGenerations(client, alias);
  let generation = stamp(generations.generations?.[index]);
  if (generation !== undefined && generations.complete?.[index] === generation && !force) return { index, outcome: 'current', records: 0 };
  if (generation === undefined) {
    // The index's first generation. A worker's bump racing this one is as good: either way the
    // pass reads the index only after it.
    await bumpSimilarGeneration(client, alias, [index]);
    generations = await readGenerations(client, alias);
    generation = stamp(generations.generations?.[index]);
    if (generation === undefined) throw new Error(`no similar generation for ${index}`);
  }
  return { index, generation };
}

/**
 * Computes every record's unfiltered list for the live index with the live algorithm
 * (buildSimilarQuery, then the ranking of similarFragrances), one record at a time, against the
 * generation the index has when the pass starts. A record whose stored list is already stamped
 * with that generation is kept (unless `force`): a pass cut short (restart, lost lease) is
 * resumed where it stopped rather than started over. A write to the index meanwhile ends the
 * pass (`changed`): whoever wrote asks for another.
 */
export async function materialiseSimilar(options: MaterialiseOptions): Promise<MaterialiseResult> {
  const { client, alias, signal } = options;
  const pass = await passGeneration(client, alias, options.force);
  if (!('generation' in pass)) return pass;
  const { index, generation } = pass;
  const rarity = await readRarity(client, index);
  let records = 0;
  let kept = 0;
  let page = await client.search<SimilarSource>({
    index,
    scroll: '2m',
    size: PAGE,
    sort: ['_doc'],
    _source: { includes: SIMILAR_SOURCE_FIELDS },
  });
  try {
    while (page.hits.hits.length > 0 && !signal?.aborted) {
      const started = performance.now();
      const current = options.force ? new Set<string>() : await currentLists(client, alias, page.hits.hits, index, generation);
      const computed = await computePage({ client, alias, index, generation, rarity, current, signal, hits: page.hits.hits });
      records += computed;
      kept += current.size;
      if (signal?.aborted) return { index, outcome: 'aborted', records, kept };
      await options.onProgress?.({ index, done: records + kept });
      if (stamp((await readGenerations(client, alias)).generations?.[index]) !== generation)
        return { index, outcome: 'changed', records, kept };
      // The bound is on computations: kept records cost only their share of one multi-get.
      const least = options.ratePerSecond > 0 ? (computed * 1000) / options.ratePerSecond : 0;
      const wait = least - (performance.now() - started);
      if (wait > 0) await sleep(wait, undefined, signal ? { signal } : {}).catch(() => undefined);
      if (!page._scroll_id) break;
      page = await client.scroll<SimilarSource>({ scroll_id: page._scroll_id, scroll: '2m' });
    }
  } finally {
    if (page._scroll_id) await client.clearScroll({ scroll_id: page._scroll_id }).catch(() => undefined);
  }
  if (signal?.aborted) return { index, outcome: 'aborted', records, kept };
  await client.indices.refresh({ index: similarStoreOf(alias) });
  await client.update({
    index: similarStoreOf(alias),
    id: GENERATION_ID,
    doc: { complete: { [index]: generation } },
    retry_on_conflict: 5,
  });
  return { index, outcome: 'complete', records, kept };
}

type Hit = estypes.SearchHit<SimilarSource>;

/**
 * The ids among `hits` whose stored list is current (same concrete index, same generation): one
 * multi-get per page reading only those two fields. Real-time, so lists written by a pass that
 * was cut short are seen without a refresh.
 */
async function currentLists(client: Client, alias: string, hits: readonly Hit[], index: string, generation: string): Promise<Set<string>> {
  const ids = hits.flatMap((hit) => (hit._id ? [hit._id] : []));
  if (ids.length === 0) return new Set();
  const { docs } = await client.mget<Pick<StoredList, 'index' | 'generation'>>({
    index: similarStoreOf(alias),
    ids,
    _source: ['index', 'generation'],
  });
  const current = new Set<string>();
  for (const doc of docs) {
    const list = foundSource(doc);
    if (list?.index === index && list.generation === generation) current.add(doc._id);
  }
  return current;
}

/**
 * Computes and stores the lists of one page's records not in `current`; returns how many. When
 * `signal` aborts between two records, the lists computed so far are still stored (one bulk):
 * they are valid for `generation`, and the next pass then keeps them.
 */
async function computePage(page: {
  client: Client;
  alias: string;
  index: string;
  generation: string;
  rarity: Awaited<ReturnType<typeof readRarity>>;
  current: ReadonlySet<string>;
  signal: AbortSignal | undefined;
  hits: readonly Hit[];
}): Promise<number> {
  const { client, alias, index, generation } = page;
  const operations: unknown[] = [];
  for (const hit of page.hits) {
    if (page.signal?.aborted) break;
    if (!hit._source || !hit._id || page.current.has(hit._id)) continue;
    const alternatives = await computeList(client, index, hit._id, hit._source, page.rarity);
    const list: StoredList = {
      index,
      generation,
      computed_at: new Date().toISOString(),
      record: storedRecord(hit._source),
      alternatives,
    };
    operations.push({ index: { _index: similarStoreOf(alias), _id: hit._id } }, list);
  }
  if (operations.length === 0) return 0;
  const bulk = await client.bulk({ operations, refresh: false });
  if (bulk.errors) throw new Error(`writing similar lists: ${JSON.stringify(bulk.items.find((i) => i.index?.error)?.index?.error)}`);
  return operations.length / 2;
}

/** One record's list: the live request for `STORED_ALTERNATIVES`, unfiltered, on the concrete index. */
async function computeList(
  client: Client,
  index: string,
  id: string,
  source: SimilarSource,
  rarity: Awaited<ReturnType<typeof readRarity>>,
): Promise<StoredAlternative[]> {
  const response = await client.search<never>(
    { index, ...buildSimilarQuery(id, source, STORED_ALTERNATIVES) },
    { querystring: { filter_path: 'hits.hits.fields,hits.hits.matched_queries' } },
  );
  return rankedAlternatives(response.hits?.hits ?? [], source, rarity, STORED_ALTERNATIVES);
}
