import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import {
  CATALOGUE_GENERATION_HEADER,
  generationMark,
  matchesEtag,
  type CachedResponse,
  type CacheLookup,
  type GenerationScope,
  type ResponseCache,
} from '@fragrance/response-cache';
import { SEARCH_OUTCOME_HEADER } from '@fragrance/search-analytics';
import { readAlongOf } from './api-key-auth.ts';
import { edgeCacheLookups, type EdgeCacheOutcome } from './metrics.ts';
import type { Forward, UpstreamAnswer } from './proxy.ts';

/** Answer headers that belong to one exchange, not to the answer: the edge sets its own. */
const PER_EXCHANGE = new Set(['date', 'x-request-id', 'content-length']);
/**
 * What a 304 repeats of the 200 it stands for (RFC 9110 §15.4.5), and the search outcome, which
 * the search-counting middleware removes (a revalidated search counts like any other).
 */
const NOT_MODIFIED_HEADERS = ['cache-control', 'content-location', 'etag', 'expires', 'vary', SEARCH_OUTCOME_HEADER] as const;

export interface EdgeCacheOptions {
  cache: ResponseCache;
  /** The counter's key and what the catalogue marks answers with: the admitter reads it along (readAlong). */
  scope: GenerationScope;
  /** Forwards a request to the catalogue (upstreamForwarder). */
  forward: Forward;
}

/** Read whole and offered to the cache: a 200 with an ETag the catalogue marked with `mark` (the counter read for this request). */
const worthKeeping =
  (mark: string) =>
  (statusCode: number, headers: Readonly<Record<string, string | string[] | undefined>>, generation: string | undefined): boolean =>
    statusCode === 200 && generation === mark && typeof headers.etag === 'string';

/**
 * How long a target whose answer could not be shared (a 404, a 400, an answer the catalogue did
 * not mark) goes straight to the catalogue. Only that generation's: a bump ends it too.
 */
const UNSHARED_TTL_MS = 5_000;
/** Most such targets remembered (the least recently asked go first). */
const UNSHARED_MAX_TARGETS = 10_000;

/** Headers that make an answer depend on more than the request target: kept out of the cache. */
const PER_CLIENT = ['vary', 'content-encoding', 'set-cookie'] as const;

/** The answer as the cache keeps it (worthKeeping said so), unless it depends on who asked. */
function cacheable(answer: UpstreamAnswer): CachedResponse | undefined {
  const etag = answer.headers.etag;
  if (typeof etag !== 'string') return undefined;
  // The key is the request target alone: an answer negotiated on request headers, or meant for one client, is not shared.
  if (PER_CLIENT.some((name) => answer.headers[name] !== undefined)) return undefined;
  const headers: Record<string, string> = {};
  for (const name in answer.headers) {
    const value = answer.headers[name];
    if (PER_EXCHANGE.has(name)) continue;
    // A repeated header (Set-Cookie and the like) belongs to one client: such an answer is not shared.
    if (typeof value !== 'string') return undefined;
    headers[name] = value;
  }
  return { body: answer.body, etag, headers };
}

/** Sends a 200 (or the 304 a matching If-None-Match asks for) with the answer's own headers. */
function send(req: Request, res: Response, statusCode: number, headers: Readonly<Record<string, string | string[]>>, body: Buffer): void {
  const etag = headers.etag;
  if (statusCode === 200 && typeof etag === 'string' && matchesEtag(req.headers['if-none-match'], etag)) {
    for (const name of NOT_MODIFIED_HEADERS) {
      const value = headers[name];
      if (value !== undefined) res.setHeader(name, value);
    }
    res.statusCode = 304;
    res.end();
    return;
  }
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !PER_EXCHANGE.has(name)) res.setHeader(name, value);
  }
  res.statusCode = statusCode;
  res.setHeader('content-length', body.length);
  res.end(body);
}

/**
 * The edge cache (docs/search.md#the-edge-cache-gateway): catalogue answers kept in the gateway, keyed by
 * the request target and the catalogue's generation, so a popular search costs one admission
 * and no hop to the catalogue.
 *
 * - Every request is still admitted and counted first (billing exact; 429s and 401s as ever).
 * - The generation's counter is read by each request's admission script (readAlong), so a bump (an
 *   enrichment batch, an ingest or rollback, a swap a catalogue noticed) is seen by the very next
 *   request. A miss tells the catalogue the counter it read, so a catalogue whose bump message is
 *   still on its way reads the generation again rather than answer from the old one; an answer is
 *   kept only when the catalogue marks it with that very counter (CATALOGUE_GENERATION_HEADER).
 * - Only 200s with an ETag that the catalogue marks with that counter are read whole and kept;
 *   everything else (errors, 404s, 304s, answers of a catalogue without its own cache) streams
 *   through as the plain proxy streams it, and is forgotten.
 * - Concurrent requests for a missing answer share one request to the catalogue. When that answer
 *   cannot be shared, each of them asks for its own, and for a few seconds so does every request
 *   for that target under that generation, at once: without that, requests for an answer nobody
 *   can share (a catalogue that marks nothing, a popular 404) would queue behind one another.
 * - No Redis, no admission (503), so no counter is ever guessed; a request admitted without one
 *   (an admitter not set up to read it) is proxied as usual.
 */
export function edgeCache({ cache, scope, forward }: EdgeCacheOptions): RequestHandler {
  // One labels object per route and outcome, made once (every cached request counts one).
  const labels = new Map<string, { route: string; outcome: EdgeCacheOutcome }>();
  const count = (route: string, outcome: EdgeCacheOutcome) => {
    const id = `${route} ${outcome}`;
    let pair = labels.get(id);
    if (!pair) labels.set(id, (pair = { route, outcome }));
    edgeCacheLookups.inc(pair);
  };

  /** Target → the generation under which its answer could not be shared, for UNSHARED_TTL_MS. */
  const unshared = new LRUCache<string, string>({ max: UNSHARED_MAX_TARGETS, ttl: UNSHARED_TTL_MS });

  return async (req, res, next) => {
    if (req.method !== 'GET') {
      next();
      return;
    }
    const route = (req.route as { path?: string } | undefined)?.path ?? 'other';
    const counter = readAlongOf(res);
    if (counter === undefined) {
      // Not admitted by an admitter that reads the counter (a wiring mistake): proxy as usual.
      count(route, 'bypass');
      next();
      return;
    }
    // Before any writer bumped it the counter has no value: the catalogue calls that "0" too.
    const generation = counter === '' ? '0' : counter;
    if (unshared.get(req.originalUrl) === generation) {
      count(route, 'uncacheable');
      next();
      return;
    }
    let own: UpstreamAnswer | undefined;
    let streamed = false;
    let lookup: CacheLookup;
    try {
      const mark = generationMark(scope, generation);
      lookup = await cache.get(req.originalUrl, generation, async () => {
        own = await forward(req, res, {
          // The counter read for this request goes along: a catalogue still holding an older one reads it again first.
          addRequestHeaders: { [CATALOGUE_GENERATION_HEADER]: mark },
          collect: worthKeeping(mark),
        });
        // Anything else (an error, a 404, a 304 to this client's If-None-Match, an unmarked answer) went straight to the client.
        streamed = own === undefined;
        return own && cacheable(own);
      });
    } catch (error) {
      // The catalogue's failure (503/504/502), for this request and every one that waited on it.
      next(error);
      return;
    }
    if (lookup.response) {
      count(route, lookup.outcome);
      send(req, res, 200, lookup.response.headers ?? {}, lookup.response.body);
      return;
    }
    count(route, 'uncacheable');
    // A 304 answered this client's If-None-Match: the target's answer may still be shareable.
    if (lookup.outcome !== 'shared' && res.statusCode !== 304) unshared.set(req.originalUrl, generation);
    if (streamed) return;
    if (own) {
      send(req, res, own.statusCode, own.headers, own.body);
      return;
    }
    // Waited on another request's answer that could not be shared (an error with its request id, say): ask for our own.
    next();
  };
}
