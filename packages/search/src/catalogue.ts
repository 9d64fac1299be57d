import { createHash } from 'node:crypto';
import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import type { FragranceDetail, SearchHit, SearchQuery, SearchResponse, SimilarFragrance } from '@fragrance/contracts';
import { createCursorCodec, type CursorCodec, type CursorKeys } from './cursor.ts';
import { HELPER_OBJECTS } from './mapping.ts';
import { queryWords } from './highlight.ts';
import { queryKey } from './normalise.ts';
import { buildSearchQuery, describesAttributes, KNOWN_ITEM_SIGNAL, matchedQueries, WHOLE_NAME_SIGNAL } from './query.ts';
import { RELAX_BELOW, relaxQuery, type Relaxation } from './relax.ts';
import { DID_YOU_MEAN_BELOW, didYouMean } from './spellcheck.ts';
import { facetsOf, type FacetAggregations } from './facets.ts';
import { buildSimilarQuery, similarFragrances, SIMILAR_SOURCE_FIELDS, type SimilarFilters, type SimilarSource } from './similar.ts';
import { STORED_ALTERNATIVES, storedSimilar, unfiltered } from './similar-store.ts';
import { createSemanticSearch, plannedMode, type QueryEmbedder } from './semantic.ts';
import { cursorValuesOf } from './sort.ts';
import { createTermRarity, type TermRarity } from './term-rarity.ts';
import { pageHit } from './summary.ts';

/** Trims search responses to what a page needs (less JSON to move and parse). */
export const SEARCH_FILTER_PATH = [
  'hits.total.value',
  'hits.hits._source',
  'hits.hits.fields',
  'hits.hits.sort',
  'hits.hits.matched_queries',
  'aggregations',
];

export interface FragranceWithVersion {
  fragrance: FragranceDetail;
  /** Strong ETag: changes with every write to the record and with every new index version. */
  etag: string;
}

export interface CatalogueRepository {
  search: (params: SearchQuery) => Promise<SearchResponse>;
  get: (id: string) => Promise<FragranceWithVersion | undefined>;
  /** Alternatives to `id` with their reasons (similar.ts); undefined when `id` does not exist. */
  similar: (id: string, limit: number, filters?: SimilarFilters) => Promise<SimilarFragrance[] | undefined>;
}

const isNotFound = (error: unknown) => error instanceof errors.ResponseError && error.statusCode === 404;

/** What every read of the catalogue shares: one client (keep-alive), the alias, the cursor codec. */
interface Catalogue {
  client: Client;
  alias: string;
  cursors: CursorCodec;
}

type SemanticSearch = ReturnType<typeof createSemanticSearch>;

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
  const catalogue: Catalogue = { client, alias, cursors: createCursorCodec(cursorKeys) };
  const rarities = createTermRarity(client);
  const semantic = embedder ? createSemanticSearch({ ...catalogue, embedder }) : undefined;
  return {
    search: (params) => searchCatalogue(catalogue, semantic, params),
    get: (id) => getFragrance(catalogue, id),
    similar: (id, limit, filters = {}) => similarTo(catalogue, rarities, id, limit, filters),
  };
}

/** One lexical page for the folded words `key`, and whether the query's best hit names a known item. */
async function lexicalPage({ client, alias, cursors }: Catalogue, params: SearchQuery, key: string, askKnownItem: boolean) {
  const built = buildSearchQuery(params, cursors, key);
  const request = client.search<FragranceDetail, FacetAggregations>(
    { index: alias, ...built.body },
    { querystring: { filter_path: SEARCH_FILTER_PATH.join(',') } },
  );
  // Past the first hit, the best one is asked for beside the page: the decision is the query's, not the page's.
  const deeper = built.offset > 0 || params.cursor !== undefined;
  const best =
    askKnownItem && deeper
      ? client.search<never>(
          { index: alias, query: built.body.query, size: 1, track_total_hits: false, stored_fields: ['_none_'] },
          { querystring: { filter_path: 'hits.hits.matched_queries' } },
        )
      : undefined;
  const [response, top] = await Promise.all([request, best]);
  const hits = response.hits?.hits ?? [];
  const total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
  const bestHit = deeper ? top?.hits?.hits?.[0] : hits[0];
  // A description names no record, unless the best hit's whole name is the query ("Summer Night").
  const matched = matchedQueries(bestHit);
  const knownItem = matched.includes(KNOWN_ITEM_SIGNAL) && (!describesAttributes(key) || matched.includes(WHOLE_NAME_SIGNAL));
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
  const page: SearchResponse = { data, total, limit: built.limit, offset: built.offset, next_cursor, ...(facets ? { facets } : {}) };
  return { page, knownItem };
}

/**
 * The lexical answer: the query as typed, relaxed when it found nothing (relax.ts), with a
 * respelling when it found little (spellcheck.ts).
 */
async function lexicalSearch(catalogue: Catalogue, params: SearchQuery, key: string, { askKnownItem = false, relax = true } = {}) {
  const { client, alias, cursors } = catalogue;
  let answer = await lexicalPage(catalogue, params, key, askKnownItem);
  const strictTotal = answer.page.total;
  let relaxation: Relaxation | undefined;
  if (relax && key && strictTotal < RELAX_BELOW) {
    relaxation = await relaxQuery(client, alias, params, key);
    if (relaxation) answer = await lexicalPage(catalogue, params, relaxation.key, askKnownItem);
  }
  // A query whose best hit it names needs no respelling (and pays nothing for one).
  const suggestion =
    key && strictTotal < DID_YOU_MEAN_BELOW && answer.page.offset === 0 && !answer.knownItem
      ? await didYouMean(client, alias, params, key, strictTotal, cursors)
      : undefined;
  const extras: Pick<SearchResponse, 'did_you_mean' | 'relaxed'> = {
    ...(suggestion ? { did_you_mean: suggestion } : {}),
    ...(relaxation ? { relaxed: { dropped: relaxation.dropped } } : {}),
  };
  return { page: answer.page, knownItem: answer.knownItem, key: relaxation?.key ?? key, extras };
}

/**
 * Lexical mode: the lexical answer. Hybrid (the default): the lexical answer first; when the
 * query names a known item (its best hit carries KNOWN_ITEM_SIGNAL) and hybrid was not asked
 * for by name, that answer stands, with no query embedding or kNN; otherwise hybrid over the
 * (possibly relaxed) words. Semantic: the kNN answer, with the lexical count beside it for
 * `did_you_mean`. Relaxation and the respelling apply in every mode.
 */
async function searchCatalogue(catalogue: Catalogue, semantic: SemanticSearch | undefined, params: SearchQuery): Promise<SearchResponse> {
  const key = params.query === undefined ? '' : queryKey(params.query);
  const mode = plannedMode(params, key, semantic !== undefined);
  const firstOnly = { ...params, limit: 1, offset: undefined, cursor: undefined, facets: undefined };
  if (mode === 'semantic' && semantic) {
    const [answered, lexical] = await Promise.all([
      semantic.run(params, key, mode),
      lexicalSearch(catalogue, firstOnly, key, { relax: false }),
    ]);
    if (answered) return { ...answered, ...lexical.extras };
  }
  const askKnownItem = mode === 'hybrid' && params.search_mode === undefined;
  // A hybrid cursor is no lexical cursor: the decision (known item, relaxation) is made on the first hit alone.
  const paging = mode === 'hybrid' && params.cursor !== undefined;
  // A description ("something sweet for spring evenings") is served by the attribute and kNN legs:
  // relaxing its words to "sweet" would only add names containing them.
  const description = mode === 'hybrid' && semantic !== undefined && describesAttributes(key);
  let lexical = await lexicalSearch(catalogue, paging ? firstOnly : params, key, { askKnownItem, relax: !description });
  if (mode === 'hybrid' && semantic && !(askKnownItem && lexical.knownItem)) {
    const answered = await semantic.run(params, key, mode, { relaxedKey: lexical.extras.relaxed ? lexical.key : undefined });
    if (answered) return { ...answered, ...lexical.extras };
    // No vectors yet: the description is answered lexically after all, relaxed like any query.
    if (description) lexical = await lexicalSearch(catalogue, paging ? firstOnly : params, key, { askKnownItem });
  }
  const page = paging ? (await lexicalPage(catalogue, params, lexical.key, false)).page : lexical.page;
  return { ...page, ...lexical.extras, ...(key ? { search_mode: 'lexical' as const } : {}) };
}

async function getFragrance({ client, alias }: Catalogue, id: string): Promise<FragranceWithVersion | undefined> {
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

/**
 * Alternatives to `id`: the record's materialised list when it is current and the request
 * unfiltered with `limit` ≤ STORED_ALTERNATIVES (similar-store.ts), the live answer otherwise.
 */
async function similarTo(
  catalogue: Catalogue,
  rarities: TermRarity,
  id: string,
  limit: number,
  filters: SimilarFilters,
): Promise<SimilarFragrance[] | undefined> {
  if (limit <= STORED_ALTERNATIVES && unfiltered(filters)) {
    const stored = await storedSimilar(catalogue.client, catalogue.alias, rarities, id, limit);
    if (stored) return stored.answer;
  }
  return liveSimilar(catalogue, rarities, id, limit, filters);
}

/** The live answer: read the source (with its vector), then one search. */
async function liveSimilar(
  { client, alias }: Catalogue,
  rarities: TermRarity,
  id: string,
  limit: number,
  filters: SimilarFilters,
): Promise<SimilarFragrance[] | undefined> {
  let doc: estypes.GetGetResult<SimilarSource>;
  try {
    doc = await client.get<SimilarSource>({ index: alias, id, _source_includes: SIMILAR_SOURCE_FIELDS });
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  const source = doc.found ? doc._source : undefined;
  if (!source) return undefined;
  const table = rarities.tableOf(doc._index);
  const [rarity, response] = await Promise.all([
    table ?? rarities.ofRecord(doc._index, id),
    client.search<never>(
      { index: alias, ...buildSimilarQuery(id, source, limit, filters) },
      { querystring: { filter_path: 'hits.hits.fields,hits.hits.matched_queries' } },
    ),
  ]);
  return similarFragrances(response.hits?.hits ?? [], source, rarity, limit);
}
