import { errors, type Client, type estypes } from '@elastic/elasticsearch';
import {
  DEFAULT_LIMIT,
  DEFAULT_SUGGEST_LIMIT,
  slugOf,
  type Brand,
  type BrandDetail,
  type BrandList,
  type BrandsQuery,
  type SuggestQuery,
  type SuggestResponse,
  type TermList,
  type TermsQuery,
} from '@fragrance/contracts';
import { queryKey } from './normalise.ts';
import { buildSuggestRequest, suggestAliasOf, suggestQuery, toSuggestion, type SuggestDocument } from './suggest.ts';

export type TermKind = 'notes' | 'accords' | 'perfumers';
const TYPE_OF: Record<TermKind, SuggestDocument['type']> = { notes: 'note', accords: 'accord', perfumers: 'perfumer' };

export interface DiscoveryRepository {
  suggest: (params: SuggestQuery) => Promise<SuggestResponse>;
  brands: (params: BrandsQuery) => Promise<BrandList>;
  /** undefined when no brand has this slug. */
  brand: (slug: string) => Promise<BrandDetail | undefined>;
  terms: (kind: TermKind, params: TermsQuery) => Promise<TermList>;
}

type Hit = estypes.SearchHit<SuggestDocument>;

/** Where discovery reads: the catalogue behind `alias`, its suggestion index behind `suggestAlias`. */
interface Discovery {
  client: Client;
  alias: string;
  suggestAlias: string;
}

/**
 * Suggestions and the browse lists, read from the suggestion index behind `<alias>-suggest`
 * (built at ingest with the catalogue version it describes); a brand's detail also aggregates
 * its fragrances in the catalogue behind `alias`.
 */
export function createDiscoveryRepository({ client, alias }: { client: Client; alias: string }): DiscoveryRepository {
  const discovery: Discovery = { client, alias, suggestAlias: suggestAliasOf(alias) };

  async function suggest(params: SuggestQuery): Promise<SuggestResponse> {
    const limit = params.limit ?? DEFAULT_SUGGEST_LIMIT;
    const response = await client.search<SuggestDocument>(
      { index: discovery.suggestAlias, ...buildSuggestRequest(params.q, params.types, limit) },
      { querystring: { filter_path: 'hits.hits._source' } },
    );
    return { data: (response.hits?.hits ?? []).map((hit) => toSuggestion(hit._source!)), limit };
  }

  async function brands(params: BrandsQuery): Promise<BrandList> {
    const { docs, ...page } = await listEntities(discovery, 'brand', params, params.country ? [{ term: { country: params.country } }] : []);
    return { data: docs.map(toBrand), ...page };
  }

  async function terms(kind: TermKind, params: TermsQuery): Promise<TermList> {
    const { docs, ...page } = await listEntities(discovery, TYPE_OF[kind], params, []);
    return { data: docs.map((d) => ({ slug: d.slug ?? slugOf(d.key), name: d.text, fragrance_count: d.count ?? 0 })), ...page };
  }

  return { suggest, brands, brand: (slug) => brandDetail(discovery, slug), terms };
}

/** One page of entities of a type: most fragrances first, or best match first with `search`. */
async function listEntities(
  { client, suggestAlias }: Discovery,
  type: SuggestDocument['type'],
  params: TermsQuery,
  filter: estypes.QueryDslQueryContainer[],
) {
  const limit = params.limit ?? DEFAULT_LIMIT;
  const offset = params.offset ?? 0;
  const key = params.search === undefined ? '' : queryKey(params.search);
  const filters = [{ term: { type } }, ...filter];
  const response = await client.search<SuggestDocument>(
    {
      index: suggestAlias,
      query: key ? suggestQuery(key, filters) : { bool: { filter: filters } },
      sort: key ? ['_score', { count: 'desc' }, { slug: 'asc' }] : [{ count: 'desc' }, { slug: 'asc' }],
      from: offset,
      size: limit,
      track_total_hits: true,
    },
    { querystring: { filter_path: 'hits.total.value,hits.hits._source' } },
  );
  const hits: Hit[] = response.hits?.hits ?? [];
  const total = (response.hits?.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
  return { docs: hits.map((h) => h._source!), total, limit, offset };
}

function toBrand(d: SuggestDocument): Brand {
  return {
    slug: d.slug ?? slugOf(d.key),
    name: d.text,
    country: d.country ?? '',
    fragrance_count: d.count ?? 0,
    top_accords: d.top_accords ?? [],
  };
}

/** A brand's entry with its fragrances' top notes, perfumers and years; undefined when no brand has this slug. */
async function brandDetail({ client, alias, suggestAlias }: Discovery, slug: string): Promise<BrandDetail | undefined> {
  let doc: SuggestDocument | undefined;
  try {
    const found = await client.get<SuggestDocument>({ index: suggestAlias, id: `brand:${slug}` });
    doc = found.found ? found._source : undefined;
  } catch (error) {
    // A missing document is a 404 answer; a missing index is the catalogue not being loaded.
    const type = error instanceof errors.ResponseError ? (error.body as { error?: { type?: string } } | undefined)?.error?.type : undefined;
    if (!(error instanceof errors.ResponseError && error.statusCode === 404 && type !== 'index_not_found_exception')) throw error;
  }
  if (!doc) return undefined;
  const response = await client.search<unknown, Record<string, { buckets?: { key: string }[]; value?: number | null }>>({
    index: alias,
    size: 0,
    query: { term: { 'search.brand': doc.key } },
    aggs: {
      notes: { terms: { field: 'search.notes', size: 10 } },
      perfumers: { terms: { field: 'perfumers', size: 10 } },
      year_first: { min: { field: 'year_released' } },
      year_last: { max: { field: 'year_released' } },
    },
  });
  const aggs = response.aggregations ?? {};
  const year = (name: string) => {
    const value = aggs[name]?.value;
    return typeof value === 'number' ? Math.round(value) : null;
  };
  return {
    ...toBrand(doc),
    top_notes: (aggs.notes?.buckets ?? []).map((b) => b.key),
    perfumers: (aggs.perfumers?.buckets ?? []).map((b) => b.key),
    year_first: year('year_first'),
    year_last: year('year_last'),
    votes: doc.popularity,
  };
}
