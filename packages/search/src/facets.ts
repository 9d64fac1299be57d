import type { FacetBucket, Facets } from '@fragrance/contracts';

/** A terms or histogram bucket as Elasticsearch answers it. */
interface Bucket {
  key: string | number;
  doc_count: number;
}

/** The aggregations of a search that asked for facets (one per facet name). */
export type FacetAggregations = Record<string, { buckets?: Bucket[] }>;

/** The response's facets from a search's aggregations (decades as "1990s"). */
export function facetsOf(aggregations: FacetAggregations | undefined): Facets | undefined {
  if (!aggregations) return undefined;
  const facets: Facets = {};
  for (const [name, agg] of Object.entries(aggregations)) {
    const buckets: FacetBucket[] = (agg.buckets ?? []).map((b) => ({
      value: name === 'decade' ? `${Number(b.key)}s` : String(b.key),
      count: b.doc_count,
    }));
    facets[name as keyof Facets] = buckets;
  }
  return facets;
}
