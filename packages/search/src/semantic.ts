import type { Client, estypes } from '@elastic/elasticsearch';
import {
  DEFAULT_LIMIT,
  DEFAULT_SEARCH_MODE,
  SEMANTIC_WINDOW,
  type FragranceDetail,
  type FragranceSummary,
  type SearchHit,
  type SearchMode,
  type SearchQuery,
  type SearchResponse,
} from '@fragrance/contracts';
import { facetsOf, type FacetAggregations } from './facets.ts';
import { InvalidCursorError, queryFingerprint, type CursorCodec } from './cursor.ts';
import { HIGHLIGHT_SOURCE_FIELDS, highlightRecord, queryWords } from './highlight.ts';
import { SUMMARY_FIELDS } from './mapping.ts';
import { attributeQuery, BRAND_SIGNAL, buildSearchQuery, FACET_AGGREGATIONS, NAME_SIGNAL, recallQuery, searchFilters } from './query.ts';
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

export interface SemanticSearchDeps {
  client: Client;
  alias: string;
  cursors: CursorCodec;
  embedder: QueryEmbedder;
}

/**
 * Semantic and hybrid search (issue 17). `run` answers a search in the planned mode, or returns
 * undefined when it must run lexically instead: vectors of this model not computed yet for most
 * records (the worker fills them after `npm start`), or a default-mode cursor from a lexical page.
 */
export function createSemanticSearch({ client, alias, cursors, embedder }: SemanticSearchDeps) {
  let ready: { at: number; value: Promise<boolean> } | undefined;

  /** Whether most records carry a vector of this model; cached for a few seconds. */
  function vectorsReady(): Promise<boolean> {
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
  }

  function knnSection(params: SearchQuery, vector: number[], k: number): estypes.KnnSearch {
    const { filter, mustNot } = searchFilters(params);
    return {
      field: EMBEDDING_VECTOR_FIELD,
      query_vector: vector,
      k,
      num_candidates: Math.max(NUM_CANDIDATES, k),
      // Every filter inside the kNN search: the k nearest are k records that satisfy them.
      filter: { bool: { filter: [...filter, { term: { [`${EMBEDDING_OBJECT}.model`]: embedder.modelKey } }], must_not: mustNot } },
    };
  }

  const aggsOf = (params: SearchQuery) =>
    params.facets?.length ? Object.fromEntries(params.facets.map((facet) => [facet, FACET_AGGREGATIONS[facet]])) : undefined;

  async function run(params: SearchQuery, key: string, mode: 'semantic' | 'hybrid'): Promise<SearchResponse | undefined> {
    if (!(await vectorsReady())) return undefined;
    const limit = params.limit ?? DEFAULT_LIMIT;
    let offset = params.offset ?? 0;
    if (params.cursor !== undefined) {
      try {
        offset = cursors.decode(params.cursor, cursorFingerprint(params), []).position;
      } catch (error) {
        // A default-mode cursor issued while the search ran lexically: keep paging lexically.
        if (error instanceof InvalidCursorError && params.search_mode === undefined) return undefined;
        throw error;
      }
    }
    const [vector] = await embedder.embed([key]);
    if (!vector) throw new Error('the embedder returned no vector');
    const queryVector = Array.from(vector);
    const includes = params.highlight ? [...SUMMARY_FIELDS, ...HIGHLIGHT_SOURCE_FIELDS] : [...SUMMARY_FIELDS];
    const aggs = aggsOf(params);

    let ordered: Source[];
    let total: number;
    let aggregations: FacetAggregations | undefined;
    if (mode === 'semantic') {
      const response = await client.search<Source, FacetAggregations>(
        {
          index: alias,
          knn: knnSection(params, queryVector, SEMANTIC_WINDOW),
          size: limit,
          from: offset,
          track_total_hits: true,
          _source: { includes },
          ...(aggs ? { aggs } : {}),
        },
        { querystring: { filter_path: 'hits.total.value,hits.hits._source,aggregations' } },
      );
      ordered = (response.hits?.hits ?? []).map((h) => h._source!);
      total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
      aggregations = response.aggregations;
      return page(params, key, ordered, total, aggregations, { limit, offset, sliced: true, mode });
    }

    // Hybrid: lexical top window, the attribute leg's top window (a query naming seasons or
    // occasions), kNN top window, and (for total and facets) their union, in one round trip.
    const lexical = buildSearchQuery(
      { ...params, limit: SEMANTIC_WINDOW, offset: undefined, cursor: undefined, facets: undefined, sort: undefined },
      cursors,
    ).body;
    const attributes = attributeQuery(key, params);
    const knn = knnSection(params, queryVector, SEMANTIC_WINDOW);
    // Counted in filter context: the count needs no scores (the legs' scoring is the costly part).
    // The lexical matches are its recall clause under the filters: the name and brand clauses only
    // score, and left out they are not expanded (fuzzy, prefix) a second time for the count.
    const { filter, mustNot } = searchFilters(params);
    const lexicalMatches: estypes.QueryDslQueryContainer = { bool: { must: [recallQuery(key)], filter, must_not: mustNot } };
    const matched = {
      constant_score: {
        filter: attributes ? { bool: { should: [lexicalMatches, attributes.matches], minimum_should_match: 1 } } : lexicalMatches,
      },
    };
    const response = await client.msearch<Source, FacetAggregations>(
      {
        index: alias,
        searches: [
          {},
          { query: lexical.query, sort: lexical.sort, size: SEMANTIC_WINDOW, track_total_hits: false, _source: { includes } },
          {},
          { knn, size: SEMANTIC_WINDOW, track_total_hits: false, _source: { includes } },
          {},
          { query: matched, knn, size: 0, track_total_hits: true, ...(aggs ? { aggs } : {}) },
          ...(attributes ? [{}, { query: attributes.ranked, size: SEMANTIC_WINDOW, track_total_hits: false, _source: { includes } }] : []),
        ],
      },
      {
        querystring: {
          // `status` keeps every response in the array: filter_path drops a response left empty
          // (a leg without hits and without total), which shifted the legs after it.
          filter_path:
            'responses.status,responses.hits.total.value,responses.hits.hits._id,responses.hits.hits._source,responses.hits.hits.matched_queries,responses.aggregations,responses.error',
        },
      },
    );
    // filter_path leaves out `hits` of a response that found nothing.
    type Part = estypes.MsearchMultiSearchItem<Source>;
    const [lex, near, union, described] = response.responses.map((r): Omit<Part, 'hits'> & Partial<Pick<Part, 'hits'>> => {
      if ('error' in r) throw new Error(`hybrid search part failed: ${r.error.type}: ${r.error.reason ?? ''}`);
      return r;
    });
    const lexHits = lex?.hits?.hits ?? [];
    const describedHits = described?.hits?.hits ?? [];
    const nearHits = near?.hits?.hits ?? [];
    const sources = new Map<string, Source>();
    for (const hit of [...lexHits, ...describedHits, ...nearHits]) if (hit._source) sources.set(hit._id!, hit._source);
    // Known items first: lexical hits that matched the name or brand keep their lexical order.
    const signalled = (hit: (typeof lexHits)[number]) => {
      const matched = hit.matched_queries;
      const names = Array.isArray(matched) ? matched : Object.keys(matched ?? {});
      return names.includes(NAME_SIGNAL) || names.includes(BRAND_SIGNAL);
    };
    // The lexical best hit always stays first too: every query word matched it (a misspelt name
    // that only the fuzzy recall clause caught is still the known item).
    const pinned = lexHits.filter((hit, i) => i === 0 || signalled(hit)).map((h) => h._id!);
    const pinnedSet = new Set(pinned);
    const fused = fuseByRank([lexHits, describedHits, nearHits].map((hits) => hits.map((h) => h._id!))).filter((id) => !pinnedSet.has(id));
    ordered = [...pinned, ...fused].map((id) => sources.get(id)!);
    total = Math.max((union?.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0, ordered.length);
    aggregations = union?.aggregations as FacetAggregations | undefined;
    return page(params, key, ordered, total, aggregations, { limit, offset, sliced: false, mode });
  }

  function page(
    params: SearchQuery,
    key: string,
    ordered: Source[],
    total: number,
    aggregations: FacetAggregations | undefined,
    at: { limit: number; offset: number; sliced: boolean; mode: SearchMode },
  ): SearchResponse {
    const reachable = Math.min(at.sliced ? total : ordered.length, SEMANTIC_WINDOW * (at.sliced ? 1 : 2));
    const hits = at.sliced ? ordered : ordered.slice(at.offset, at.offset + at.limit);
    const words = params.highlight ? queryWords(key) : undefined;
    const data: SearchHit[] = hits.map((source) => {
      const summary = Object.fromEntries(SUMMARY_FIELDS.map((field) => [field, source[field]])) as FragranceSummary;
      return words ? { ...summary, highlight: highlightRecord(source, words) } : summary;
    });
    const nextPosition = at.offset + data.length;
    const next_cursor =
      data.length === at.limit && nextPosition < reachable
        ? cursors.encode({ after: [], position: nextPosition }, cursorFingerprint(params))
        : null;
    const facets = facetsOf(aggregations);
    return { data, total, limit: at.limit, offset: at.offset, next_cursor, ...(facets ? { facets } : {}), search_mode: at.mode };
  }

  return { run, vectorsReady };
}

export type SemanticSearch = ReturnType<typeof createSemanticSearch>;

/** Cursors of semantic and hybrid pages are bound to the mode too, so one never continues another mode's list. */
function cursorFingerprint(params: SearchQuery): string {
  return queryFingerprint({ ...params, search_mode: plannedMode(params, 'x', true) });
}
