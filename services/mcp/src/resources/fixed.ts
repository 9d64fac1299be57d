import type { McpServer, Resource } from '@modelcontextprotocol/server';
import {
  CONCENTRATION_SPELLINGS,
  CONCENTRATIONS,
  FACETS,
  OCCASIONS,
  PROVENANCE_SOURCES,
  type ProvenanceSource,
  SEASONS,
  SearchResponse,
  SORTS,
} from '@fragrance/contracts';
import type { ToolContext } from '../tools/run.ts';
import { logRead } from './fragrance.ts';

/** What each provenance source means (the catalogue's data lineage vocabulary, docs/dataset.md and docs/enrichment.md). */
export const PROVENANCE_MEANINGS: Readonly<Record<ProvenanceSource, string>> = {
  community_taxonomy:
    'The community fragrance taxonomy the catalogue was built from: names, brand, country, concentration, year, ratings, notes, and often accords, perfumers, description, seasons and occasions.',
  operator_curated:
    "Values curated by the catalogue's operators (descriptions, accords, perfumers). They take precedence: no enrichment ever overwrites them.",
  ai_enriched:
    'Filled by the enrichment model from the record itself: accords from notes, main accords, a short factual description, seasons and occasions. Perfumers are never invented.',
  au_retailer_scrape:
    "Offers seen at Australian retailers' listings (price in AUD, size, stock, link) and the availability derived from them, with when they were checked.",
};

export const FACETS_URI = 'fragrance://facets';
export const PROVENANCE_URI = 'fragrance://vocabulary/provenance';
export const SEARCH_VOCABULARY_URI = 'fragrance://vocabulary/search';

/** The fixed resources, in the order resources/list gives them (the two that need no catalogue first). */
export const FIXED_RESOURCES: readonly Resource[] = [
  {
    uri: PROVENANCE_URI,
    name: 'provenance-vocabulary',
    title: 'Provenance vocabulary',
    description: "The sources a record's provenance names (provenance_tags, provenance[].source) and what each means.",
    mimeType: 'application/json',
  },
  {
    uri: SEARCH_VOCABULARY_URI,
    name: 'search-vocabulary',
    title: 'Search vocabulary',
    description:
      'The values search_fragrances accepts: concentrations (with accepted spellings), seasons, occasions, sort orders and facets.',
    mimeType: 'application/json',
  },
  {
    uri: FACETS_URI,
    name: 'facets',
    title: 'Catalogue overview',
    description:
      'How many fragrances the catalogue holds and its top brands, concentrations, accords, notes, decades, seasons and occasions with counts.',
    mimeType: 'application/json',
  },
];

const json = (uri: string, value: unknown) => ({ contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }] });

function metadataOf(uri: string): Omit<Resource, 'uri' | 'name'> {
  const { uri: _uri, name: _name, ...metadata } = FIXED_RESOURCES.find((r) => r.uri === uri) ?? { uri, name: uri };
  return metadata;
}

/** The overview (one faceted count of the whole catalogue) and the two vocabularies. */
export function registerFixedResources(server: McpServer, ctx: ToolContext): void {
  server.registerResource('facets', FACETS_URI, metadataOf(FACETS_URI), async (uri) => {
    const body = SearchResponse.parse(await ctx.catalogue.search({ limit: 1, facets: [...FACETS] }));
    logRead(ctx, uri.href);
    const facets = body.facets ?? {};
    return json(uri.href, {
      total: body.total,
      brands: facets.brand ?? [],
      concentrations: facets.concentration ?? [],
      accords: facets.accord ?? [],
      notes: facets.note ?? [],
      decades: facets.decade ?? [],
      seasons: facets.season ?? [],
      occasions: facets.occasion ?? [],
    });
  });

  server.registerResource('provenance-vocabulary', PROVENANCE_URI, metadataOf(PROVENANCE_URI), (uri) =>
    json(uri.href, { sources: PROVENANCE_SOURCES.map((source) => ({ source, meaning: PROVENANCE_MEANINGS[source] })) }),
  );

  server.registerResource('search-vocabulary', SEARCH_VOCABULARY_URI, metadataOf(SEARCH_VOCABULARY_URI), (uri) =>
    json(uri.href, {
      concentrations: CONCENTRATIONS.map((name) => ({ name, also: CONCENTRATION_SPELLINGS[name] })),
      seasons: SEASONS,
      occasions: OCCASIONS,
      sorts: SORTS,
      facets: FACETS,
    }),
  );
}
