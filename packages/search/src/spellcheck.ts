import type { Client, estypes } from '@elastic/elasticsearch';
import type { DidYouMean, SearchQuery } from '@fragrance/contracts';
import type { CursorCodec } from './cursor.ts';
import { buildSearchQuery, describedAttributes } from './query.ts';

/** A query finding fewer hits than this "found little": worth looking for a better spelling. */
export const DID_YOU_MEAN_BELOW = 3;

interface TermSuggestion {
  text: string;
  options: { text: string; freq: number }[];
}

/**
 * A respelling of a folded query that finds more than it did, or undefined. Each word is replaced
 * by Elasticsearch's term suggestion over the indexed words (suggest_mode popular: only words
 * more frequent than the one written, up to two edits away), then the respelled query is counted
 * with the same filters. Only asked for after a query found fewer than DID_YOU_MEAN_BELOW hits,
 * so well-spelled searches pay nothing for it.
 */
export async function didYouMean(
  client: Client,
  alias: string,
  params: SearchQuery,
  key: string,
  total: number,
  cursors: CursorCodec,
): Promise<DidYouMean | undefined> {
  const response = await client.search(
    {
      index: alias,
      size: 0,
      suggest: {
        text: key,
        words: { term: { field: 'search_all', suggest_mode: 'popular', sort: 'score', max_edits: 2, min_word_length: 3, size: 1 } },
      },
    },
    { querystring: { filter_path: 'suggest' } },
  );
  const entries = (response.suggest?.words ?? []) as TermSuggestion[];
  // Seasons and occasions ("summer", "date night") are understood, not misspelt: they are no
  // searchable text, so the index would offer "summit" for "summer".
  const { rest } = describedAttributes(key);
  const respellable = new Set(rest);
  const respelled = key
    .split(' ')
    .map((word) => (respellable.has(word) ? (entries.find((entry) => entry.text === word)?.options[0]?.text ?? word) : word))
    .join(' ');
  if (respelled === key) return undefined;
  const built = buildSearchQuery({ ...params, query: respelled, offset: undefined, cursor: undefined, facets: undefined }, cursors);
  const count = await client.search(
    { index: alias, query: built.body.query, size: 0, track_total_hits: true },
    { querystring: { filter_path: 'hits.total.value' } },
  );
  const found = (count.hits.total as estypes.SearchTotalHits | undefined)?.value ?? 0;
  return found > total ? { query: respelled, total: found } : undefined;
}
