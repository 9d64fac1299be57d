import { createHash } from 'node:crypto';
import type { TransportRequestParams } from '@elastic/elasticsearch';

/** What decides a search's scores and so its order: the same for every page of one query. */
const SCORING_PARTS = ['query', 'knn', 'rescore', 'rank', 'retriever'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A custom `preference` for one search: a hash of where it searches and what scores it (never its
 * page: from, size, search_after). Custom strings must not start with `_`.
 */
export function shardPreference(path: string, body: unknown): string {
  let scoring: unknown = body;
  if (isObject(body) && SCORING_PARTS.some((part) => body[part] !== undefined)) {
    scoring = SCORING_PARTS.map((part) => body[part] ?? null);
  }
  const text = typeof scoring === 'string' ? scoring : JSON.stringify(scoring ?? null);
  return `q${createHash('sha256').update(path).update('\n').update(text).digest('base64url').slice(0, 16)}`;
}

const isSearch = (path: string) => path.endsWith('/_search') || path === '_search';
// A point in time already holds the same copies for every page, and Elasticsearch refuses a preference beside it.
const isPointInTime = (body: unknown) => isObject(body) && body.pit !== undefined;
const isMultiSearch = (path: string) => path.endsWith('/_msearch') || path === '_msearch';

/**
 * Pins each search to the same copies of its shards. Elasticsearch picks a copy per request, and
 * the copies of a shard score slightly differently (each has its own segments and deleted
 * documents, so its own BM25 statistics): near-tied hits could swap places between two asks of the
 * same query, from one page to the next or between the caches of two instances. With a
 * `preference` derived from the query, the same query always reads the same copies while other
 * queries still spread over all of them (docs/search.md). A preference the caller set is kept, and a point-in-time search (the export) left alone.
 */
export function withShardPreference(params: TransportRequestParams): TransportRequestParams {
  const { path, querystring } = params;
  if (isSearch(path)) {
    if (isPointInTime(params.body)) return params;
    const preference = shardPreference(path, params.body ?? null);
    if (typeof querystring === 'string') {
      const query = new URLSearchParams(querystring);
      if (query.has('preference')) return params;
      query.set('preference', preference);
      return { ...params, querystring: query.toString() };
    }
    if (querystring?.preference !== undefined) return params;
    return { ...params, querystring: { ...querystring, preference } };
  }
  // Serialised lines (strings, a buffer, a stream) are left as they are: the catalogue sends objects.
  const lines: unknown = params.bulkBody;
  if (isMultiSearch(path) && Array.isArray(lines) && lines.every(isObject)) {
    // Header and body lines alternate; the header says where that search runs, and may carry its own preference.
    const pinned = lines.map((line, i) => {
      if (i % 2 === 1 || line.preference !== undefined || isPointInTime(lines[i + 1])) return line;
      // As the same search sent alone would be pinned.
      const where =
        typeof line.index === 'string' || Array.isArray(line.index)
          ? `/${String(line.index)}/_search`
          : path.replace(/_msearch$/, '_search');
      return { ...line, preference: shardPreference(where, lines[i + 1] ?? null) };
    });
    return { ...params, bulkBody: pinned };
  }
  return params;
}
