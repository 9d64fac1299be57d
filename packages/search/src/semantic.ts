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
      const shown = (response.hits?.hits ?? []).map((h) => h._source!);
      const total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
      return page(params, key, shown, total, response.aggregations, { limit, offset, reachable: total, mode });
    }

    // Hybrid: the lexical top window, the attribute leg's (a query naming seasons or occasions),
    // and the kNN top window, in one round trip; then the sources of the one page shown.
    const lexical = buildSearchQuery(
      { ...params, limit: SEMANTIC_WINDOW, offset: undefined, cursor: undefined, facets: undefined, sort: undefined },
      cursors,
    ).body;
    const attributes = attributeQuery(key, params);
    // The kNN leg also counts `total` and the facets: its query is every lexical or attribute
    // match, scored 0, so the hits are the kNN window in its own order (score > 0) followed by
    // the rest, and the total is the union. One kNN search instead of two (the vector search is
    // a large part of hybrid's cost, docs/search.md). Counted in filter context: the count needs
    // no scores; the lexical matches are its recall clause under the filters (the name and brand
    // clauses only score, and left out they are not expanded a second time).
    const { filter, mustNot } = searchFilters(params);
    const lexicalMatches: estypes.QueryDslQueryContainer = { bool: { must: [recallQuery(key)], filter, must_not: mustNot } };
    const matched: estypes.QueryDslQueryContainer = {
      constant_score: {
        filter: attributes ? { bool: { should: [lexicalMatches, attributes.matches], minimum_should_match: 1 } } : lexicalMatches,
        boost: 0,
      },
    };
    // Legs return ids only: the fused list needs no sources, and reading 100 per leg cost
    // Elasticsearch more than the page's own read below.
    const response = await client.msearch<never, FacetAggregations>(
      {
        index: alias,
        searches: [
          {},
          { query: lexical.query, sort: lexical.sort, size: SEMANTIC_WINDOW, track_total_hits: false, _source: false },
          {},
          {
            knn: knnSection(params, queryVector, SEMANTIC_WINDOW),
            query: matched,
            size: SEMANTIC_WINDOW,
            track_total_hits: true,
            _source: false,
            ...(aggs ? { aggs } : {}),
          },
          ...(attributes ? [{}, { query: attributes.ranked, size: SEMANTIC_WINDOW, track_total_hits: false, _source: false }] : []),
        ],
      },
      {
        querystring: {
          // `status` keeps every response in the array: filter_path drops a response left empty
          // (a leg without hits and without total), which shifted the legs after it.
          filter_path:
            'responses.status,responses.hits.total.value,responses.hits.hits._id,responses.hits.hits._index,responses.hits.hits._score,responses.hits.hits.matched_queries,responses.aggregations,responses.error',
        },
      },
    );
    // filter_path leaves out `hits` of a response that found nothing.
    type Part = estypes.MsearchMultiSearchItem<never>;
    const [lex, nearAndUnion, described] = response.responses.map((r): Omit<Part, 'hits'> & Partial<Pick<Part, 'hits'>> => {
      if ('error' in r) throw new Error(`hybrid search part failed: ${r.error.type}: ${r.error.reason ?? ''}`);
      return r;
    });
    const lexHits = lex?.hits?.hits ?? [];
    const describedHits = described?.hits?.hits ?? [];
    const nearHits = (nearAndUnion?.hits?.hits ?? []).filter((hit) => (hit._score ?? 0) > 0);
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
    const rankedIds = [...pinned, ...fused];
    // The index the legs searched: the page is read from it even if the alias moved meanwhile
    // (an id gone from it is left out, see sourcesOf).
    const index = [...lexHits, ...nearHits, ...describedHits][0]?._index ?? alias;
    const shown = await sourcesOf(index, rankedIds.slice(offset, offset + limit), includes);
    const total = Math.max((nearAndUnion?.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0, rankedIds.length);
    return page(params, key, shown, total, nearAndUnion?.aggregations as FacetAggregations | undefined, {
      limit,
      offset,
      reachable: rankedIds.length,
      mode,
    });
  }

  /** The sources of these ids, in this order (an id gone since the legs ran is left out). */
  async function sourcesOf(index: string, ids: readonly string[], includes: readonly string[]): Promise<Source[]> {
    if (ids.length === 0) return [];
    const response = await client.search<Source>(
      { index, query: { ids: { values: [...ids] } }, size: ids.length, track_total_hits: false, _source: { includes: [...includes] } },
      { querystring: { filter_path: 'hits.hits._id,hits.hits._source' } },
    );
    const byId = new Map((response.hits?.hits ?? []).map((hit) => [hit._id!, hit._source!]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  function page(
    params: SearchQuery,
    key: string,
    shown: readonly Source[],
    total: number,
    aggregations: FacetAggregations | undefined,
    at: { limit: number; offset: number; reachable: number; mode: SearchMode },
  ): SearchResponse {
    // How far a cursor may page: semantic's kNN window, hybrid's fused lists up to two windows.
    const reachable = Math.min(at.reachable, SEMANTIC_WINDOW * (at.mode === 'hybrid' ? 2 : 1));
    const words = params.highlight ? queryWords(key) : undefined;
    const data: SearchHit[] = shown.map((source) => {
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
