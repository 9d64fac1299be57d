import { createHash } from 'node:crypto';
import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import type { FragranceDetail, FragranceSummary, SearchHit, SearchQuery, SearchResponse } from '@fragrance/contracts';
import { createCursorCodec, type CursorKeys } from './cursor.ts';
import { HELPER_OBJECTS, SEARCH_OBJECT, type IndexedFragrance } from './mapping.ts';
import { queryWords } from './highlight.ts';
import { queryKey } from './normalise.ts';
import { buildSearchQuery } from './query.ts';
import { DID_YOU_MEAN_BELOW, didYouMean } from './spellcheck.ts';
import { facetsOf, type FacetAggregations } from './facets.ts';
import { buildSimilarQuery } from './similar.ts';
import { createSemanticSearch, plannedMode, type QueryEmbedder } from './semantic.ts';
import { cursorValuesOf } from './sort.ts';
import { pageHit, summaryOfHit } from './summary.ts';

/** Trims search responses to what a page needs (less JSON to move and parse). */
export const SEARCH_FILTER_PATH = ['hits.total.value', 'hits.hits._source', 'hits.hits.fields', 'hits.hits.sort', 'aggregations'];

export interface FragranceWithVersion {
  fragrance: FragranceDetail;
  /** Strong ETag: changes with every write to the record and with every new index version. */
  etag: string;
}

export interface CatalogueRepository {
  search: (params: SearchQuery) => Promise<SearchResponse>;
  get: (id: string) => Promise<FragranceWithVersion | undefined>;
  /** undefined when `id` does not exist. */
  similar: (id: string, limit: number) => Promise<FragranceSummary[] | undefined>;
}

const isNotFound = (error: unknown) => error instanceof errors.ResponseError && error.statusCode === 404;

/**
 * Read access to the catalogue behind `alias`. One client (keep-alive) for every request;
 * responses are trimmed with filter_path and _source includes.
 */
export function createCatalogueRepository({
  client,
  alias,
  cursorKeys,
  embedder,
}: {
  client: Client;
  alias: string;
  /** Signs the next_cursor of each page and verifies the cursors clients send back. */
  cursorKeys: CursorKeys;
  /** Embeds queries for search_mode semantic and hybrid; without it every search is lexical. */
  embedder?: QueryEmbedder | undefined;
}): CatalogueRepository {
  const cursors = createCursorCodec(cursorKeys);
  const semantic = embedder ? createSemanticSearch({ client, alias, cursors, embedder }) : undefined;

  async function search(params: SearchQuery): Promise<SearchResponse> {
    const key = params.query === undefined ? '' : queryKey(params.query);
    const mode = plannedMode(params, key, semantic !== undefined);
    if (mode !== 'lexical' && semantic) {
      const answered = await semantic.run(params, key, mode);
      if (answered) return answered;
    }
    const built = buildSearchQuery(params, cursors);
    const response = await client.search<FragranceDetail, FacetAggregations>(
      { index: alias, ...built.body },
      { querystring: { filter_path: SEARCH_FILTER_PATH.join(',') } },
    );
    const hits = response.hits?.hits ?? [];
    const total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
    const words = params.highlight && key ? queryWords(key) : undefined;
    const data: SearchHit[] = hits.map((hit) => pageHit(hit, params.highlight, words));
    const last = hits.at(-1);
    const lastId = data.at(-1)?.id;
    const nextPosition = built.offset + data.length;
    const next_cursor =
      last?.sort && lastId !== undefined && data.length === built.limit && nextPosition < total
        ? cursors.encode({ after: cursorValuesOf(last.sort, lastId), position: nextPosition }, built.fingerprint)
        : null;
    const facets = facetsOf(response.aggregations);
    const suggestion =
      key && total < DID_YOU_MEAN_BELOW && built.offset === 0 ? await didYouMean(client, alias, params, key, total, cursors) : undefined;
    return {
      data,
      total,
      limit: built.limit,
      offset: built.offset,
      next_cursor,
      ...(facets ? { facets } : {}),
      ...(suggestion ? { did_you_mean: suggestion } : {}),
      ...(key ? { search_mode: 'lexical' as const } : {}),
    };
  }

  async function get(id: string): Promise<FragranceWithVersion | undefined> {
    try {
      const doc = await client.get<FragranceDetail>({ index: alias, id, _source_excludes: [...HELPER_OBJECTS] });
      if (!doc.found || !doc._source) return undefined;
      const version = `${doc._index}:${doc._primary_term ?? 0}:${doc._seq_no ?? 0}`;
      return { fragrance: doc._source, etag: `"${createHash('sha256').update(version).digest('base64url').slice(0, 22)}"` };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async function similar(id: string, limit: number): Promise<FragranceSummary[] | undefined> {
    let source: Pick<IndexedFragrance, 'search' | 'main_accords'> | undefined;
    try {
      const doc = await client.get<Pick<IndexedFragrance, 'search' | 'main_accords'>>({
        index: alias,
        id,
        _source_includes: [`${SEARCH_OBJECT}.notes`, `${SEARCH_OBJECT}.accords`, 'main_accords'],
      });
      source = doc.found ? doc._source : undefined;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (!source) return undefined;
    const response = await client.search<never>(
      { index: alias, ...buildSimilarQuery(id, source, limit) },
      { querystring: { filter_path: 'hits.hits.fields' } },
    );
    return (response.hits?.hits ?? []).map(summaryOfHit);
  }

  return { search, get, similar };
}
