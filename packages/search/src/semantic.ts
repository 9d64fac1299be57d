import type { Client, estypes } from '@elastic/elasticsearch';
import { LRUCache } from 'lru-cache';
import {
  DEFAULT_LIMIT,
  DEFAULT_SEARCH_MODE,
  SEMANTIC_WINDOW,
  type FragranceDetail,
  type SearchHit,
  type SearchMode,
  type SearchQuery,
  type SearchResponse,
} from '@fragrance/contracts';
import { facetsOf, type FacetAggregations } from './facets.ts';
import { InvalidCursorError, queryFingerprint, type CursorCodec } from './cursor.ts';
import { queryWords } from './highlight.ts';
import {
  attributeQuery,
  buildSearchQuery,
  FACET_AGGREGATIONS,
  matchedQueries,
  NAME_OR_BRAND_SIGNALS,
  recallQuery,
  searchFilters,
} from './query.ts';
import { pageFetch, pageHit } from './summary.ts';
import { EMBEDDING_OBJECT, EMBEDDING_VECTOR_FIELD } from './vectors.ts';

/** What semantic search needs of the embedding model: the query's vector, and which model made it. */
export interface QueryEmbedder {
  readonly modelKey: string;
  embed: (texts: readonly string[]) => Promise<Float32Array[]>;
}

/** Reciprocal rank fusion's k: the usual 60, so rank 1 and rank 5 differ little and both lists count. */
export const RRF_K = 60;
/** HNSW candidates per shard: twice the window (recall ~0.99 on our catalogue, a few ms). */
const NUM_CANDIDATES = SEMANTIC_WINDOW * 2;
/** Share of records whose vector must be current before semantic search is used (`npm start` fills them after start). */
export const VECTORS_READY_SHARE = 0.95;
const READY_TTL_MS = 15_000;
/**
 * Least cosine similarity of a kNN hit to the query (all-MiniLM-L6-v2 on our record texts):
 * descriptions find their records at 0.4–0.8, while gibberish ("xqzv blorp", "qwerty uiop")
 * tops out at 0.14–0.25 against every record, so such a query gets no neighbours at all.
 */
export const MIN_SIMILARITY = 0.3;
/** Query vectors kept (about 1.6 KB each): repeated texts are embedded once. */
const QUERY_VECTOR_CACHE = 2_000;

/**
 * The mode a search runs in: semantic or hybrid only for a text query ranked by relevance, with
 * an embedder; the default mode also falls back to lexical past the semantic window (an explicit
 * mode there is refused by the schema).
 */
export function plannedMode(params: SearchQuery, key: string, hasEmbedder: boolean): SearchMode {
  const mode = params.search_mode ?? DEFAULT_SEARCH_MODE;
  if (mode === 'lexical' || key === '' || !hasEmbedder) return 'lexical';
  if (params.sort !== undefined && params.sort !== 'relevance') return 'lexical';
  if ((params.offset ?? 0) + (params.limit ?? DEFAULT_LIMIT) > SEMANTIC_WINDOW) return 'lexical';
  return mode;
}

/**
 * Reciprocal rank fusion: each id scores Σ 1 / (k + rank) over the lists it is in (rank from 1);
 * ties keep the order of first appearance (the lexical list is passed first).
 */
export function fuseByRank(lists: readonly (readonly string[])[], k = RRF_K): string[] {
  const scores = new Map<string, number>();
  for (const list of lists) list.forEach((id, i) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + i + 1)));
  return [...scores.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id);
}

type Source = FragranceDetail;

/** One part of an msearch answer; a failed part throws. */
function succeeded<T>(response: estypes.MsearchResponseItem<T>): estypes.MsearchMultiSearchItem<T> {
  if ('error' in response) throw new Error(`hybrid search part failed: ${response.error.type}: ${response.error.reason ?? ''}`);
  return response;
}

/** One hit of a ranked leg: the record's id, the index it was found in, the named clauses it matched. */
interface LegHit {
  id: string;
  index: string;
  matched: readonly string[];
}

/**
 * A ranked leg reads no stored fields: the record's id comes from its doc values. Loading `_id`
 * means decompressing the stored-fields block that also holds each record's `_source` with its
 * 384-number vector; for the 100 hits of a leg that was a third of the kNN and attribute legs'
 * time (10.8 → 7.0 ms each, docs/search.md).
 */
const IDS_FROM_DOC_VALUES = {
  stored_fields: ['_none_'],
  docvalue_fields: ['id'],
  track_total_hits: false,
} satisfies estypes.MsearchMultisearchBody;

/** The hits of one leg of an msearch (none when filter_path left its `hits` out: nothing found); a failed leg throws. */
function hitsOf(response: estypes.MsearchResponseItem<never>): LegHit[] {
  return (succeeded(response).hits?.hits ?? []).map((hit) => {
    const id = (hit.fields as { id?: unknown[] } | undefined)?.id?.[0];
    if (typeof id !== 'string') throw new Error('hybrid search leg: a hit without its id doc value');
    return { id, index: hit._index, matched: matchedQueries(hit) };
  });
}

export interface SemanticSearchDeps {
  client: Client;
  alias: string;
  cursors: CursorCodec;
  embedder: QueryEmbedder;
}

/** One semantic or hybrid search under way: what it asks for, and how its page reads and shows hits. */
interface OneSearch extends SemanticSearchDeps {
  params: SearchQuery;
  /** The query's folded words, as typed: what the kNN and attribute legs read. */
  key: string;
  /** The relaxed form of the query (relax.ts) that the lexical leg matches instead, if any. */
  relaxedKey: string | undefined;
  mode: 'semantic' | 'hybrid';
  limit: number;
  offset: number;
  /** The query's vector (embedded on first use, then cached). */
  queryVector: () => Promise<number[]>;
  pageRead: ReturnType<typeof pageFetch>;
  shownHit: (hit: estypes.SearchHit<Source>) => SearchHit;
  aggs: ReturnType<typeof aggsOf>;
}

/**
 * Semantic and hybrid search (issue 17). `run` answers a search in the planned mode, or returns
 * undefined when it must run lexically instead: vectors of this model not computed yet for most
 * records (the worker fills them after `npm start`), or a default-mode cursor from a lexical page.
 */
export function createSemanticSearch(deps: SemanticSearchDeps) {
  const vectorsReady = vectorsReadyCheck(deps);
  const queryVectors = new LRUCache<string, number[]>({ max: QUERY_VECTOR_CACHE });

  /**
   * `relaxedKey`: the relaxed form of the query (relax.ts) that the lexical leg matches instead;
   * its hits are then fused like the other legs' instead of leading the page, as they matched only
   * part of what was asked. The kNN and attribute legs always read the query as typed.
   */
  async function run(
    params: SearchQuery,
    key: string,
    mode: 'semantic' | 'hybrid',
    { relaxedKey }: { relaxedKey?: string | undefined } = {},
  ): Promise<SearchResponse | undefined> {
    if (!(await vectorsReady())) return undefined;
    const offset = startOffset(params, deps.cursors);
    if (offset === undefined) return undefined;
    const words = params.highlight ? queryWords(key) : undefined;
    const search: OneSearch = {
      ...deps,
      params,
      key,
      relaxedKey,
      mode,
      limit: params.limit ?? DEFAULT_LIMIT,
      offset,
      queryVector: () => queryVectorOf(key, deps.embedder, queryVectors),
      pageRead: pageFetch(words !== undefined),
      shownHit: (hit) => pageHit(hit, params.highlight, words),
      aggs: aggsOf(params),
    };
    return mode === 'semantic' ? semanticPage(search) : hybridPage(search);
  }

  return { run, vectorsReady };
}

/** Whether most records carry a vector of this model; cached for a few seconds. */
function vectorsReadyCheck({ client, alias, embedder }: SemanticSearchDeps): () => Promise<boolean> {
  let ready: { at: number; value: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (ready && now - ready.at < READY_TTL_MS) return ready.value;
    const value = Promise.all([
      client.count({ index: alias }),
      client.count({ index: alias, query: { term: { [`${EMBEDDING_OBJECT}.model`]: embedder.modelKey } } }),
    ]).then(
      ([all, embedded]) => all.count > 0 && embedded.count >= all.count * VECTORS_READY_SHARE,
      () => false,
    );
    ready = { at: now, value };
    return value;
  };
}

/** Where the page starts: its cursor's position, else `offset`; undefined for a cursor of a lexical page. */
function startOffset(params: SearchQuery, cursors: CursorCodec): number | undefined {
  if (params.cursor === undefined) return params.offset ?? 0;
  try {
    return cursors.decode(params.cursor, cursorFingerprint(params), []).position;
  } catch (error) {
    // A default-mode cursor issued while the search ran lexically: keep paging lexically.
    if (error instanceof InvalidCursorError && params.search_mode === undefined) return undefined;
    throw error;
  }
}

/** The vector of the query's words, embedded once per text while it stays in `cache`. */
async function queryVectorOf(key: string, embedder: QueryEmbedder, cache: LRUCache<string, number[]>): Promise<number[]> {
  const cached = cache.get(key);
  if (cached) return cached;
  const [vector] = await embedder.embed([key]);
  if (!vector) throw new Error('the embedder returned no vector');
  const values = Array.from(vector);
  cache.set(key, values);
  return values;
}

/**
 * The k records nearest the query vector among those the filters allow, as a `knn` query (the
 * top-level `knn` section runs an extra search phase: about 15 % more Elasticsearch CPU).
 */
function knnQuery(params: SearchQuery, vector: number[], k: number, modelKey: string): estypes.KnnQuery {
  const { filter, mustNot } = searchFilters(params);
  return {
    field: EMBEDDING_VECTOR_FIELD,
    query_vector: vector,
    k,
    num_candidates: Math.max(NUM_CANDIDATES, k),
    similarity: MIN_SIMILARITY,
    // Every filter inside the kNN search: the k nearest are k records that satisfy them.
    filter: [{ bool: { filter: [...filter, { term: { [`${EMBEDDING_OBJECT}.model`]: modelKey } }], must_not: mustNot } }],
  };
}

function aggsOf(params: SearchQuery) {
  return params.facets?.length ? Object.fromEntries(params.facets.map((facet) => [facet, FACET_AGGREGATIONS[facet]])) : undefined;
}

/** Semantic: one page of the kNN window, with its count and facets. */
async function semanticPage(search: OneSearch): Promise<SearchResponse> {
  const { client, alias, params, limit, offset, aggs } = search;
  const response = await client.search<Source, FacetAggregations>(
    {
      index: alias,
      query: { knn: knnQuery(params, await search.queryVector(), SEMANTIC_WINDOW, search.embedder.modelKey) },
      size: limit,
      from: offset,
      track_total_hits: true,
      ...search.pageRead,
      ...(aggs ? { aggs } : {}),
    },
    { querystring: { filter_path: 'hits.total.value,hits.hits._source,hits.hits.fields,aggregations' } },
  );
  const shown = (response.hits?.hits ?? []).map(search.shownHit);
  const total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
  return page(search, shown, total, response.aggregations, total);
}

/** The ids each ranked leg of a hybrid search found, best first. */
interface RankedLegs {
  lexHits: LegHit[];
  describedHits: LegHit[];
  nearHits: LegHit[];
  attributes: ReturnType<typeof attributeQuery>;
}

/**
 * Hybrid, in two steps. First the three ranked legs, ids only: the lexical top window, the
 * attribute leg's (a query naming seasons or occasions) and the kNN top window. Then, side by
 * side, the sources of the one page shown and the count (`total`, facets) of the union: every
 * lexical or attribute match, plus the kNN window by id.
 */
async function hybridPage(search: OneSearch): Promise<SearchResponse> {
  const legs = await rankedLegs(search);
  const rankedIds = fusedRanking(legs, search.relaxedKey !== undefined);
  // The index the legs searched: the page and the count read it even if the alias moved
  // meanwhile (an id gone from it since is left out of the page).
  const index = [...legs.lexHits, ...legs.nearHits, ...legs.describedHits][0]?.index ?? search.alias;
  const countSearch = unionCount(search, legs);
  const pageIds = rankedIds.slice(search.offset, search.offset + search.limit);
  const { counted, sources } = await readCountAndPage(search, index, countSearch, pageIds);
  const byId = new Map((sources?.hits?.hits ?? []).map(search.shownHit).map((hit) => [hit.id, hit]));
  const shown = pageIds.flatMap((id) => byId.get(id) ?? []);
  const total = Math.max((counted?.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0, rankedIds.length);
  return page(search, shown, total, counted?.aggregations as FacetAggregations | undefined, rankedIds.length);
}

/** Runs the lexical, attribute and kNN legs of a hybrid search, ids only. */
async function rankedLegs(search: OneSearch): Promise<RankedLegs> {
  const { client, alias, params, key } = search;
  const lexical = buildSearchQuery(
    { ...params, limit: SEMANTIC_WINDOW, offset: undefined, cursor: undefined, facets: undefined, sort: undefined },
    search.cursors,
    search.relaxedKey ?? key,
  ).body;
  const attributes = attributeQuery(key, params);
  // Legs return ids only: the fused list needs no sources, and reading 100 per leg cost
  // Elasticsearch more than the page's own read below.
  // `status` keeps every response in the array: filter_path drops a response left empty (a leg
  // without hits), which shifted the legs after it.
  const legPath =
    'responses.status,responses.hits.hits.fields.id,responses.hits.hits._index,responses.hits.hits.matched_queries,responses.error';
  // The text legs need no vector: they start while the query is embedded (about 2 ms of the
  // model), and the kNN leg follows as soon as the vector exists.
  const textLegs = client.msearch<never>(
    {
      index: alias,
      searches: [
        {},
        { query: lexical.query, sort: lexical.sort, size: SEMANTIC_WINDOW, ...IDS_FROM_DOC_VALUES },
        ...(attributes ? [{}, { query: attributes.ranked, size: SEMANTIC_WINDOW, ...IDS_FROM_DOC_VALUES }] : []),
      ],
    },
    { querystring: { filter_path: legPath } },
  );
  const nearLeg = search.queryVector().then((vector) =>
    client.msearch<never>(
      {
        index: alias,
        searches: [
          {},
          {
            query: { knn: knnQuery(params, vector, SEMANTIC_WINDOW, search.embedder.modelKey) },
            size: SEMANTIC_WINDOW,
            ...IDS_FROM_DOC_VALUES,
          },
        ],
      },
      { querystring: { filter_path: legPath } },
    ),
  );
  const [text, nearest] = await Promise.all([textLegs, nearLeg]);
  const [lex, described] = text.responses.map(hitsOf);
  const near = nearest.responses.map(hitsOf)[0];
  return { lexHits: lex ?? [], describedHits: described ?? [], nearHits: near ?? [], attributes };
}

/** The legs' ids in one ranking: known items pinned first, then the rest fused by rank. */
function fusedRanking({ lexHits, describedHits, nearHits }: RankedLegs, relaxed: boolean): string[] {
  // Known items first: lexical hits that matched the name or brand keep their lexical order.
  const signalled = (hit: LegHit) => NAME_OR_BRAND_SIGNALS.some((signal) => hit.matched.includes(signal));
  // The lexical best hit always stays first too: every query word matched it (a misspelt name
  // that only the fuzzy recall clause caught is still the known item).
  const pinned = relaxed ? [] : lexHits.filter((hit, i) => i === 0 || signalled(hit)).map((h) => h.id);
  const pinnedSet = new Set(pinned);
  const fused = fuseByRank([lexHits, describedHits, nearHits].map((hits) => hits.map((h) => h.id))).filter((id) => !pinnedSet.has(id));
  return [...pinned, ...fused];
}

/**
 * The search counting the union (`total`, facets), in filter context (a count needs no scores);
 * undefined when every leg is complete and no facets are asked for: the union is then the fused
 * list itself.
 *
 * A leg that found fewer than its window found all it matches, so its part of the union is its
 * ids; only a leg cut at the window is counted by its query: the lexical recall clause under the
 * filters (the name and brand clauses only score), the attribute matches. Rebuilding a
 * description's fuzzy recall clause here cost as much as the rest of the count (6.0 → 3.0 ms when
 * the lexical leg found nothing). The kNN window always joins by id: those records satisfy the
 * filters already.
 */
function unionCount(
  { params, key, relaxedKey, aggs }: OneSearch,
  { lexHits, describedHits, nearHits, attributes }: RankedLegs,
): estypes.MsearchMultisearchBody | undefined {
  const lexicalComplete = lexHits.length < SEMANTIC_WINDOW;
  const attributesComplete = !attributes || describedHits.length < SEMANTIC_WINDOW;
  if (lexicalComplete && attributesComplete && aggs === undefined) return undefined;
  const knownIds = [...(lexicalComplete ? lexHits : []), ...(attributesComplete ? describedHits : []), ...nearHits].map((h) => h.id);
  const union: estypes.QueryDslQueryContainer[] = [];
  if (!lexicalComplete) {
    const { filter, mustNot } = searchFilters(params);
    union.push({ bool: { must: [recallQuery(relaxedKey ?? key)], filter, must_not: mustNot } });
  }
  if (!attributesComplete) union.push(attributes.matches);
  if (knownIds.length > 0) union.push({ ids: { values: [...new Set(knownIds)] } });
  return {
    query: union.length > 0 ? { constant_score: { filter: { bool: { should: union, minimum_should_match: 1 } } } } : { match_none: {} },
    size: 0,
    track_total_hits: true,
    ...(aggs ? { aggs } : {}),
  };
}

/** Reads the union's count and the page's records side by side, in the index the legs searched. */
async function readCountAndPage(
  { client, pageRead }: OneSearch,
  index: string,
  countSearch: estypes.MsearchMultisearchBody | undefined,
  pageIds: string[],
): Promise<{ counted: estypes.MsearchMultiSearchItem<Source> | undefined; sources: estypes.MsearchMultiSearchItem<Source> | undefined }> {
  const countSearches = countSearch ? [{}, countSearch] : [];
  const pageSearch =
    pageIds.length > 0 ? [{}, { query: { ids: { values: pageIds } }, size: pageIds.length, track_total_hits: false, ...pageRead }] : [];
  const second =
    countSearches.length + pageSearch.length > 0
      ? await client.msearch<Source, FacetAggregations>(
          { index, searches: [...countSearches, ...pageSearch] },
          {
            querystring: {
              filter_path:
                'responses.status,responses.hits.total.value,responses.hits.hits._source,responses.hits.hits.fields,responses.aggregations,responses.error',
            },
          },
        )
      : undefined;
  const parts = (second?.responses ?? []).map(succeeded);
  return { counted: countSearch ? parts[0] : undefined, sources: parts[countSearch ? 1 : 0] };
}

function page(
  { params, cursors, limit, offset, mode }: OneSearch,
  data: SearchHit[],
  total: number,
  aggregations: FacetAggregations | undefined,
  reachableIds: number,
): SearchResponse {
  // How far a cursor may page: semantic's kNN window, hybrid's fused lists up to two windows.
  const reachable = Math.min(reachableIds, SEMANTIC_WINDOW * (mode === 'hybrid' ? 2 : 1));
  const nextPosition = offset + data.length;
  const next_cursor =
    data.length === limit && nextPosition < reachable
      ? cursors.encode({ after: [], position: nextPosition }, cursorFingerprint(params))
      : null;
  const facets = facetsOf(aggregations);
  return { data, total, limit, offset, next_cursor, ...(facets ? { facets } : {}), search_mode: mode };
}

/** Cursors of semantic and hybrid pages are bound to the mode too, so one never continues another mode's list. */
function cursorFingerprint(params: SearchQuery): string {
  return queryFingerprint({ ...params, search_mode: plannedMode(params, 'x', true) });
}
