import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import { serializeList, Token } from 'structured-headers';
import {
  CATALOGUE_GENERATION_HEADER,
  enrichmentGenerationOf,
  generationMark,
  matchesEtag,
  type CachedResponse,
  type GenerationScope,
  type ResponseCache,
} from '@fragrance/response-cache';
import { ElasticsearchUnavailableError, isOutage } from '../breaker.ts';
import { responseCacheLookups, staleIfError } from '../metrics.ts';

/**
 * Sent with every cacheable 200 and 304. `private`: answers belong to the API key that asked
 * (the gateway counts each one). `max-age=0, must-revalidate`: a client revalidates every time
 * with If-None-Match, so an alias swap or an enrichment change reaches it on its next request
 * like it reaches everyone else; the revalidation costs no Elasticsearch query and no body.
 */
export const CACHE_CONTROL = 'private, max-age=0, must-revalidate';
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * What a route computes on a miss: the body, when the record carries one its own ETag, and
 * headers that go with this answer (internal ones for the gateway, such as the search outcome):
 * cached with it, so a cached answer carries them too.
 */
export interface Computed {
  body: unknown;
  etag?: string;
  headers?: Readonly<Record<string, string>>;
}

/** The cached routes: a bounded metric label and the first part of every cache key. */
export type CachedRoute = 'search' | 'detail' | 'similar';

/**
 * Answers a GET from the response cache; false when `compute` found nothing (the route's 404).
 * `params` are the parsed parameters that make the answer (see requestKey).
 */
export type Responder = (
  req: Request,
  res: Response,
  route: CachedRoute,
  params: Readonly<Record<string, unknown>>,
  compute: () => Promise<Computed | undefined>,
) => Promise<boolean>;

/**
 * Strong ETag of a body: the first 128 bits of its SHA-256, so equal bytes give equal tags (a
 * one-shot digest: a Hash object per answer cost more than hashing its few KB).
 */
const bodyEtag = (body: Buffer): string => `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;

async function render(compute: () => Promise<Computed | undefined>): Promise<CachedResponse | undefined> {
  const computed = await compute();
  if (!computed) return undefined;
  // Serialised here once, cached or not, so both paths send the same bytes.
  const body = Buffer.from(JSON.stringify(computed.body));
  const etag = computed.etag ?? bodyEtag(body);
  return computed.headers ? { body, etag, headers: computed.headers } : { body, etag };
}

/** The name this cache gives itself in Cache-Status (RFC 9211). */
const CACHE_NAME = new Token('catalogue');

/**
 * RFC 9211 Cache-Status of an answer served stale because Elasticsearch failed: a hit whose
 * freshness ended `staleSeconds` ago (negative ttl), with the reason in `detail`.
 */
export const staleCacheStatus = (staleSeconds: number): string =>
  serializeList([
    [
      CACHE_NAME,
      new Map<string, boolean | number | Token>([
        ['hit', true],
        ['ttl', -staleSeconds],
        ['detail', new Token('stale-if-error')],
      ]),
    ],
  ]);

function send(req: Request, res: Response, response: CachedResponse, mark: string | undefined): void {
  // The counter the answer was computed under, for the gateway's edge cache (which removes the header).
  if (mark !== undefined) res.setHeader(CATALOGUE_GENERATION_HEADER, mark);
  // The answer's own headers, on the 304 too (the gateway counts a revalidated search like any other).
  const { headers } = response;
  for (const name in headers) res.setHeader(name, headers[name]!);
  res.setHeader('ETag', response.etag);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  if (matchesEtag(req.get('if-none-match'), response.etag)) {
    res.status(304).end();
    return;
  }
  res.setHeader('Content-Type', JSON_TYPE);
  res.send(response.body);
}

/**
 * The responder of the routes. With a cache, `key` (the normalised request) is looked up under
 * the catalogue's current generation; without one, or while the generation cannot be read,
 * every answer is computed (same bytes, same headers). A request from the gateway's edge cache
 * carries the counter it read (CATALOGUE_GENERATION_HEADER); a held generation older than that
 * is read again before answering, and every cacheable answer is marked with its own counter.
 */
export interface ResponderCache {
  responses: ResponseCache;
  /** The generation now, read again first when it is older than `atLeast` (GenerationSource.current). */
  generation: (atLeast?: number) => Promise<string | undefined>;
  /** The generation last read successfully, and when (GenerationSource.lastKnown). */
  lastKnown: () => { generation: string; at: number } | undefined;
  /** The enrichment counter in Redis now (an announced swap or enrichment bumps it). */
  counter: () => Promise<string>;
  scope: GenerationScope;
  /** How long after the generation was last confirmed a held answer may stand in for a failed query; 0: never. */
  staleIfErrorMs: number;
}

/** Why a failed request did or did not get a stale answer (a bounded metric label). */
type StaleResult = 'served' | 'not_held' | 'other_generation' | 'too_old' | 'unconfirmed';

/**
 * stale-if-error (RFC 5861) for an Elasticsearch outage: the answer held for the request, if it
 * was computed under the generation last known to be current, that generation was confirmed at
 * most `staleIfErrorMs` ago, and Redis still holds its counter (an announced alias swap or
 * enrichment since then bumped it). An answer of another index or counter is never served.
 */
async function staleAnswer(
  cache: ResponderCache,
  key: string,
): Promise<{ result: 'served'; response: CachedResponse; staleSeconds: number } | { result: Exclude<StaleResult, 'served'> }> {
  const held = cache.responses.peek(key);
  if (!held) return { result: 'not_held' };
  const known = cache.lastKnown();
  if (known?.generation !== held.generation) return { result: 'other_generation' };
  const staleMs = Date.now() - known.at;
  if (staleMs > cache.staleIfErrorMs) return { result: 'too_old' };
  const counter = await cache.counter().catch(() => undefined);
  if (counter !== enrichmentGenerationOf(held.generation)) return { result: 'unconfirmed' };
  return { result: 'served', response: held.response, staleSeconds: Math.floor(staleMs / 1_000) };
}

export function createResponder(cache?: ResponderCache): Responder {
  const markPrefix = cache ? generationMark(cache.scope, '') : '';
  /** The counter the gateway's edge cache read for this request, when it forwards one for our key. */
  const seenByEdge = (req: Request): number | undefined => {
    const mark = req.headers[CATALOGUE_GENERATION_HEADER];
    if (typeof mark !== 'string' || !mark.startsWith(markPrefix)) return undefined;
    const counter = Number(mark.slice(markPrefix.length));
    return Number.isSafeInteger(counter) ? counter : undefined;
  };
  return async (req, res, route, params, compute) => {
    const generation = cache ? await cache.generation(seenByEdge(req)) : undefined;
    const key = requestKey(route, params);
    let response: CachedResponse | undefined;
    try {
      if (cache && generation !== undefined) {
        const lookup = await cache.responses.get(key, generation, () => render(compute));
        responseCacheLookups.inc({ route, outcome: lookup.outcome });
        response = lookup.response;
      } else {
        // No cache configured, or the generation is unknown right now (Redis or Elasticsearch away).
        if (cache) responseCacheLookups.inc({ route, outcome: 'bypass' });
        response = await render(compute);
      }
    } catch (error) {
      if (!cache || cache.staleIfErrorMs === 0 || !(error instanceof ElasticsearchUnavailableError || isOutage(error))) throw error;
      const stale = await staleAnswer(cache, key);
      staleIfError.inc({ route, result: stale.result });
      if (stale.result !== 'served') throw error;
      // Marked as stale, and without the generation mark: the edge cache must not keep it as current.
      res.setHeader('Age', String(stale.staleSeconds));
      res.setHeader('Cache-Status', staleCacheStatus(stale.staleSeconds));
      send(req, res, stale.response, undefined);
      return true;
    }
    if (!response) return false;
    const counter = enrichmentGenerationOf(generation);
    send(req, res, response, cache && counter !== undefined ? generationMark(cache.scope, counter) : undefined);
    return true;
  };
}

/** A cache key for parsed parameters: JSON with sorted keys, so parameter order does not matter. */
export function requestKey(route: string, params: Readonly<Record<string, unknown>>): string {
  const sorted = Object.keys(params)
    .sort()
    .filter((name) => params[name] !== undefined)
    .map((name) => [name, params[name]]);
  return `${route}?${JSON.stringify(sorted)}`;
}
