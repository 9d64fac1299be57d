import { hash } from 'node:crypto';
import { Serializer, type TransportRequestParams } from '@elastic/elasticsearch';

/** What decides a search's scores and so its order: the same for every page of one query. */
const SCORING_PARTS = ['query', 'knn', 'rescore', 'rank', 'retriever'] as const;

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (!isObject(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

/**
 * A plain object body as JSON.stringify writes it (own enumerable keys in order, fields that
 * serialise to nothing left out), with each scoring part's own JSON on the side: the preference
 * hashes those, and the client then sends the body's JSON as it is (PreserialisedSerializer), so
 * a search body is serialised once rather than twice.
 */
function serialiseFields(body: Record<string, unknown>): { json: string; parts: Map<string, string> } {
  let json = '';
  const parts = new Map<string, string>();
  for (const key of Object.keys(body)) {
    const text = JSON.stringify(body[key]) as string | undefined;
    if (text === undefined) continue;
    json += `${json === '' ? '' : ','}${JSON.stringify(key)}:${text}`;
    if ((SCORING_PARTS as readonly string[]).includes(key)) parts.set(key, text);
  }
  return { json: `{${json}}`, parts };
}

const digest = (path: string, text: string) => `q${hash('sha256', `${path}\n${text}`, 'base64url').slice(0, 16)}`;

/** The preference of a search, and its body's JSON when it was serialised on the way (a plain object body). */
function pin(path: string, body: unknown): { preference: string; json?: string } {
  const scored = isObject(body) && SCORING_PARTS.some((part) => body[part] !== undefined);
  if (isPlainObject(body)) {
    const { json, parts } = serialiseFields(body);
    // The scoring parts as the JSON array [query, knn, rescore, rank, retriever] (null for an absent one).
    const text = scored ? `[${SCORING_PARTS.map((part) => (body[part] == null ? 'null' : (parts.get(part) ?? 'null'))).join(',')}]` : json;
    return { preference: digest(path, text), json };
  }
  const scoring: unknown = scored ? SCORING_PARTS.map((part) => body[part] ?? null) : body;
  return { preference: digest(path, typeof scoring === 'string' ? scoring : JSON.stringify(scoring ?? null)) };
}

/**
 * A custom `preference` for one search: a hash of where it searches and what scores it (never its
 * page: from, size, search_after). Custom strings must not start with `_`.
 */
export function shardPreference(path: string, body: unknown): string {
  return pin(path, body).preference;
}

/** Bodies serialised by withShardPreference, until the client serialises them (PreserialisedSerializer). */
const serialised = new WeakMap<object, string>();

/**
 * The client's serializer, but a search body withShardPreference has just written as JSON is sent
 * as that text (the same bytes JSON.stringify gives) instead of being serialised again. Taken
 * once: a body changed and sent again is pinned, and so written, afresh.
 */
export class PreserialisedSerializer extends Serializer {
  override serialize(object: Record<string, unknown>): string {
    const json = serialised.get(object);
    if (json === undefined) return super.serialize(object);
    serialised.delete(object);
    return json;
  }
}

const isSearch = (path: string) => path.endsWith('/_search') || path === '_search';
// A point in time already holds the same copies for every page, and Elasticsearch refuses a preference beside it.
const isPointInTime = (body: unknown) => isObject(body) && body.pit !== undefined;
const isMultiSearch = (path: string) => path.endsWith('/_msearch') || path === '_msearch';

/** The body is serialised by the client as usual: any text kept for it from an earlier send is dropped. */
function unpinned(params: TransportRequestParams): TransportRequestParams {
  if (isObject(params.body)) serialised.delete(params.body);
  return params;
}

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
    if (isPointInTime(params.body)) return unpinned(params);
    if (typeof querystring === 'string' ? new URLSearchParams(querystring).has('preference') : querystring?.preference !== undefined) {
      return unpinned(params);
    }
    const { preference, json } = pin(path, params.body ?? null);
    if (json !== undefined && isObject(params.body)) serialised.set(params.body, json);
    if (typeof querystring === 'string') {
      const query = new URLSearchParams(querystring);
      query.set('preference', preference);
      return { ...params, querystring: query.toString() };
    }
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
