import type { estypes } from '@elastic/elasticsearch';
import { FragranceSummary, type FragranceDetail, type SearchHit } from '@fragrance/contracts';
import { HIGHLIGHT_SOURCE_FIELDS, highlightRecord, type QueryWords } from './highlight.ts';

/**
 * Fields of a FragranceSummary, read off its schema: what a search hit returns. A field added
 * to the summary contract is returned without touching this list.
 */
export const SUMMARY_FIELDS = Object.keys(FragranceSummary.shape) as readonly (keyof FragranceSummary)[];

/** Where each record keeps its summary: a binary doc value, written at ingest (toIndexDocument). */
export const SUMMARY_DOC_VALUE = 'search.summary';

/**
 * A page's hits read their summary from doc values, not `_source`: picking ten fields out of a
 * `_source` means parsing all of it, 384-number vector included, which was most of a small
 * search's Elasticsearch time (years, brand, filters: 2-3x; a deep page 5x; docs/search.md).
 */
export const SUMMARY_FROM_DOC_VALUES = {
  _source: false,
  stored_fields: ['_none_'],
  docvalue_fields: [SUMMARY_DOC_VALUE],
} satisfies Pick<estypes.SearchRequest, '_source' | 'stored_fields' | 'docvalue_fields'>;

/** The summary fields of a record, in the contract's order. */
export function summaryOf(record: FragranceSummary): FragranceSummary {
  return Object.fromEntries(
    SUMMARY_FIELDS.filter((field) => record[field] !== undefined).map((field) => [field, record[field]]),
  ) as FragranceSummary;
}

/** The doc value written for a record: its summary as JSON (binary doc values travel as base64). */
export function encodeSummary(record: FragranceSummary): string {
  return Buffer.from(JSON.stringify(summaryOf(record))).toString('base64');
}

/** The summary of a hit read with SUMMARY_FROM_DOC_VALUES. */
export function summaryOfHit(hit: { _id?: string | null; fields?: Record<string, unknown> }): FragranceSummary {
  const value = (hit.fields?.[SUMMARY_DOC_VALUE] as unknown[] | undefined)?.[0];
  // Every record written by this schema version has one (INDEX_SCHEMA_VERSION).
  if (typeof value !== 'string') throw new Error(`record ${hit._id ?? '?'} has no ${SUMMARY_DOC_VALUE} doc value: re-ingest the catalogue`);
  return JSON.parse(Buffer.from(value, 'base64').toString('utf8')) as FragranceSummary;
}

/**
 * What a page of hits reads: the matched fields from `_source` when it highlights a query's
 * words (they need the fields themselves), the summaries' doc values otherwise.
 */
export function pageFetch(highlighting: boolean): Pick<estypes.SearchRequest, '_source' | 'stored_fields' | 'docvalue_fields'> {
  return highlighting ? { _source: { includes: [...SUMMARY_FIELDS, ...HIGHLIGHT_SOURCE_FIELDS] } } : SUMMARY_FROM_DOC_VALUES;
}

/**
 * One hit of a page read with pageFetch(words !== undefined): its summary, with the highlights
 * of `words`; `highlight: {}` when highlights were asked for without a query to highlight.
 */
export function pageHit(hit: estypes.SearchHit<FragranceDetail>, highlight: boolean | undefined, words: QueryWords | undefined): SearchHit {
  if (words) return { ...summaryOf(hit._source!), highlight: highlightRecord(hit._source!, words) };
  return highlight ? { ...summaryOfHit(hit), highlight: {} } : summaryOfHit(hit);
}
